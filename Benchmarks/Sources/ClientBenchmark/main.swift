// ClientBenchmark: Heron's Client and URLSessionTransport against raw URLSession, on the
// same loopback server, in the same run.
//
//   apt-get install -y nginx      # once: a loopback server fast enough to measure a client
//   scripts/with-servers swift run -c release --package-path Benchmarks ClientBenchmark \
//       [rounds] [requests|limits|uploads|resume|all|overhead] [MiB]
//
// (1) requests/s of small GETs: Client (3 interceptors, 1 observer, the default retry
//     stack) vs `URLSession.data(for:)`, sequential and 32 concurrent; target >= 95% of raw.
//     Each round interleaves batches of every variant (shuffled), so load spells hit all alike.
//     Each variant's process CPU time and context switches per request are printed too:
//     steadier than the rates, they show what each layer costs the machine.
//     Also measured, to show where the client's cost goes: the transport alone, the transport
//     given the idle timeout and deadline the client passes, the client without its
//     observer, and a bare client (no interceptors, no observer); and a request through the
//     transport alone followed by one call of the bare client over a transport that answers
//     at once, against the same followed by that transport alone: the client's own cost
//     with caches cooled by a real request.
// (1b) `limits`: small GETs 32 at a time through the client over a HostLimiter (a limit
//     that never binds) and over a CoalescingTransport (each request its own URL), against
//     the same client over URLSessionTransport alone; target >= 97% of it.
// (2) a MiB-sized (default 1024) body uploaded from a stream and from a file through the
//     Client vs raw URLSession's `httpBodyStream` and `uploadTask(fromFile:)`; target >= 90%
//     of raw for each, peak RSS (VmHWM, reset through /proc/self/clear_refs before each
//     upload) under 64 MiB above the baseline. Streams: an `InputStream` body against raw
//     `httpBodyStream` of the same `InputStream(url:)`; an `AsyncSequence` body (the file
//     read in 256 KiB `Data` chunks by `FileHandle`, or by one `read(2)` each) against that
//     and against raw `httpBodyStream` fed from the same sequence (`RawSequenceStream`).
//     With HERON_FAULT_URL set (scripts/with-servers), each Heron upload also goes once to
//     the fault server's /hash, whose SHA-256 must match.
// (2b) `resume`: a MiB-sized file from nginx downloaded whole, against the same download
//     resumed from a partial file holding its first half (`download(resuming:)`); target:
//     the resume costs at most 0.55 of the whole.
// (3) `overhead` (not in `all`): microseconds per call through the client (full, without
//     its observer, bare) over a transport that answers at once: sequentially, 32 at a
//     time, and one call right after each real request (cold caches, URLSession busy on
//     the other core: what the sequential benchmark sees). The client's own cost, for
//     profiling. Absolute figures, so compare runs of the same build only.
//     HERON_OVERHEAD_CALLS sets the number of calls (200,000 by default); HERON_OVERHEAD_INSTANT=1
//     skips the real requests (so that callgrind can count the instructions of a call);
//     HERON_OVERHEAD_AFTER sets the number of calls right after a real request (2,000);
//     HERON_OVERHEAD_COLD=MiB adds calls made after writing over MiB of memory (caches evicted),
//     beside the instant transport alone called the same way.
// HERON_BENCH_JSON / HERON_BENCH_QUICK: see BenchmarkSupport's Report (quick: 2 batches a
// round instead of 20, a shorter warm-up; the upload size is the MiB argument).
// HERON_BENCH_ONLY=text runs only the variants whose name contains text (for profiling).
// Figures are medians over the rounds of per-round ratios. nginx (started here on a free
// port) is the server; without it httpbin and the fault server stand in, far slower.
import BenchmarkSupport
import Foundation
import HTTPClient
import HTTPCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let arguments = BenchmarkArguments()
let rounds = arguments.rounds
let which = arguments.which
let uploadMiB = arguments.uploadMiB
let environment = ProcessInfo.processInfo.environment

guard let targets = BenchmarkTargets(environment: environment) else { exit(1) }
let nginx = targets.nginx
defer { nginx?.stop() }
let smallURL = targets.smallURL
let uploadURL = targets.uploadURL
print("rounds: \(rounds)")

/// Numbers requests, so that each has a URL of its own.
final class RequestNumbers: @unchecked Sendable {
    // Invariant: `last` is only touched under `lock`.
    private let lock = NSLock()
    private var last = 0

    func next() -> Int {
        lock.withLock {
            last += 1
            return last
        }
    }
}

/// Answers every request at once with the same small response. It claims to enforce every
/// limit, as `URLSessionTransport` does, so the client spawns no task per attempt.
struct InstantTransport: ClientTransport {
    let response: TransportResponse
    var enforcedLimits: TransportLimits { .all }

    func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse { response }

    /// A transport that answers `200 OK` with a 2-byte text body.
    static func ok() throws -> InstantTransport {
        var head = HTTPResponse(status: .ok)
        head.headerFields = try HTTPFields(["Content-Type": "text/plain", "Content-Length": "2"])
        return InstantTransport(response: TransportResponse(head: head, body: HTTPBody("ok")))
    }
}

// MARK: (1) requests per second

if which == "all" || which == "requests" {
    let raw = RawURLSession()
    let client = try makeClient()
    let request = HTTPRequest(url: smallURL)
    let batches = Report.quick ? 2 : 20
    let sequentialBatch = nginx == nil ? 10 : 50
    let concurrentBatch = nginx == nil ? 64 : 320

    let transport = URLSessionTransport()
    var transportRequest = request
    transportRequest.headerFields = try HTTPFields(["X-Bench": "1", "Authorization": "Bearer bench-token"])
    let delegateSession = RawDelegateSession()
    // Where the client's cost goes: without the observer, and with nothing but the client.
    let quietClient = try makeClient(observer: false)
    let bareClient = try makeClient(interceptors: false, observer: false)
    let instantTransport = try InstantTransport.ok()
    let instantBare = try makeClient(transport: instantTransport, interceptors: false, observer: false)
    let allVariants: [(name: String, once: @Sendable () async throws -> Void)] = [
        ("raw data(for:)", { [raw] in try await raw.get(smallURL) }),
        ("Heron Client", { _ = try await client.send(request) }),
        (
            "Heron transport alone",
            { [transportRequest] in
                // Read to the end, as the client's buffered send does.
                _ = try await transport.send(transportRequest, options: TransportOptions(awaitsWholeBody: true)).body?
                    .collect(upTo: 1 << 20)
            }
        ),
        ("raw session delegate", { try await delegateSession.get(smallURL) }),
        (
            "Heron transport with deadline",
            { [transportRequest] in
                // As the client's buffered send passes them: the head's deadline, the idle
                // timeout and the buffering limit of the client's defaults.
                let options = TransportOptions(
                    idleTimeout: .seconds(600), responseBufferLimit: RequestOptions.defaultResponseBodyLimit,
                    deadline: .now + .seconds(600), awaitsWholeBody: true)
                _ = try await transport.send(transportRequest, options: options).body?.collect(upTo: 1 << 20)
            }
        ),
        ("Heron Client without observer", { _ = try await quietClient.send(request) }),
        ("Heron Client bare", { [transportRequest] in _ = try await bareClient.send(transportRequest) }),
        // The client's own cost where it runs, right after a real request (caches cooled by
        // URLSession's work): a real request through the transport alone, then a call of the
        // bare client over a transport that answers at once, against the same with that
        // transport called directly.
        (
            "Heron transport alone + instant transport call",
            { [transportRequest] in
                _ = try await transport.send(transportRequest, options: TransportOptions(awaitsWholeBody: true)).body?
                    .collect(upTo: 1 << 20)
                _ = try await instantTransport.send(transportRequest, options: TransportOptions())
            }
        ),
        (
            "Heron transport alone + instant bare call",
            { [transportRequest] in
                _ = try await transport.send(transportRequest, options: TransportOptions(awaitsWholeBody: true)).body?
                    .collect(upTo: 1 << 20)
                _ = try await instantBare.send(transportRequest)
            }
        ),
    ]
    // The baseline always runs: every ratio is against it.
    let only = environment["HERON_BENCH_ONLY"]
    let variants = allVariants.enumerated().filter { $0.offset == 0 || only.map($0.element.name.contains) ?? true }
        .map(\.element)
    // Warm up: connections, caches, lazy initialisation.
    for variant in variants { _ = try await seconds(Report.quick ? 64 : 200, concurrency: 32, variant.once) }

    for (label, batch, concurrency) in [("sequential", sequentialBatch, 1), ("32 concurrent", concurrentBatch, 32)] {
        let figures = try await interleavedRounds(
            variants.map(\.once), rounds: rounds, batches: batches, batch: batch, concurrency: concurrency)
        let rates = figures.rates
        figures.printCosts(label, names: variants.map(\.name))
        for index in variants.indices.dropFirst() {
            print(
                ratioLine(
                    "GET \(label), \(variants[index].name) / raw", heron: rates[index], raw: rates[0], unit: "req/s",
                    labels: (variants[index].name, "raw")))
            Report.record(
                "client", "GET \(label): \(variants[index].name) / raw", heron: Measure.median(rates[index]),
                baseline: Measure.median(rates[0]), unit: "req/s",
                ratio: Measure.median(zip(rates[index], rates[0]).map { $0 / $1 }),
                bar: variants[index].name == "Heron Client" ? .atLeast(0.95) : nil)
        }
    }
}

// MARK: (1b) per-host limits and coalescing

if which == "all" || which == "limits" {
    // The same client over URLSessionTransport, over a HostLimiter whose limit (64 per host)
    // never binds 32 calls, and over a CoalescingTransport, every request for its own URL
    // (nothing to coalesce): what the wrappers' bookkeeping costs, 32 calls at a time.
    let plain = try makeClient()
    let limited = try makeClient(transport: HostLimiter(wrapping: URLSessionTransport(), maxConcurrentPerHost: 64))
    let coalescing = try makeClient(transport: CoalescingTransport(wrapping: URLSessionTransport()))
    let counter = RequestNumbers()
    @Sendable func nextRequest() -> HTTPRequest {
        HTTPRequest(url: smallURL.appending(queryItems: [URLQueryItem(name: "n", value: String(counter.next()))]))
    }
    let variants: [(name: String, client: Client)] = [
        ("Heron Client", plain), ("Heron Client over HostLimiter", limited),
        ("Heron Client over CoalescingTransport", coalescing),
    ]
    let batches = Report.quick ? 2 : 20
    let batch = nginx == nil ? 64 : 320
    let calls = variants.map { variant in { @Sendable in _ = try await variant.client.send(nextRequest()) } }
    for call in calls { _ = try await seconds(batch, concurrency: 32, call) }
    let rates = try await interleavedRounds(calls, rounds: rounds, batches: batches, batch: batch, concurrency: 32)
        .rates
    for index in variants.indices.dropFirst() {
        print(
            ratioLine(
                "GET 32 concurrent, \(variants[index].name) / Heron Client", heron: rates[index], raw: rates[0],
                unit: "req/s", labels: (variants[index].name, "Heron Client")))
        Report.record(
            "limits", "GET 32 concurrent: \(variants[index].name) / Heron Client", heron: Measure.median(rates[index]),
            baseline: Measure.median(rates[0]), unit: "req/s",
            ratio: Measure.median(zip(rates[index], rates[0]).map { $0 / $1 }), bar: .atLeast(0.97))
    }
}

// MARK: (2) uploads

if which == "all" || which == "uploads" {
    let size = Int64(uploadMiB) << 20
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("heron-upload-\(UUID().uuidString)")
    try UploadFile.write(file, size: size)
    defer { try? FileManager.default.removeItem(at: file) }
    let raw = RawURLSession()
    let client = try makeClient()
    let chunkedClient = try makeClient(transport: URLSessionTransport(configuration: .init(fileUploadMode: .stream)))

    func post(_ body: HTTPBody, to url: URL, with client: Client) async throws -> Data {
        try await client.send(HTTPRequest(method: .post, url: url, body: body)).body
    }

    func streamBody() -> HTTPBody {
        HTTPBody(length: .known(size), iterationBehavior: .single) { UploadFile.Chunks(url: file) }
    }

    /// The same, from a sequence that reads each chunk with one `read(2)`.
    func readStreamBody() -> HTTPBody {
        HTTPBody(length: .known(size), iterationBehavior: .single) {
            UploadFile.Chunks(url: file, reading: .systemRead)
        }
    }

    /// The same file as the raw baseline's `httpBodyStream` reads it: an `InputStream`.
    func inputStreamBody() -> HTTPBody {
        HTTPBody(length: .known(size), iterationBehavior: .multiple) {
            guard let stream = InputStream(url: file) else { throw CocoaError(.fileReadNoSuchFile) }
            return stream
        }
    }

    /// Seconds, CPU seconds of this process and peak RSS growth of one upload.
    func measure(_ work: () async throws -> Void) async throws -> (seconds: Double, cpu: Double, rss: Int64) {
        let baseline = UploadFile.resetPeakRSS()
        let cpuStart = UploadFile.cpuSeconds()
        let start = DispatchTime.now().uptimeNanoseconds
        try await work()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return (seconds, UploadFile.cpuSeconds() - cpuStart, Measure.peakRSS() - baseline)
    }

    var samples: [String: [Double]] = [:]
    var cpuPerGiB: [String: [Double]] = [:]
    var peaks: [String: Int64] = [:]
    func record(_ name: String, _ work: () async throws -> Void) async throws {
        if let only = environment["HERON_BENCH_ONLY"], !name.contains(only) { return }
        let (seconds, cpu, rss) = try await measure(work)
        samples[name, default: []].append(Double(size) / seconds / 1e6)
        cpuPerGiB[name, default: []].append(cpu / (Double(size) / Double(1 << 30)))
        peaks[name] = max(peaks[name] ?? 0, rss)
    }

    for _ in 0..<rounds {
        // Not an upload: what the stream body's source (the file read in 256 KiB `Data`
        // chunks, as an application's sequence would) costs by itself.
        try await record("stream source alone") {
            for try await chunk in UploadFile.Chunks(url: file) { _ = chunk.count }
        }
        try await record("stream source alone (read(2))") {
            for try await chunk in UploadFile.Chunks(url: file, reading: .systemRead) { _ = chunk.count }
        }
        try await record("raw httpBodyStream") { try await raw.uploadStream(file, to: uploadURL) }
        try await record("Heron stream body") { _ = try await post(streamBody(), to: uploadURL, with: client) }
        try await record("raw httpBodyStream of the sequence") {
            try await raw.uploadSequence(UploadFile.Chunks(url: file), to: uploadURL)
        }
        try await record("Heron stream body (read(2) source)") {
            _ = try await post(readStreamBody(), to: uploadURL, with: client)
        }
        try await record("Heron InputStream body") {
            _ = try await post(inputStreamBody(), to: uploadURL, with: client)
        }
        try await record("Heron file body (chunked)") {
            _ = try await post(try HTTPBody(fileAt: file), to: uploadURL, with: chunkedClient)
        }
        try await record("raw uploadTask(fromFile:)") { try await raw.uploadFile(file, to: uploadURL) }
        try await record("Heron file (Content-Length)") {
            _ = try await post(try HTTPBody(fileAt: file), to: uploadURL, with: client)
        }
    }
    print("upload of \(uploadMiB) MiB, throughput in MB/s, peak RSS growth over the rounds:")
    let pairs = [
        ("Heron stream body", "raw httpBodyStream"), ("Heron stream body", "raw httpBodyStream of the sequence"),
        ("Heron stream body (read(2) source)", "raw httpBodyStream"),
        ("Heron InputStream body", "raw httpBodyStream"),
        ("Heron file body (chunked)", "raw uploadTask(fromFile:)"),
        ("Heron file (Content-Length)", "raw uploadTask(fromFile:)"),
    ]
    for (heron, baseline) in pairs {
        print(
            ratioLine("\(heron) / \(baseline)", heron: samples[heron] ?? [], raw: samples[baseline] ?? [], unit: "MB/s")
        )
        let heronSamples = samples[heron] ?? []
        let rawSamples = samples[baseline] ?? []
        guard !heronSamples.isEmpty, !rawSamples.isEmpty else { continue }
        Report.record(
            "uploads", "\(uploadMiB) MiB \(heron) / \(baseline)", heron: Measure.median(heronSamples),
            baseline: Measure.median(rawSamples), unit: "MB/s",
            ratio: Measure.median(zip(heronSamples, rawSamples).map { $0 / $1 }),
            // A file body is sent faster than URLSession's own file upload on Linux: 2x is
            // the bar there; an InputStream body keeps 0.9 of raw httpBodyStream of the same
            // stream, and a sequence body 0.9 of raw httpBodyStream fed the same sequence (an
            // AsyncSequence body against raw reading the file's InputStream is shown only).
            bar: baseline == "raw uploadTask(fromFile:)"
                ? .atLeast(2.0)
                : heron == "Heron InputStream body" || baseline == "raw httpBodyStream of the sequence"
                    ? .atLeast(0.9) : nil)
    }
    // The machine's speed drifts; CPU time per GiB (this process: user + system) drifts less.
    for (name, cpu) in cpuPerGiB.sorted(by: { $0.key < $1.key }) {
        let rounds = cpu.map { String(format: "%.2f", $0) }.joined(separator: " ")
        print(
            String(
                format: "CPU s per GiB %-36@ %5.2f (per round: %@)", name as NSString, Measure.median(cpu),
                rounds as NSString))
    }
    for (name, peak) in peaks.sorted(by: { $0.key < $1.key }) {
        print(String(format: "peak RSS growth %-36@ %6.1f MiB", name as NSString, Double(peak) / 1_048_576))
    }
    // Peak RSS: each Heron upload's growth (what the upload itself holds) beside its raw
    // counterpart's; the bar is 64 MiB.
    var reported: Set<String> = []
    for (heron, baseline) in pairs where !reported.contains(heron) {
        guard let heronPeak = peaks[heron], let rawPeak = peaks[baseline] else { continue }
        reported.insert(heron)
        let heronMiB = Double(heronPeak) / 1_048_576
        let rawMiB = Double(rawPeak) / 1_048_576
        Report.record(
            "uploads", "\(uploadMiB) MiB \(heron) peak RSS growth (vs \(baseline))", heron: heronMiB,
            baseline: rawMiB, unit: "MiB", bar: .atMost(64), on: .heron, note: "bar: 64 MiB of growth")
    }

    if let fault = environment["HERON_FAULT_URL"].flatMap({ URL(string: $0 + "/hash") }) {
        let expected = try UploadFile.sha256(of: file)
        let bodies = [
            ("stream", streamBody(), client), ("stream, read(2) source", readStreamBody(), client),
            ("InputStream", inputStreamBody(), client),
            ("file, chunked", try HTTPBody(fileAt: file), chunkedClient),
            ("file, Content-Length", try HTTPBody(fileAt: file), client),
        ]
        for (name, body, sender) in bodies {
            let reply = try await post(body, to: fault, with: sender)
            let json = try JSONSerialization.jsonObject(with: reply) as? [String: Any]
            let intact = json?["sha256"] as? String == expected && json?["bytes"] as? Int64 == size
            print("intact (\(name) body, fault server /hash): \(intact ? "yes" : "NO: \(json ?? [:])")")
            Report.record(
                "uploads", "\(uploadMiB) MiB \(name) body intact (SHA-256 at fault server)", heron: intact ? 1 : 0,
                unit: "yes=1", bar: .atLeast(1), on: .heron)
        }
    }
}

// MARK: (2b) resuming a download

if which == "all" || which == "resume" {
    if let nginx {
        try await resumeBenchmark(nginx)
    } else {
        print("resume: skipped, it needs nginx (a static file with ETag and ranges)")
    }
}

/// A MiB-sized (default 1024) file downloaded whole, against the same download resumed from
/// a partial file holding its first half (`download(resuming:)`, `Range` and `If-Range` against
/// nginx's ETag); target: the resume at most 0.55 of the whole. Rounds alternate which goes
/// first; the resumed file must equal the whole one.
func resumeBenchmark(_ nginx: LoopbackServer) async throws {
    let size = uploadMiB << 20
    let half = Int64(size / 2)
    let source = nginx.filesFolder.appendingPathComponent("big.bin")
    try writePattern(to: source, bytes: size)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("heron-resume-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let client = Client(baseURL: nginx.baseURL)
    let whole = folder.appendingPathComponent("whole.bin")
    let resumed = folder.appendingPathComponent("resumed.bin")
    let clock = ContinuousClock()
    var wholeSeconds: [Double] = []
    var resumeSeconds: [Double] = []
    for round in 0..<rounds {
        // The partial file: the first half, as a cut download leaves it (not timed).
        let partial = folder.appendingPathComponent(".resumed.bin.partial")
        try copyPrefix(of: source, to: partial, bytes: half)
        func downloadWhole() async throws -> String {
            let start = clock.now
            let response = try await client.download(.get("files/big.bin"), to: whole)
            wholeSeconds.append(seconds(clock.now - start))
            guard response.status == .ok else {
                throw BenchmarkFailure("nginx answered \(response.status) for the file")
            }
            return try requireValue(response.head.headerFields[.eTag], "nginx sent no ETag")
        }
        func resume(validator: String) async throws {
            let resumable = ResumableDownload(
                url: nginx.baseURL.appendingPathComponent("files/big.bin"), destination: resumed, partialFile: partial,
                byteCount: half, expectedByteCount: Int64(size), validator: validator)
            let start = clock.now
            let response = try await client.download(resuming: resumable)
            resumeSeconds.append(seconds(clock.now - start))
            guard response.status == .partialContent else {
                throw BenchmarkFailure("resume answered \(response.status)")
            }
        }
        if round % 2 == 0 {
            let validator = try await downloadWhole()
            try await resume(validator: validator)
        } else {
            // The validator of the file served: nginx's ETag does not change between rounds.
            let head = try await client.send(.head("files/big.bin"))
            try await resume(validator: try requireValue(head.head.headerFields[.eTag], "nginx sent no ETag"))
            _ = try await downloadWhole()
        }
        if round == 0, try !sameContents(whole, resumed) {
            throw BenchmarkFailure("the resumed file differs from the whole one")
        }
        try? FileManager.default.removeItem(at: whole)
        try? FileManager.default.removeItem(at: resumed)
    }
    let ratios = zip(resumeSeconds, wholeSeconds).map { $0 / $1 }
    print(
        String(
            format: "resume: %d MiB whole %.3f s, resumed from 50%% %.3f s, ratio median %.3f (each round: %@)",
            uploadMiB, Measure.median(wholeSeconds), Measure.median(resumeSeconds), Measure.median(ratios),
            ratios.map { String(format: "%.3f", $0) }.joined(separator: " ")))
    Report.record(
        "resume", "\(uploadMiB) MiB download resumed from 50% / the whole download",
        heron: Measure.median(resumeSeconds),
        baseline: Measure.median(wholeSeconds), unit: "s", ratio: Measure.median(ratios), bar: .atMost(0.55))
}

/// `duration` in seconds.
func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// `value`, or a ``BenchmarkFailure`` saying `message`.
func requireValue<T>(_ value: T?, _ message: String) throws -> T {
    guard let value else { throw BenchmarkFailure(message) }
    return value
}

/// Writes `bytes` bytes of a pattern (byte i is i % 251) to `url`, 8 MiB at a time.
func writePattern(to url: URL, bytes: Int) throws {
    FileManager.default.createFile(atPath: url.path, contents: nil)
    let handle = try FileHandle(forWritingTo: url)
    defer { try? handle.close() }
    let block = Data((0..<(8 << 20)).map { UInt8($0 % 251) })
    var left = bytes
    while left > 0 {
        let piece = min(left, block.count)
        try handle.write(contentsOf: block.prefix(piece))
        left -= piece
    }
}

/// Copies the first `bytes` bytes of `source` to a new file `destination`.
func copyPrefix(of source: URL, to destination: URL, bytes: Int64) throws {
    try? FileManager.default.removeItem(at: destination)
    FileManager.default.createFile(atPath: destination.path, contents: nil)
    let input = try FileHandle(forReadingFrom: source)
    let output = try FileHandle(forWritingTo: destination)
    defer {
        try? input.close()
        try? output.close()
    }
    var left = bytes
    while left > 0, let chunk = try input.read(upToCount: Int(min(left, 8 << 20))), !chunk.isEmpty {
        try output.write(contentsOf: chunk)
        left -= Int64(chunk.count)
    }
}

/// Whether two files hold the same bytes.
func sameContents(_ first: URL, _ second: URL) throws -> Bool {
    let left = try FileHandle(forReadingFrom: first)
    let right = try FileHandle(forReadingFrom: second)
    defer {
        try? left.close()
        try? right.close()
    }
    while true {
        let a = try left.read(upToCount: 8 << 20) ?? Data()
        let b = try right.read(upToCount: 8 << 20) ?? Data()
        if a != b { return false }
        if a.isEmpty { return true }
    }
}

// MARK: (3) the client's own cost

if which == "overhead" {
    let instant = try InstantTransport.ok()
    let client = try makeClient(transport: instant)
    let quiet = try makeClient(transport: instant, observer: false)
    let bare = try makeClient(transport: instant, interceptors: false, observer: false)
    let request = HTTPRequest(url: smallURL)
    let transport = URLSessionTransport()
    let transportRequest = request
    let calls = environment["HERON_OVERHEAD_CALLS"].flatMap { Int($0) } ?? 200_000
    let only = environment["HERON_BENCH_ONLY"]
    // HERON_OVERHEAD_INSTANT=1: only the instant transport, no real request (for callgrind,
    // which counts instructions, not seconds, whatever else the machine is doing).
    let afterRequests = environment["HERON_OVERHEAD_AFTER"].flatMap { Int($0) } ?? 2000
    let afterRequestCalls = environment["HERON_OVERHEAD_INSTANT"] == "1" ? 0 : afterRequests
    for round in 0..<rounds {
        let subjects = [("full", client), ("without observer", quiet), ("bare", bare)]
        for (name, subject) in subjects where only.map(name.contains) ?? true {
            // In a task of its own: top-level code runs on the main actor, and each call
            // would hop off it and back.
            let perCall = try await Task.detached {
                let start = DispatchTime.now().uptimeNanoseconds
                for _ in 0..<calls { _ = try await subject.send(request) }
                return Double(DispatchTime.now().uptimeNanoseconds - start) / Double(calls) / 1000
            }.value
            // The same calls 32 at a time: what the client costs when its calls overlap.
            let start = DispatchTime.now().uptimeNanoseconds
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<32 {
                    group.addTask { for _ in 0..<(calls / 32) { _ = try await subject.send(request) } }
                }
                try await group.waitForAll()
            }
            let perConcurrentCall = Double(DispatchTime.now().uptimeNanoseconds - start) / Double(calls) / 1000
            // One call at a time right after a real request (nginx, through the transport):
            // what a call costs with caches cooled and URLSession still finishing that
            // request on the other core, as in the sequential request benchmark.
            let afterRequest = try await Task.detached {
                var total = 0.0
                for _ in 0..<afterRequestCalls {
                    _ = try await transport.send(transportRequest, options: TransportOptions()).body?.collect(
                        upTo: 1 << 20)
                    let start = DispatchTime.now().uptimeNanoseconds
                    _ = try await subject.send(request)
                    total += Double(DispatchTime.now().uptimeNanoseconds - start) / 1000
                }
                return total / Double(max(afterRequestCalls, 1))
            }.value
            // HERON_OVERHEAD_COLD=MiB: one call at a time after writing over that many MiB (caches
            // evicted, as a real request's kernel, event loop and server work evicts them), against
            // the instant transport called alone the same way: what the client's code and data
            // cost when they are not in the caches.
            if let mebibytes = environment["HERON_OVERHEAD_COLD"].flatMap({ Int($0) }) {
                let coldCalls = 2000
                let (clientCold, transportCold) = try await Task.detached {
                    var evict = [UInt64](repeating: 0, count: mebibytes << 17)
                    func clear(_ round: Int) {
                        evict.withUnsafeMutableBufferPointer { words in
                            var index = 0
                            while index < words.count {
                                words[index] &+= UInt64(round)
                                index += 8
                            }
                        }
                    }
                    var totals = (0.0, 0.0)
                    for call in 0..<coldCalls {
                        clear(call)
                        var start = DispatchTime.now().uptimeNanoseconds
                        _ = try await subject.send(request)
                        totals.0 += Double(DispatchTime.now().uptimeNanoseconds - start) / 1000
                        clear(call)
                        start = DispatchTime.now().uptimeNanoseconds
                        _ = try await instant.send(request, options: TransportOptions()).body?.collect(upTo: 1 << 20)
                        totals.1 += Double(DispatchTime.now().uptimeNanoseconds - start) / 1000
                    }
                    return (totals.0 / Double(coldCalls), totals.1 / Double(coldCalls))
                }.value
                print(
                    String(
                        format: "round %d, %@ client, caches evicted (%d MiB): %.2f µs a call, the transport alone "
                            + "%.2f",
                        round, name, mebibytes, clientCold, transportCold))
            }
            print(
                String(
                    format: "round %d, %@ client: %.2f µs per call over an instant transport, %.2f at 32 concurrent,"
                        + " %.2f right after a real request",
                    round, name, perCall, perConcurrentCall, afterRequest))
        }
    }
}
