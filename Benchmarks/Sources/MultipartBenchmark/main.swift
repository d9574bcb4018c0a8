print("MultipartBenchmark: not written yet")
