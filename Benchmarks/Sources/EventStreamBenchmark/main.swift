// EventStreamBenchmark: Heron's streaming decoders (HTTPEncoding's server-sent events and
// JSON Lines, HTTPEndpoints' event streams) against baselines measured in the same run.
//
//   swift run -c release --package-path Benchmarks EventStreamBenchmark [rounds] [parse|jsonl|client|all]
//   perf record .../EventStreamBenchmark profile parse|jsonl|jsonl-loop|client [repeats]
//
// (1) parse: 100 MB of server-sent events of about 1 KiB (`id: i`, `data: ` and 900 to 1,099
//     printable ASCII bytes, a blank line), cut into 16 KiB chunks held in memory, parsed
//     into raw events by ServerSentEventParser; every event (count, id, type, data) is
//     checked against the events written, once, before the timed rounds. Against
//     mattt/EventSource 1.1.1's parser (its sources compiled unchanged by the MatttEventSource
//     target, with a shim for the URLSession method Linux lacks), fed the same chunks, its
//     events checked against Heron's: its public `.events` over the chunks' bytes against
//     Heron's `serverSentEvents()` over the chunks, and its Parser actor handed one chunk
//     per call against ServerSentEventParser; target: Heron >= 3x its events/s, both ways.
//     Also against swift-openapi-runtime 1.13's `asDecodedServerSentEvents()` (async
//     sequences over the same chunks, no target). Reported: Heron's GB/s on one core,
//     against memchr scanning the same chunks for LF (the ceiling of any parser that looks
//     at every byte); target: Heron >= 1 GB/s.
// (2) jsonl: 1M lines such as `{"id":123,"name":"abc123","active":true}` (45 MB) decoded into
//     a struct from an AsyncStream<Data> of 16 KiB chunks with `.jsonLines().decoded(as:)`,
//     against one JSONDecoder decoding the lines of the whole buffer (each found by memchr)
//     one by one. Target: Heron's time <= 1.1x the hand-written loop's.
// (3) client: the same 100 MB of events from a loopback server (a Python child serving the
//     body from memory, chunked), read through a default `Client()` (URLSessionTransport)
//     with `client.events(.get(url))`, against node-eventsource 2.x (Debian's) reading the
//     same URL in a node process (eventsource-client.js beside this file, run with
//     NODE_PATH=/usr/share/nodejs; it times itself, so node's start-up is not counted).
//     Target: Heron >= 2x node-eventsource's events/s. Also shown, without a target: node's
//     http module with a minimal parser of its own (the script's `plain` mode: LF-only,
//     `data` and `id` only), how fast node can go; and the same body through Heron's
//     `client.stream` with no parsing, the transport's share.
//
// Contenders alternate within each round, the order reversed every other round. Each
// figure is timed in wall time and in CPU time of the process (user + system, every
// thread; node reports its own), steadier on this shared machine. A ratio is the median of
// the per-round ratios, shown with its spread (min-max) over the rounds.
// HERON_BENCH_JSON / HERON_BENCH_QUICK: see BenchmarkSupport's Report (quick: 4 MB of events,
// 20k lines, a 2 MB stream; the rounds are the first argument).
import BenchmarkSupport
import Foundation
import HTTPClient
import HTTPCore
import HTTPEncoding
import HTTPEndpoints
import OpenAPIRuntime

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let arguments = CommandLine.arguments
let parseBytes = Report.quick ? 4_000_000 : 100_000_000
let lineCount = Report.quick ? 20_000 : 1_000_000
let clientBytes = Report.quick ? 2_000_000 : 100_000_000

// MARK: Timing and reporting

/// One timed run: wall seconds and CPU seconds of the process.
struct Sample {
    var wall: Double
    var cpu: Double
}

/// CPU seconds (user + system) of this process so far, all threads.
func processCPUSeconds() -> Double {
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

func timed<T>(_ body: () throws -> T) rethrows -> (T, Sample) {
    let cpu = processCPUSeconds()
    let start = DispatchTime.now().uptimeNanoseconds
    let result = try body()
    let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    return (result, Sample(wall: wall, cpu: processCPUSeconds() - cpu))
}

func timedAsync<T>(_ body: () async throws -> T) async rethrows -> (T, Sample) {
    let cpu = processCPUSeconds()
    let start = DispatchTime.now().uptimeNanoseconds
    let result = try await body()
    let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    return (result, Sample(wall: wall, cpu: processCPUSeconds() - cpu))
}

/// Rates of one contender over the rounds: work per wall second and per CPU second.
struct Rates {
    var wall: [Double] = []
    var cpu: [Double] = []

    mutating func add(_ work: Double, _ sample: Sample) {
        wall.append(work / sample.wall)
        cpu.append(work / sample.cpu)
    }
}

/// A figure with as many digits as it needs: 1234567, 12.3, 0.0123.
func figure(_ value: Double) -> String {
    guard value.isFinite else { return "-" }
    return abs(value) >= 100 ? String(format: "%.0f", value) : String(format: "%.3g", value)
}

/// The per-round ratios, their median and spread.
struct Ratios {
    var values: [Double]
    var median: Double { Measure.median(values) }
    var spread: String {
        "\(String(format: "%.3f", values.min() ?? .nan))-\(String(format: "%.3f", values.max() ?? .nan))"
    }
    var perRound: String { values.map { String(format: "%.3f", $0) }.joined(separator: " ") }
}

/// Fails the run: a contender read something other than what was written.
func mismatch(_ message: String) -> Never {
    print("mismatch: \(message)")
    exit(1)
}

/// Prints and records `heron` against `baseline`, round by round (rates or times, as `unit`
/// says), in wall and in CPU time; `bar` applies to the median of the per-round ratios.
func compare(
    _ name: String, heron: Rates, baseline: Rates, unit: String, labels: (String, String), bar: Report.Bar?,
    note: String? = nil
) {
    let clocks = [("wall", heron.wall, baseline.wall), ("cpu", heron.cpu, baseline.cpu)]
    for (clock, heronValues, baselineValues) in clocks {
        let ratios = Ratios(values: zip(heronValues, baselineValues).map { $0 / $1 })
        print(
            "\(name), \(clock): \(labels.0) \(figure(Measure.median(heronValues))) \(unit), \(labels.1) "
                + "\(figure(Measure.median(baselineValues))) \(unit); ratio median \(String(format: "%.3f", ratios.median)) "
                + "(spread \(ratios.spread); per round: \(ratios.perRound))")
        Report.record(
            "events", "\(name), \(clock)", heron: Measure.median(heronValues),
            baseline: Measure.median(baselineValues), unit: unit, ratio: ratios.median, bar: bar,
            note: ["spread \(ratios.spread) over \(ratios.values.count) rounds", note].compactMap { $0 }.joined(
                separator: "; "))
    }
}

/// Runs `contenders` once each, in order on even rounds and reversed on odd ones.
func alternate(round: Int, _ contenders: [() async throws -> Void]) async throws {
    for contender in round % 2 == 0 ? contenders : contenders.reversed() { try await contender() }
}

// MARK: (1) parsing server-sent events

/// Heron's parser over `chunks`: the events and the bytes of their data.
func heronParse(_ chunks: [Data]) throws -> (events: Int, dataBytes: Int) {
    var parser = ServerSentEventParser()
    var events = 0
    var dataBytes = 0
    for chunk in chunks {
        for event in try parser.parse(chunk) {
            events += 1
            dataBytes += event.data.utf8.count
        }
    }
    parser.finish()
    return (events, dataBytes)
}

/// Heron's parser over `chunks`, keeping every event.
func heronParseAll(_ chunks: [Data]) throws -> [HTTPEncoding.ServerSentEvent<String>] {
    var parser = ServerSentEventParser()
    var events: [HTTPEncoding.ServerSentEvent<String>] = []
    for chunk in chunks { events += try parser.parse(chunk) }
    parser.finish()
    return events
}

/// Heron's events as an async sequence over `chunks`, as a response body is read.
func heronAsyncParse(_ chunks: [Data]) async throws -> (events: Int, dataBytes: Int) {
    let source = AsyncStream<Data> { continuation in
        for chunk in chunks { continuation.yield(chunk) }
        continuation.finish()
    }
    var events = 0
    var dataBytes = 0
    for try await event in source.serverSentEvents() {
        events += 1
        dataBytes += event.data.utf8.count
    }
    return (events, dataBytes)
}

/// swift-openapi-runtime's server-sent events over the same chunks (as the byte slices its
/// API takes, made before timing).
func openAPIParse(_ chunks: [ArraySlice<UInt8>]) async throws -> [OpenAPIRuntime.ServerSentEvent] {
    let source = AsyncStream<ArraySlice<UInt8>> { continuation in
        for chunk in chunks { continuation.yield(chunk) }
        continuation.finish()
    }
    var events: [OpenAPIRuntime.ServerSentEvent] = []
    for try await event in source.asDecodedServerSentEvents() { events.append(event) }
    return events
}

/// The lines of `chunks` counted with memchr: the least any parser must do.
func memchrLines(_ chunks: [Data]) -> Int {
    var lines = 0
    for chunk in chunks {
        chunk.withUnsafeBytes { raw in
            guard var cursor = raw.baseAddress else { return }
            let end = cursor + raw.count
            while cursor < end, let found = memchr(cursor, 0x0A, end - cursor) {
                lines += 1
                cursor = UnsafeRawPointer(found) + 1
            }
        }
    }
    return lines
}

func parseBenchmark(rounds: Int) async throws {
    let stream = Corpus.eventStream(bytes: parseBytes)
    let chunks = Corpus.chunks(stream.bytes)
    print(
        String(
            format: "parse: %.1f MB, %d events in %d chunks of 16 KiB, in memory", Double(stream.bytes.count) / 1e6,
            stream.events, chunks.count))

    // Every event of each parser, against the events written.
    let heronEvents = try heronParseAll(chunks)
    guard heronEvents.count == stream.events else {
        mismatch("Heron's parser gave \(heronEvents.count) events, \(stream.events) were written")
    }
    for (offset, event) in heronEvents.enumerated() {
        let index = offset + 1
        guard event.id == String(index), event.type == "message", event.retry == nil,
            event.data == String(decoding: Corpus.payload(index), as: UTF8.self)
        else { mismatch("Heron's event \(index) differs from the one written: \(event.description.prefix(80))") }
    }
    let slices = chunks.map { ArraySlice($0) }
    let openAPIEvents = try await openAPIParse(slices)
    guard openAPIEvents.count == stream.events else {
        mismatch("swift-openapi-runtime gave \(openAPIEvents.count) events, \(stream.events) were written")
    }
    for (offset, event) in openAPIEvents.enumerated() {
        guard event.id == heronEvents[offset].id, event.data == heronEvents[offset].data else {
            mismatch("swift-openapi-runtime's event \(offset + 1) differs from Heron's")
        }
    }
    checkMattt(try await matttSequenceParse(chunks), against: heronEvents, "its async sequence")
    checkMattt(await matttChunkParse(chunks), against: heronEvents, "a chunk per call")
    let lines = memchrLines(chunks)
    guard lines == 3 * stream.events else { mismatch("memchr found \(lines) lines, not \(3 * stream.events)") }
    print(
        "checked: all \(stream.events) events from Heron's parser match the events written, "
            + "and those of swift-openapi-runtime and mattt/EventSource (both ways) match Heron's")

    // Warm-up, untimed (the checks above ran the others).
    _ = try heronParse(chunks)

    var heron = Rates()
    var heronBytes = Rates()
    var scan = Rates()
    var heronAsync = Rates()
    var openAPI = Rates()
    var matttSequence = Rates()
    var matttChunks = Rates()
    let gigabytes = Double(stream.bytes.count) / 1e9
    for round in 0..<rounds {
        try await alternate(
            round: round,
            [
                {
                    let (result, sample) = try timed { try heronParse(chunks) }
                    guard result == (stream.events, stream.dataBytes) else { mismatch("Heron read \(result)") }
                    heron.add(Double(stream.events), sample)
                    heronBytes.add(gigabytes, sample)
                },
                {
                    let (result, sample) = try await timedAsync { try await heronAsyncParse(chunks) }
                    guard result == (stream.events, stream.dataBytes) else { mismatch("Heron read \(result)") }
                    heronAsync.add(Double(stream.events), sample)
                },
                {
                    let (events, sample) = try await timedAsync { try await openAPIParse(slices) }
                    guard events.count == stream.events else { mismatch("openapi read \(events.count)") }
                    openAPI.add(Double(stream.events), sample)
                },
                {
                    let (events, sample) = try await timedAsync { try await matttSequenceParse(chunks) }
                    guard events.count == stream.events else { mismatch("mattt read \(events.count)") }
                    matttSequence.add(Double(stream.events), sample)
                },
                {
                    let (events, sample) = await timedAsync { await matttChunkParse(chunks) }
                    guard events.count == stream.events else { mismatch("mattt read \(events.count)") }
                    matttChunks.add(Double(stream.events), sample)
                },
                {
                    let (lines, sample) = timed { memchrLines(chunks) }
                    guard lines == 3 * stream.events else { mismatch("memchr found \(lines) lines") }
                    scan.add(gigabytes, sample)
                },
            ])
    }
    let note = String(format: "%.0f MB", Double(stream.bytes.count) / 1e6)
    print("parse: Heron \(figure(Measure.median(heron.wall))) events/s over \(note)")
    compare(
        "parse: Heron / mattt/EventSource 1.1.1 (async sequences over the same chunks: serverSentEvents() "
            + "against .events over their bytes)", heron: heronAsync, baseline: matttSequence, unit: "events/s",
        labels: ("Heron", "mattt"), bar: .atLeast(3), note: note)
    compare(
        "parse: Heron / mattt/EventSource 1.1.1 (each parser handed the chunks: ServerSentEventParser against "
            + "its Parser actor, one call per chunk)", heron: heron, baseline: matttChunks, unit: "events/s",
        labels: ("Heron", "mattt"), bar: .atLeast(3), note: note)
    compare(
        "parse: Heron / swift-openapi-runtime 1.13 (async sequences over the same chunks)", heron: heronAsync,
        baseline: openAPI, unit: "events/s", labels: ("Heron", "openapi"), bar: nil, note: note)
    compare(
        "parse: Heron / memchr for LF", heron: heronBytes, baseline: scan, unit: "GB/s",
        labels: ("Heron", "memchr"), bar: nil)
    for (clock, values) in [("wall", heronBytes.wall), ("cpu", heronBytes.cpu)] {
        let spread = Ratios(values: values).spread
        print("parse: Heron on one core, \(clock): \(figure(Measure.median(values))) GB/s (spread \(spread))")
        Report.record(
            "events", "parse: Heron GB/s on one core, \(clock)", heron: Measure.median(values), unit: "GB/s",
            bar: .atLeast(1), on: .heron, note: "spread \(spread) over \(values.count) rounds")
    }
}

// MARK: (2) JSON Lines

/// Heron's JSON Lines over an AsyncStream of `chunks`.
func heronLines(_ chunks: [Data]) async throws -> Corpus.LinesSummary {
    let source = AsyncStream<Data> { continuation in
        for chunk in chunks { continuation.yield(chunk) }
        continuation.finish()
    }
    var summary = Corpus.LinesSummary()
    for try await record in source.jsonLines().decoded(as: Corpus.Record.self) { summary.add(record) }
    return summary
}

/// The baseline: the whole buffer, each line found by memchr and decoded by one JSONDecoder.
func handLines(_ buffer: Data) throws -> Corpus.LinesSummary {
    let decoder = JSONDecoder()
    var summary = Corpus.LinesSummary()
    try buffer.withUnsafeBytes { raw in
        guard let base = raw.baseAddress else { return }
        var start = 0
        while start < raw.count {
            let end = memchr(base + start, 0x0A, raw.count - start).map { UnsafeRawPointer($0) - base } ?? raw.count
            if end > start {
                let line = buffer[(buffer.startIndex + start)..<(buffer.startIndex + end)]
                summary.add(try decoder.decode(Corpus.Record.self, from: line))
            }
            start = end + 1
        }
    }
    return summary
}

func jsonLinesBenchmark(rounds: Int) async throws {
    let (bytes, expected) = Corpus.jsonLines(count: lineCount)
    let buffer = Data(bytes)
    let chunks = Corpus.chunks(bytes)
    let megabytes = Double(bytes.count) / 1e6
    print(String(format: "jsonl: %d lines, %.1f MB, %d chunks of 16 KiB", lineCount, megabytes, chunks.count))
    let heronSummary = try await heronLines(chunks)
    let handSummary = try handLines(buffer)
    guard heronSummary == expected, handSummary == expected else {
        mismatch("expected \(expected); Heron read \(heronSummary), the loop \(handSummary)")
    }
    print("checked: both read \(expected)")
    var heron = Rates()
    var hand = Rates()
    for round in 0..<rounds {
        try await alternate(
            round: round,
            [
                {
                    let (summary, sample) = try await timedAsync { try await heronLines(chunks) }
                    guard summary == expected else { mismatch("Heron read \(summary)") }
                    // Seconds per run, so the ratio reads as Heron's time over the loop's.
                    heron.wall.append(sample.wall)
                    heron.cpu.append(sample.cpu)
                },
                {
                    let (summary, sample) = try timed { try handLines(buffer) }
                    guard summary == expected else { mismatch("the loop read \(summary)") }
                    hand.wall.append(sample.wall)
                    hand.cpu.append(sample.cpu)
                },
            ])
    }
    compare(
        "jsonl: Heron / JSONDecoder loop, time", heron: heron, baseline: hand, unit: "s",
        labels: (".jsonLines().decoded(as:)", "loop"), bar: .atMost(1.1), note: "\(lineCount) lines")
}

// MARK: (3) through the client

/// Heron's client reading the events at `url`: how many, the bytes of their data, the last ID.
func heronClientEvents(_ client: Client, _ url: String) async throws -> (events: Int, dataBytes: Int, lastID: String) {
    var events = 0
    var dataBytes = 0
    var lastID = ""
    for try await event in try await client.events(.get(url)) {
        events += 1
        dataBytes += event.data.utf8.count
        lastID = event.id
    }
    return (events, dataBytes, lastID)
}

/// Heron's client reading the body at `url` as chunks, unparsed: the transport's share.
func heronClientBytes(_ client: Client, _ url: String) async throws -> Int {
    var bytes = 0
    for try await chunk in try await client.stream(.get(url)).body { bytes += chunk.count }
    return bytes
}

/// What node-eventsource reported.
struct NodeRun: Decodable {
    var events: Int
    var dataLength: Int
    var lastEventId: String
    var seconds: Double
    var cpuSeconds: Double
    var error: String?
}

/// Runs eventsource-client.js with node (`mode`: `eventsource` or `plain`); nil when node or
/// its `eventsource` module is missing.
func nodeEvents(_ url: String, expected: Int, mode: String = "eventsource") throws -> NodeRun? {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "eventsource-client.js")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["node", script.path, url, String(expected), mode]
    var environment = ProcessInfo.processInfo.environment
    environment["NODE_PATH"] = (environment["NODE_PATH"].map { $0 + ":" } ?? "") + "/usr/share/nodejs"
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard let run = try? JSONDecoder().decode(NodeRun.self, from: data) else { return nil }
    if let error = run.error { mismatch("node (\(mode)): \(error)") }
    return run
}

func clientBenchmark(rounds: Int) async throws {
    let stream = Corpus.eventStream(bytes: clientBytes)
    let server = try EventServer(body: stream.bytes)
    defer { server.stop() }
    let client = Client()
    print(
        String(
            format: "client: %.1f MB, %d events from a loopback Python server (%@)", Double(stream.bytes.count) / 1e6,
            stream.events, server.url))
    let expected = (stream.events, stream.dataBytes, String(stream.events))
    let first = try await heronClientEvents(client, server.url)
    guard first == expected else { mismatch("Heron's client read \(first), not \(expected)") }
    let bytes = try await heronClientBytes(client, server.url)
    guard bytes == stream.bytes.count else { mismatch("Heron's client read \(bytes) bytes of \(stream.bytes.count)") }
    guard let node = try nodeEvents(server.url, expected: stream.events) else {
        print("client: node or its eventsource module is missing (apt-get install node-eventsource): no baseline")
        return
    }
    let plainNode = try nodeEvents(server.url, expected: stream.events, mode: "plain")
    for (mode, run) in [("eventsource", node), ("plain", plainNode)] {
        guard let run, (run.events, run.dataLength, run.lastEventId) == expected else {
            mismatch("node (\(mode)) read \(String(describing: run))")
        }
    }
    print("checked: Heron and node (eventsource, plain) each read all \(stream.events) events, their data and last ID")

    var heron = Rates()
    var heronStream = Rates()
    var baseline = Rates()
    var plain = Rates()
    for round in 0..<rounds {
        try await alternate(
            round: round,
            [
                {
                    let (result, sample) = try await timedAsync { try await heronClientEvents(client, server.url) }
                    guard result == expected else { mismatch("Heron's client read \(result)") }
                    heron.add(Double(stream.events), sample)
                },
                {
                    guard let run = try nodeEvents(server.url, expected: stream.events) else { mismatch("node failed") }
                    baseline.add(Double(run.events), Sample(wall: run.seconds, cpu: run.cpuSeconds))
                },
                {
                    guard let run = try nodeEvents(server.url, expected: stream.events, mode: "plain") else {
                        mismatch("node failed")
                    }
                    plain.add(Double(run.events), Sample(wall: run.seconds, cpu: run.cpuSeconds))
                },
                {
                    let (bytes, sample) = try await timedAsync { try await heronClientBytes(client, server.url) }
                    guard bytes == stream.bytes.count else { mismatch("Heron's client read \(bytes) bytes") }
                    heronStream.add(Double(stream.events), sample)
                },
            ])
    }
    compare(
        "client: Heron events / node-eventsource", heron: heron, baseline: baseline, unit: "events/s",
        labels: ("Heron", "node"), bar: .atLeast(2), note: String(format: "%.0f MB", Double(stream.bytes.count) / 1e6))
    compare(
        "client: Heron events / node plain http + indexOf", heron: heron, baseline: plain, unit: "events/s",
        labels: ("Heron", "node plain"), bar: nil)
    compare(
        "client: Heron events / Heron chunks unparsed", heron: heron, baseline: heronStream, unit: "events/s",
        labels: ("events", "chunks"), bar: nil)
}

// MARK: Profiling

/// Heron's side of one measurement, `repeats` times and nothing else, for `perf record`.
func profile(_ which: String, repeats: Int) async throws {
    switch which {
    case "parse":
        let chunks = Corpus.chunks(Corpus.eventStream(bytes: parseBytes).bytes)
        for _ in 0..<repeats {
            let (result, sample) = try timed { try heronParse(chunks) }
            print("\(result.events) events, \(figure(Double(parseBytes) / sample.wall / 1e9)) GB/s")
        }
    case "jsonl":
        let chunks = Corpus.chunks(Corpus.jsonLines(count: lineCount).bytes)
        for _ in 0..<repeats {
            let (summary, sample) = try await timedAsync { try await heronLines(chunks) }
            print("\(summary.count) records in \(Measure.ms(sample.wall))")
        }
    case "jsonl-loop":
        let buffer = Data(Corpus.jsonLines(count: lineCount).bytes)
        for _ in 0..<repeats {
            let (summary, sample) = try timed { try handLines(buffer) }
            print("\(summary.count) records in \(Measure.ms(sample.wall))")
        }
    case "client":
        let stream = Corpus.eventStream(bytes: clientBytes)
        let server = try EventServer(body: stream.bytes)
        defer { server.stop() }
        let client = Client()
        for _ in 0..<repeats {
            let (result, sample) = try await timedAsync { try await heronClientEvents(client, server.url) }
            print("\(result.events) events in \(Measure.ms(sample.wall))")
        }
    default:
        print("usage: EventStreamBenchmark profile parse|jsonl|jsonl-loop|client [repeats]")
        exit(2)
    }
}

// MARK: Main

if arguments.count > 2, arguments[1] == "profile" {
    try await profile(arguments[2], repeats: arguments.count > 3 ? Int(arguments[3]) ?? 10 : 10)
    exit(0)
}
let rounds = arguments.count > 1 ? Int(arguments[1]) ?? 5 : 5
let which = arguments.count > 2 ? arguments[2] : "all"
guard ["all", "parse", "jsonl", "client"].contains(which) else {
    print("usage: EventStreamBenchmark [rounds] [parse|jsonl|client|all]")
    exit(2)
}
print("rounds: \(rounds)\(Report.quick ? " (quick: small sizes)" : "")")
if which == "all" || which == "parse" { try await parseBenchmark(rounds: rounds) }
if which == "all" || which == "jsonl" { try await jsonLinesBenchmark(rounds: rounds) }
if which == "all" || which == "client" { try await clientBenchmark(rounds: rounds) }
