print("EncodingBenchmark: not written yet")
