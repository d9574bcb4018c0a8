// MultipartBenchmark: HTTPMultipart against a baseline measured in the same run.
//
//   swift run -c release --package-path Benchmarks MultipartBenchmark [rounds] [a|b|all]
//
// (a) 100 text fields + 10 × 1 MiB binary parts encoded to `Data`, against
//     vapor/multipart-kit's `FormDataEncoder` into a `ByteBuffer` plus conversion to `Data`.
// (b) a 1 GiB file part + 5 text fields encoded to disk, against `/bin/cp` of the same
//     file; each encode runs in a fresh process so its peak RSS (VmHWM) is its own. The
//     encode is timed inside that process; cp is timed as a whole subprocess (its start
//     costs about a millisecond). `sync` runs before each, so no copy pays for the last
//     one's dirty pages.
// (c) the same form read as a streaming body (chunks discarded), in a fresh process, for
//     its peak RSS.
// Every figure is a median ratio over the rounds. The 1 GiB files live in /tmp and are
// deleted at the end.
// HERON_BENCH_JSON / HERON_BENCH_QUICK: see BenchmarkSupport's Report (quick: a 64 MiB file
// instead of 1 GiB).
import BenchmarkSupport
import Foundation
import HTTPMultipart
import MultipartKit

let arguments = CommandLine.arguments
if arguments.count >= 4, arguments[1] == "child-disk" || arguments[1] == "child-stream" {
    await runChild(mode: arguments[1], source: arguments[2], output: arguments[3])
    exit(0)
}
let rounds = arguments.count > 1 ? Int(arguments[1]) ?? 7 : 7
let which = arguments.count > 2 ? arguments[2] : "all"

// MARK: (a) in memory

if which == "all" || which == "a" {
    struct SmallForm: Encodable {
        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        let texts: [String]
        let blobs: [Data]

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            for (index, text) in texts.enumerated() {
                try container.encode(text, forKey: Key(stringValue: "field\(index)"))
            }
            for (index, blob) in blobs.enumerated() {
                try container.encode(blob, forKey: Key(stringValue: "file\(index)"))
            }
        }
    }

    var generator = SystemRandomNumberGenerator()
    let texts = (0..<100).map { "value number \($0) with some text" }
    let blobs = (0..<10).map { _ in Data((0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }) }
    let small = SmallForm(texts: texts, blobs: blobs)
    let boundary = "Heron-bench-boundary-0123456789abcdef"

    func heronInMemory() async throws -> Data {
        var form = MultipartForm()  // the default random boundary
        for (index, text) in texts.enumerated() { form.append(name: "field\(index)", value: text) }
        for (index, blob) in blobs.enumerated() { form.append(name: "file\(index)", data: blob) }
        guard let data = try await form.encodedInMemory().data else { fatalError("no data") }
        return data
    }

    func codableInMemory() async throws -> Data {
        let form = try MultipartFormEncoder(sortsKeys: false).encode(small)
        guard let data = try await form.encodedInMemory().data else { fatalError("no data") }
        return data
    }

    func kitToBuffer() throws -> ByteBuffer {
        var buffer = ByteBuffer()
        try FormDataEncoder().encode(small, boundary: boundary, into: &buffer)
        return buffer
    }

    /// The plainest conversion to `Data`: one copy of the readable bytes.
    func kitInMemory() throws -> Data {
        try kitToBuffer().withUnsafeReadableBytes { Data($0) }
    }

    var sink = 0
    var heronTimes: [Double] = []
    var kitTimes: [Double] = []
    var codableTimes: [Double] = []
    var kitBufferTimes: [Double] = []
    for round in 0..<(rounds * 3) {
        // Alternate the order so neither side always runs first (on a warmer cache, or
        // right after the other's frees).
        let warmup = round == 0 ? 2 : 0
        if round % 2 == 0 {
            kitTimes += try Measure.seconds(rounds: 1, warmup: warmup) { sink &+= try kitInMemory().count }
        }
        heronTimes += try await Measure.seconds(rounds: 1, warmup: warmup) {
            sink &+= try await heronInMemory().count
        }
        if round % 2 == 1 {
            kitTimes += try Measure.seconds(rounds: 1, warmup: warmup) { sink &+= try kitInMemory().count }
        }
        codableTimes += try await Measure.seconds(rounds: 1, warmup: warmup) {
            sink &+= try await codableInMemory().count
        }
        // The parts of the baseline, to compare with the figures (2.5 ms + 0.7 ms).
        kitBufferTimes += try Measure.seconds(rounds: 1, warmup: 0) { sink &+= try kitToBuffer().readableBytes }
    }
    let ratiosA = zip(heronTimes, kitTimes).map { $0 / $1 }
    let ratiosCodable = zip(codableTimes, kitTimes).map { $0 / $1 }
    print("(a) 100 text fields + 10 × 1 MiB parts to Data, \(heronTimes.count) rounds")
    print("    HTTPMultipart encodedInMemory        median \(Measure.ms(Measure.median(heronTimes)))")
    print("    multipart-kit FormDataEncoder + Data median \(Measure.ms(Measure.median(kitTimes)))")
    print("      of which FormDataEncoder to ByteBuffer median \(Measure.ms(Measure.median(kitBufferTimes)))")
    print("    HTTPMultipart MultipartFormEncoder   median \(Measure.ms(Measure.median(codableTimes)))")
    print(
        String(format: "    median ratio HTTPMultipart / multipart-kit: %.3f (target ≤ 0.5)", Measure.median(ratiosA)))
    print("    ratio per round: " + ratiosA.map { String(format: "%.2f", $0) }.joined(separator: " "))
    print(String(format: "    median ratio Codable HTTPMultipart / multipart-kit: %.3f", Measure.median(ratiosCodable)))
    Report.record(
        "multipart", "(a) encodedInMemory / multipart-kit", heron: Measure.median(heronTimes) * 1000,
        baseline: Measure.median(kitTimes) * 1000, unit: "ms", ratio: Measure.median(ratiosA), bar: .atMost(0.5))
    Report.record(
        "multipart", "(a) MultipartFormEncoder / multipart-kit", heron: Measure.median(codableTimes) * 1000,
        baseline: Measure.median(kitTimes) * 1000, unit: "ms", ratio: Measure.median(ratiosCodable))
}

// MARK: (b) 1 GiB to disk, (c) 1 GiB as a stream

if which == "all" || which == "b" {
    let gib = Report.quick ? 64 << 20 : 1 << 30
    let sizeText = Report.quick ? "64 MiB" : "1 GiB"
    var generator = SystemRandomNumberGenerator()
    let directory = URL(fileURLWithPath: "/tmp/heron-multipart-bench-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let source = directory.appendingPathComponent("source-1gib.bin")
    do {
        _ = FileManager.default.createFile(atPath: source.path, contents: nil)
        let handle = try FileHandle(forWritingTo: source)
        let block = Data((0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        for _ in 0..<(gib >> 20) { try handle.write(contentsOf: block) }
        try handle.close()
    }
    let formOutput = directory.appendingPathComponent("form.out")
    let copyOutput = directory.appendingPathComponent("copy.out")
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()

    struct ChildReport {
        let seconds: Double
        let baseline: Int64
        let peak: Int64
    }

    func runProcess(_ url: URL, _ arguments: [String]) throws -> (seconds: Double, output: String) {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        let start = DispatchTime.now().uptimeNanoseconds
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        guard process.terminationStatus == 0 else {
            fatalError("\(url.path) \(arguments) exited \(process.terminationStatus)")
        }
        return (seconds, String(decoding: output, as: UTF8.self))
    }

    /// Flushes dirty pages so each timed copy starts from the same state.
    func sync() throws { _ = try runProcess(URL(fileURLWithPath: "/bin/sync"), []) }

    func child(_ mode: String) throws -> ChildReport {
        try sync()
        let (_, output) = try runProcess(executable, [mode, source.path, formOutput.path])
        let fields = output.split(separator: " ").compactMap {
            Double($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        guard fields.count == 3 else { fatalError("bad child output: \(output)") }
        return ChildReport(seconds: fields[0], baseline: Int64(fields[1]), peak: Int64(fields[2]))
    }

    func removeOutputs() {
        try? FileManager.default.removeItem(at: formOutput)
        try? FileManager.default.removeItem(at: copyOutput)
    }

    var diskTimes: [Double] = []
    var copyTimes: [Double] = []
    var diskPeaks: [Int64] = []
    var diskGrowth: [Int64] = []
    _ = try runProcess(URL(fileURLWithPath: "/bin/cp"), [source.path, copyOutput.path])  // warm the page cache
    removeOutputs()
    for round in 0..<rounds {
        var disk: ChildReport
        var copy: Double
        if round % 2 == 0 {
            disk = try child("child-disk")
            removeOutputs()
            try sync()
            copy = try runProcess(URL(fileURLWithPath: "/bin/cp"), [source.path, copyOutput.path]).seconds
        } else {
            try sync()
            copy = try runProcess(URL(fileURLWithPath: "/bin/cp"), [source.path, copyOutput.path]).seconds
            removeOutputs()
            disk = try child("child-disk")
        }
        removeOutputs()
        diskTimes.append(disk.seconds)
        copyTimes.append(copy)
        diskPeaks.append(disk.peak)
        diskGrowth.append(disk.peak - disk.baseline)
    }
    let ratiosB = zip(diskTimes, copyTimes).map { $0 / $1 }
    let mib = { (bytes: Int64) in String(format: "%.1f MiB", Double(bytes) / 1_048_576) }
    print("(b) \(sizeText) file part + 5 text fields to disk, \(rounds) rounds (each encode in a fresh process)")
    print("    HTTPMultipart encode(toFileAt:)      median \(Measure.ms(Measure.median(diskTimes)))")
    print("    /bin/cp of the same file             median \(Measure.ms(Measure.median(copyTimes)))")
    print(String(format: "    median ratio HTTPMultipart / cp: %.3f (target ≤ 1.25)", Measure.median(ratiosB)))
    print("    ratio per round: " + ratiosB.map { String(format: "%.3f", $0) }.joined(separator: " "))
    print(
        "    peak RSS (VmHWM) max \(mib(diskPeaks.max() ?? -1)), growth above baseline max \(mib(diskGrowth.max() ?? -1))"
    )
    Report.record(
        "multipart", "(b) encode(toFileAt:) \(sizeText) / cp", heron: Measure.median(diskTimes) * 1000,
        baseline: Measure.median(copyTimes) * 1000, unit: "ms", ratio: Measure.median(ratiosB), bar: .atMost(1.25))
    Report.record(
        "multipart", "(b) encode(toFileAt:) peak RSS growth", heron: Double(diskGrowth.max() ?? -1) / 1_048_576,
        unit: "MiB", note: "peak RSS \(mib(diskPeaks.max() ?? -1))")

    var streamGrowth: [Int64] = []
    var streamPeaks: [Int64] = []
    var streamTimes: [Double] = []
    for _ in 0..<max(1, rounds / 2) {
        let report = try child("child-stream")
        streamGrowth.append(report.peak - report.baseline)
        streamPeaks.append(report.peak)
        streamTimes.append(report.seconds)
    }
    print("(c) the same form read as a streaming body, \(streamTimes.count) rounds")
    print(
        "    median \(Measure.ms(Measure.median(streamTimes))); peak RSS max \(mib(streamPeaks.max() ?? -1)), "
            + "growth above baseline max \(mib(streamGrowth.max() ?? -1))")
    Report.record(
        "multipart", "(c) streaming body peak RSS growth", heron: Double(streamGrowth.max() ?? -1) / 1_048_576,
        unit: "MiB", note: "peak RSS \(mib(streamPeaks.max() ?? -1))")
    try? FileManager.default.removeItem(at: directory)
}

// MARK: children

func currentRSS() -> Int64 {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return (Int64(line.filter(\.isNumber)) ?? -1) * 1024
    }
    return -1
}

func runChild(mode: String, source: String, output: String) async {
    do {
        var form = MultipartForm()
        for index in 0..<5 { form.append(name: "field\(index)", value: "text value \(index)") }
        try form.append(name: "video", fileAt: URL(fileURLWithPath: source))
        let baseline = currentRSS()
        let start = DispatchTime.now().uptimeNanoseconds
        if mode == "child-disk" {
            _ = try await form.encode(toFileAt: URL(fileURLWithPath: output))
        } else {
            var total = 0
            for try await chunk in form.streamingBody().body.chunks() { total += chunk.count }
            guard Int64(total) == form.contentLength else { fatalError("short stream") }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        print(seconds, baseline, Measure.peakRSS())
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(1)
    }
}
