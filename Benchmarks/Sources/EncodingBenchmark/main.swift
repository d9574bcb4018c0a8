// Encoding benchmark: the Codable FormEncoder against Python's urllib.parse.urlencode
// of the same pairs, pre-flattened, measured in the same run.
//
//   swift run -c release --package-path Benchmarks EncodingBenchmark [runs]
//
// Each run times a median of several rounds for both sides (Python times itself in a
// subprocess, so its start-up is not counted) and reports the ratio; the summary is the
// median ratio over the runs, and the 1k → 10k scaling of the Swift encoder.
import BenchmarkSupport
import Foundation
import HTTPEncoding

struct Item: Encodable {
    var count: Int
    var tags: [String]
    var flag: Bool
    var note: String
}

let note = "caf\u{E9} & cr\u{E8}me / why? \u{1F9A9} yes"

func key(_ index: Int) -> String { "k" + String(String(index + 100_000).dropFirst()) }

func payload(keys: Int) -> [String: Item] {
    var items: [String: Item] = [:]
    items.reserveCapacity(keys)
    for index in 0..<keys {
        items[key(index)] = Item(
            count: index, tags: ["red", "green blue", "x/y"], flag: index % 2 == 0, note: note)
    }
    return items
}

/// Python's side: the same pairs, already flattened and in the same (sorted) order.
let pythonScript = #"""
    import sys, time, urllib.parse, statistics
    keys, rounds, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    note = "caf\u00e9 & cr\u00e8me / why? \U0001F9A9 yes"
    pairs = []
    for i in range(keys):
        k = "k" + str(i + 100000)[1:]
        p = k
        pairs.append((p + "[count]", str(i)))
        pairs.append((p + "[flag]", "1" if i % 2 == 0 else "0"))
        pairs.append((p + "[note]", note))
        for t in ["red", "green blue", "x/y"]:
            pairs.append((p + "[tags][]", t))
    urllib.parse.urlencode(pairs)
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        encoded = urllib.parse.urlencode(pairs)
        samples.append(time.perf_counter() - start)
    open(out, "w").write(encoded)
    print(statistics.median(samples))
    """#

func pythonMedian(keys: Int, rounds: Int, output: URL) throws -> Double {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", pythonScript, String(keys), String(rounds), output.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0,
        let seconds = Double(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    else {
        throw CocoaError(.executableLoad)
    }
    return seconds
}

func swiftMedian(_ value: [String: Item], rounds: Int) throws -> (Double, Data) {
    let encoder = FormEncoder()
    var body = Data()
    let samples = try Measure.seconds(rounds: rounds) {
        let encoded = try encoder.encodeBody(value)
        if case .data(let data) = encoded.body.source { body = data }
    }
    return (Measure.median(samples), body)
}

if CommandLine.arguments.dropFirst().first == "sizes" {
    // Swift encoder alone at several sizes: minimum and median of 15 rounds, per key.
    for keys in [1_000, 2_000, 5_000, 10_000, 20_000] {
        let value = payload(keys: keys)
        let encoder = FormEncoder()
        let samples = try Measure.seconds(rounds: 15) { _ = try encoder.encodeBody(value) }
        let perKey = { (seconds: Double) in String(format: "%.0f ns/key", seconds / Double(keys) * 1e9) }
        print(
            "\(keys) keys: min \(Measure.ms(samples.min() ?? .nan)) (\(perKey(samples.min() ?? .nan))), "
                + "median \(Measure.ms(Measure.median(samples))) (\(perKey(Measure.median(samples))))")
    }
    exit(0)
}

let runs = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 5 : 5
let rounds = 9
let small = payload(keys: 1_000)
let large = payload(keys: 10_000)
let pythonOutput = FileManager.default.temporaryDirectory.appendingPathComponent("heron-urlencode-\(getpid()).txt")
defer { try? FileManager.default.removeItem(at: pythonOutput) }

var ratios: [Double] = []
var scalings: [Double] = []
var swiftTimes: [Double] = []
var pythonTimes: [Double] = []
for run in 1...runs {
    let (smallTime, _) = try swiftMedian(small, rounds: rounds)
    let (largeTime, body) = try swiftMedian(large, rounds: rounds)
    let python = try pythonMedian(keys: 10_000, rounds: rounds, output: pythonOutput)
    let expected = try Data(contentsOf: pythonOutput)
    guard body == expected else {
        print("mismatch: Swift wrote \(body.count) bytes, Python \(expected.count); outputs differ")
        exit(1)
    }
    ratios.append(largeTime / python)
    scalings.append(largeTime / smallTime)
    swiftTimes.append(largeTime)
    pythonTimes.append(python)
    print(
        "run \(run): 10k keys \(Measure.ms(largeTime)) (\(body.count) bytes, identical to Python's), "
            + "Python urlencode \(Measure.ms(python)), ratio \(String(format: "%.3f", largeTime / python)); "
            + "1k keys \(Measure.ms(smallTime)), 10k/1k \(String(format: "%.2f", largeTime / smallTime))")
}
print(
    "median over \(runs) runs: FormEncoder 10k keys \(Measure.ms(Measure.median(swiftTimes))), "
        + "Python \(Measure.ms(Measure.median(pythonTimes))), ratio \(String(format: "%.3f", Measure.median(ratios))) "
        + "(target <= 0.3), 10k/1k time \(String(format: "%.2f", Measure.median(scalings))) (target <= 11)")
