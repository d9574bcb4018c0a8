// Encoding benchmark: the Codable FormEncoder against Python's urllib.parse.urlencode
// of the same pairs, pre-flattened, measured in the same run.
//
//   swift run -c release --package-path Benchmarks EncodingBenchmark [runs]
//   swift run -c release --package-path Benchmarks EncodingBenchmark sizes
//   perf stat -e instructions:u,cycles:u .../EncodingBenchmark repeat <keys> <rounds>
//
// Each run takes the median of several rounds for both sides; Python times itself in a
// subprocess, so its start-up is not counted. The machine is shared, so besides wall time
// every round is also timed in CPU time of the encoding thread (CLOCK_THREAD_CPUTIME_ID in
// Swift, time.thread_time() in Python), which other processes' load disturbs far less.
// The 1k and 10k encodings alternate round by round so both see the same load, and every
// timed round, Swift's and Python's, starts with caches flushed (a 64 MiB buffer is
// rewritten first): otherwise the 1k encoding, whose buffers fit in this machine's L2
// cache, would reuse them warm from the previous round while the 10k one cannot, and the
// 10k/1k ratio would measure the cache rather than the encoder. The summary is the median
// over the runs of: the 10k time, Python's time, their ratio, and the 10k/1k ratio.
// HERON_BENCH_JSON / HERON_BENCH_QUICK: see BenchmarkSupport's Report (quick: 3 rounds a run).
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

/// A top-level dictionary of `keys` keys, each holding an int, a 3-element string array,
/// a bool and a string with spaces, `&`, `/`, `?` and non-ASCII.
func payload(keys: Int) -> [String: Item] {
    var items: [String: Item] = [:]
    items.reserveCapacity(keys)
    for index in 0..<keys {
        items[key(index)] = Item(count: index, tags: ["red", "green blue", "x/y"], flag: index % 2 == 0, note: note)
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
        pairs.append((k + "[count]", str(i)))
        pairs.append((k + "[flag]", "1" if i % 2 == 0 else "0"))
        pairs.append((k + "[note]", note))
        for t in ["red", "green blue", "x/y"]:
            pairs.append((k + "[tags][]", t))
    urllib.parse.urlencode(pairs)
    walls, cpus = [], []
    flush = bytearray(64 << 20)
    for round in range(rounds):
        flush[::64] = bytes([round % 256]) * len(flush[::64])
        wall, cpu = time.perf_counter(), time.thread_time()
        encoded = urllib.parse.urlencode(pairs)
        cpus.append(time.thread_time() - cpu)
        walls.append(time.perf_counter() - wall)
    open(out, "w").write(encoded)
    print(statistics.median(walls), statistics.median(cpus))
    """#

struct Timing {
    var wall: Double
    var cpu: Double
}

/// A buffer larger than every cache of this machine, rewritten before each timed round.
nonisolated(unsafe) var flushBuffer = [UInt8](repeating: 0, count: 64 << 20)

func flushCaches() {
    let mark = UInt8.random(in: 0...255)
    flushBuffer.withUnsafeMutableBufferPointer { buffer in
        var index = 0
        while index < buffer.count {
            buffer[index] = mark
            index += 64
        }
    }
}

func measure(_ body: () throws -> Void) rethrows -> Timing {
    flushCaches()
    let wall = DispatchTime.now().uptimeNanoseconds
    let cpu = Measure.threadCPUSeconds()
    try body()
    return Timing(
        wall: Double(DispatchTime.now().uptimeNanoseconds - wall) / 1e9, cpu: Measure.threadCPUSeconds() - cpu)
}

func medians(_ timings: [Timing]) -> Timing {
    Timing(wall: Measure.median(timings.map(\.wall)), cpu: Measure.median(timings.map(\.cpu)))
}

func python(keys: Int, rounds: Int, output: URL) throws -> Timing {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", pythonScript, String(keys), String(rounds), output.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let fields = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
    guard process.terminationStatus == 0, fields.count == 2 else { throw CocoaError(.executableLoad) }
    return Timing(wall: fields[0], cpu: fields[1])
}

func bodyBytes(_ value: [String: Item], encoder: FormEncoder) throws -> Data {
    guard case .data(let data) = try encoder.encodeBody(value).body.source else { return Data() }
    return data
}

let encoder = FormEncoder()

if CommandLine.arguments.dropFirst().first == "repeat", CommandLine.arguments.count == 4,
    let keys = Int(CommandLine.arguments[2]), let rounds = Int(CommandLine.arguments[3])
{
    // For `perf stat`: build the payload, then encode it `rounds` times with nothing else
    // (no cache flush, no timing), so counters such as instructions can be compared
    // between sizes; `rounds` 0 measures the payload alone.
    let value = payload(keys: keys)
    var total = 0
    for _ in 0..<rounds { total &+= try bodyBytes(value, encoder: encoder).count }
    print(total)
    exit(0)
}

if CommandLine.arguments.dropFirst().first == "sizes" {
    // The Swift encoder alone at several sizes, CPU time per key (median of 15 rounds).
    for keys in [1_000, 2_000, 5_000, 10_000, 20_000] {
        let value = payload(keys: keys)
        _ = try bodyBytes(value, encoder: encoder)
        let timing = medians(try (0..<15).map { _ in try measure { _ = try bodyBytes(value, encoder: encoder) } })
        print(
            "\(keys) keys: cpu \(Measure.ms(timing.cpu)) (\(String(format: "%.0f", timing.cpu / Double(keys) * 1e9)) ns/key)"
                + ", wall \(Measure.ms(timing.wall))")
    }
    exit(0)
}

let runs = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 5 : 5
let rounds = Report.quick ? 3 : 11
let small = payload(keys: 1_000)
let large = payload(keys: 10_000)
let pythonOutput = FileManager.default.temporaryDirectory.appendingPathComponent("heron-urlencode-\(getpid()).txt")
defer { try? FileManager.default.removeItem(at: pythonOutput) }

var summaries: [(large: Timing, python: Timing, scaling: Timing)] = []
for run in 1...runs {
    _ = try bodyBytes(small, encoder: encoder)
    let body = try bodyBytes(large, encoder: encoder)
    var smallTimings: [Timing] = []
    var largeTimings: [Timing] = []
    for _ in 0..<rounds {
        smallTimings.append(try measure { _ = try bodyBytes(small, encoder: encoder) })
        largeTimings.append(try measure { _ = try bodyBytes(large, encoder: encoder) })
    }
    let pythonTiming = try python(keys: 10_000, rounds: rounds, output: pythonOutput)
    guard try Data(contentsOf: pythonOutput) == body else {
        print("mismatch: the Swift and Python outputs differ")
        exit(1)
    }
    let smallTiming = medians(smallTimings)
    let largeTiming = medians(largeTimings)
    let scaling = Timing(wall: largeTiming.wall / smallTiming.wall, cpu: largeTiming.cpu / smallTiming.cpu)
    summaries.append((largeTiming, pythonTiming, scaling))
    print(
        "run \(run): 10k keys cpu \(Measure.ms(largeTiming.cpu)) wall \(Measure.ms(largeTiming.wall)) "
            + "(\(body.count) bytes, identical to Python's); Python cpu \(Measure.ms(pythonTiming.cpu)) "
            + "wall \(Measure.ms(pythonTiming.wall)); ratio cpu \(String(format: "%.3f", largeTiming.cpu / pythonTiming.cpu)) "
            + "wall \(String(format: "%.3f", largeTiming.wall / pythonTiming.wall)); 10k/1k cpu "
            + "\(String(format: "%.2f", scaling.cpu)) wall \(String(format: "%.2f", scaling.wall))")
}

func median(_ values: [Double]) -> String { String(format: "%.3f", Measure.median(values)) }
print(
    "median over \(runs) runs: FormEncoder 10k keys cpu \(Measure.ms(Measure.median(summaries.map(\.large.cpu)))) "
        + "wall \(Measure.ms(Measure.median(summaries.map(\.large.wall)))); Python cpu "
        + "\(Measure.ms(Measure.median(summaries.map(\.python.cpu)))) wall "
        + "\(Measure.ms(Measure.median(summaries.map(\.python.wall))))")
print(
    "ratio to Python (target <= 0.3): cpu \(median(summaries.map { $0.large.cpu / $0.python.cpu })) "
        + "wall \(median(summaries.map { $0.large.wall / $0.python.wall })); "
        + "10k/1k time (target <= 11): cpu \(median(summaries.map(\.scaling.cpu))) "
        + "wall \(median(summaries.map(\.scaling.wall)))")

do {
    let cpu = summaries.map { $0.large.cpu / $0.python.cpu }
    let wall = summaries.map { $0.large.wall / $0.python.wall }
    Report.record(
        "encoding", "FormEncoder 10k keys / urlencode, cpu",
        heron: Measure.median(summaries.map(\.large.cpu)) * 1000,
        baseline: Measure.median(summaries.map(\.python.cpu)) * 1000, unit: "ms",
        ratio: Measure.median(cpu), bar: .atMost(0.3))
    Report.record(
        "encoding", "FormEncoder 10k keys / urlencode, wall",
        heron: Measure.median(summaries.map(\.large.wall)) * 1000,
        baseline: Measure.median(summaries.map(\.python.wall)) * 1000, unit: "ms",
        ratio: Measure.median(wall), bar: .atMost(0.3))
    Report.record(
        "encoding", "FormEncoder 10k/1k time, cpu", heron: Measure.median(summaries.map(\.scaling.cpu)),
        unit: "x", bar: .atMost(11), on: .heron)
}
