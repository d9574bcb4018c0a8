print("ClientBenchmark: not written yet")
