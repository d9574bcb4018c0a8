// AsyncHTTPClientBenchmark: Heron's Client over AsyncHTTPClientTransport against raw
// AsyncHTTPClient, and against Heron's Client over URLSessionTransport, on the same loopback
// server, in the same run.
//
//   scripts/with-servers swift run -c release --package-path Benchmarks AsyncHTTPClientBenchmark \
//       [rounds] [requests|uploads|streams|all] [MiB]
//
// (1) requests/s of small GETs, sequential and 32 concurrent: the Client (3 interceptors,
//     1 observer, the default retry stack: ClientBenchmark's configuration) over
//     AsyncHTTPClientTransport vs raw AsyncHTTPClient (`execute(_:timeout:)` then
//     `body.collect(upTo:)`, its documented async API), both on one `HTTPClient` (the same
//     connection pool); target >= 0.95 of raw in both modes. Also shown against the same
//     raw baseline: the Client over URLSessionTransport (why the transport exists), the
//     transport alone (without limits, and with a deadline that covers the body, as the
//     client's calls have), and the Client without interceptors and observer. Each round
//     interleaves batches of every variant in a shuffled order.
// (2) a MiB-sized (default 1024) file uploaded through the Client over
//     AsyncHTTPClientTransport (`HTTPBody(fileAt:)`, and a stream body of the same file's
//     chunks) vs raw AsyncHTTPClient streaming the same file (`HTTPClientRequest.Body.stream`
//     of 256 KiB `ByteBuffer`s read with read(2), `Content-Length` known); target >= 0.9 of
//     raw, and peak RSS (VmHWM, reset before each upload) under 64 MiB above the baseline.
//     Uploads go to the fault server's /hash (which reads every byte before it answers)
//     when HERON_FAULT_URL is set: nginx's `return 200` answers before reading the body.
//     With HERON_FAULT_URL set, each Heron upload also goes once to the fault server's
//     /hash, whose SHA-256 must match.
// (3) 100 MB from nginx read as it arrives: the Client's `stream` (ClientBenchmark's configuration)
//     over AsyncHTTPClientTransport against raw AsyncHTTPClient iterating the same body;
//     target >= 0.95 of raw.
// HERON_BENCH_JSON / HERON_BENCH_QUICK: see BenchmarkSupport's Report. nginx (started here on a
// free port) is the server; without it httpbin and the fault server stand in, far slower.
import AsyncHTTPClient
import BenchmarkSupport
import Foundation
import HTTPClient
import HTTPCore
import HeronAsyncHTTPClient
import NIOCore

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

// One AsyncHTTPClient client for the raw baseline and the transport alike: the same pool and
// settings (64 connections per host, redirects off), so only the layers above it differ.
let ahc = HTTPClient(
    eventLoopGroup: HTTPClient.defaultEventLoopGroup,
    configuration: AsyncHTTPClientTransport.clientConfiguration(.init()))
let transport = AsyncHTTPClientTransport(client: ahc)

/// A small GET through raw AsyncHTTPClient, read to the end.
@Sendable func rawGet(_ url: URL, headers: [(String, String)]) async throws {
    var request = HTTPClientRequest(url: url.absoluteString)
    for (name, value) in headers { request.headers.add(name: name, value: value) }
    let response = try await ahc.execute(request, timeout: .seconds(600))
    guard response.status == .ok else { throw CocoaError(.fileReadUnknown) }
    _ = try await response.body.collect(upTo: 1 << 20)
}

// MARK: (1) requests per second

if which == "all" || which == "requests" {
    let request = HTTPRequest(url: smallURL)
    let heron = try makeClient(transport: transport)
    let heronURLSession = try makeClient(transport: URLSessionTransport())
    let bare = try makeClient(transport: transport, interceptors: false, observer: false)
    var transportRequest = request
    transportRequest.headerFields = try HTTPFields(["X-Bench": "1", "Authorization": "Bearer bench-token"])
    let rawHeaders = [("X-Bench", "1"), ("Authorization", "Bearer bench-token")]
    let allVariants: [(name: String, once: @Sendable () async throws -> Void)] = [
        ("raw AsyncHTTPClient", { try await rawGet(smallURL, headers: rawHeaders) }),
        ("Heron Client on AsyncHTTPClientTransport", { _ = try await heron.send(request) }),
        ("Heron Client on URLSessionTransport", { _ = try await heronURLSession.send(request) }),
        (
            "AsyncHTTPClientTransport alone",
            { [transportRequest] in
                _ = try await transport.send(transportRequest, options: TransportOptions(awaitsWholeBody: true)).body?
                    .collect(upTo: 1 << 20)
            }
        ),
        (
            // As the client sends: the head's deadline and the idle timeout (10 minutes).
            "AsyncHTTPClientTransport alone with a deadline",
            { [transportRequest] in
                let options = TransportOptions(
                    idleTimeout: .seconds(600), deadline: .now + .seconds(600), awaitsWholeBody: true)
                _ = try await transport.send(transportRequest, options: options).body?.collect(upTo: 1 << 20)
            }
        ),
        (
            "Heron Client bare on AsyncHTTPClientTransport",
            { [transportRequest] in _ = try await bare.send(transportRequest) }
        ),
    ]
    let only = environment["HERON_BENCH_ONLY"]
    let variants = allVariants.enumerated().filter { $0.offset == 0 || only.map($0.element.name.contains) ?? true }
        .map(\.element)
    let batches = Report.quick ? 2 : 20
    let sequentialBatch = nginx == nil ? 10 : 50
    let concurrentBatch = nginx == nil ? 64 : 320

    for variant in variants { _ = try await seconds(Report.quick ? 64 : 400, concurrency: 32, variant.once) }
    for (label, batch, concurrency) in [("sequential", sequentialBatch, 1), ("32 concurrent", concurrentBatch, 32)] {
        let figures = try await interleavedRounds(
            variants.map(\.once), rounds: rounds, batches: batches, batch: batch, concurrency: concurrency)
        let rates = figures.rates
        print("GET \(label), raw AsyncHTTPClient: \(String(format: "%.1f", Measure.median(rates[0]))) req/s")
        figures.printCosts(label, names: variants.map(\.name))
        for index in variants.indices.dropFirst() {
            print(
                ratioLine(
                    "GET \(label), \(variants[index].name) / raw AsyncHTTPClient", heron: rates[index], raw: rates[0],
                    unit: "req/s", labels: (variants[index].name, "raw")))
            Report.record(
                "asynchttpclient", "GET \(label): \(variants[index].name) / raw AsyncHTTPClient",
                heron: Measure.median(rates[index]), baseline: Measure.median(rates[0]), unit: "req/s",
                ratio: Measure.median(zip(rates[index], rates[0]).map { $0 / $1 }),
                bar: variants[index].name == "Heron Client on AsyncHTTPClientTransport" ? .atLeast(0.95) : nil)
        }
    }
}

// MARK: (2) uploads

/// The file in 256 KiB `ByteBuffer`s, each filled by one read(2): what raw AsyncHTTPClient
/// streams.
struct FileBuffers: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let url: URL

    func makeAsyncIterator() -> Iterator { Iterator(descriptor: open(url.path, O_RDONLY)) }

    struct Iterator: AsyncIteratorProtocol {
        let descriptor: Int32
        let allocator = ByteBufferAllocator()

        mutating func next() async throws -> ByteBuffer? {
            guard descriptor >= 0 else { throw CocoaError(.fileReadNoSuchFile) }
            let size = 256 * 1024
            var buffer = allocator.buffer(capacity: size)
            let count = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { raw in
                Swift.max(0, read(descriptor, raw.baseAddress, size))
            }
            if count == 0 {
                close(descriptor)
                return nil
            }
            return buffer
        }
    }
}

if which == "all" || which == "uploads" {
    let size = Int64(uploadMiB) << 20
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("heron-upload-\(UUID().uuidString)")
    try UploadFile.write(file, size: size)
    defer { try? FileManager.default.removeItem(at: file) }
    let client = try makeClient(transport: transport)
    // nginx's `return 200` answers before it has read the body, and AsyncHTTPClient then
    // stops sending (the exchange is over): nothing would be measured. The fault server's
    // /hash reads and hashes every byte before it answers, so uploads go there when it runs.
    let uploadURL = environment["HERON_FAULT_URL"].flatMap { URL(string: $0 + "/hash") } ?? uploadURL

    func rawUpload(to url: URL) async throws -> ByteBuffer {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        request.body = .stream(FileBuffers(url: file), length: .known(size))
        let response = try await ahc.execute(request, timeout: .seconds(3600))
        return try await response.body.collect(upTo: 1 << 20)
    }
    func heronUpload(_ body: HTTPBody, to url: URL) async throws -> Data {
        try await client.send(HTTPRequest(method: .post, url: url, body: body)).body
    }
    func streamBody() -> HTTPBody {
        HTTPBody(length: .known(size), iterationBehavior: .single) {
            UploadFile.Chunks(url: file, reading: .systemRead)
        }
    }

    var samples: [String: [Double]] = [:]
    var peaks: [String: Int64] = [:]
    func record(_ name: String, _ work: () async throws -> Void) async throws {
        let baseline = UploadFile.resetPeakRSS()
        let start = DispatchTime.now().uptimeNanoseconds
        try await work()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        samples[name, default: []].append(Double(size) / seconds / 1e6)
        peaks[name] = max(peaks[name] ?? 0, Measure.peakRSS() - baseline)
    }
    let raw = "raw AsyncHTTPClient stream of the file"
    let heronFile = "Heron Client file body on AsyncHTTPClientTransport"
    let heronStream = "Heron Client stream body on AsyncHTTPClientTransport"
    for _ in 0..<rounds {
        for name in [raw, heronFile, heronStream].shuffled() {
            try await record(name) {
                switch name {
                case raw: _ = try await rawUpload(to: uploadURL)
                case heronFile: _ = try await heronUpload(try HTTPBody(fileAt: file), to: uploadURL)
                default: _ = try await heronUpload(streamBody(), to: uploadURL)
                }
            }
        }
    }
    print("upload of \(uploadMiB) MiB, throughput in MB/s, peak RSS growth over the rounds:")
    for heron in [heronFile, heronStream] {
        let heronSamples = samples[heron] ?? []
        let rawSamples = samples[raw] ?? []
        print(
            ratioLine("\(heron) / \(raw)", heron: heronSamples, raw: rawSamples, unit: "MB/s", labels: ("Heron", "raw"))
        )
        Report.record(
            "asynchttpclient", "\(uploadMiB) MiB \(heron) / \(raw)", heron: Measure.median(heronSamples),
            baseline: Measure.median(rawSamples), unit: "MB/s",
            ratio: Measure.median(zip(heronSamples, rawSamples).map { $0 / $1 }), bar: .atLeast(0.9))
        let heronMiB = Double(peaks[heron] ?? 0) / 1_048_576
        let rawMiB = Double(peaks[raw] ?? 0) / 1_048_576
        print(String(format: "peak RSS growth: %@ %.1f MiB, raw %.1f MiB", heron, heronMiB, rawMiB))
        Report.record(
            "asynchttpclient", "\(uploadMiB) MiB \(heron) peak RSS growth (vs \(raw))", heron: heronMiB,
            baseline: rawMiB, unit: "MiB", bar: .atMost(64), on: .heron, note: "bar: 64 MiB of growth")
    }

    if let fault = environment["HERON_FAULT_URL"].flatMap({ URL(string: $0 + "/hash") }) {
        let expected = try UploadFile.sha256(of: file)
        for (name, body) in [("file", try HTTPBody(fileAt: file)), ("stream", streamBody())] {
            let reply = try await heronUpload(body, to: fault)
            let json = try JSONSerialization.jsonObject(with: reply) as? [String: Any]
            let intact = json?["sha256"] as? String == expected && json?["bytes"] as? Int64 == size
            print("intact (\(name) body on AsyncHTTPClientTransport, fault server /hash): \(intact ? "yes" : "NO")")
            Report.record(
                "asynchttpclient", "\(uploadMiB) MiB \(name) body on AsyncHTTPClientTransport intact (SHA-256)",
                heron: intact ? 1 : 0, unit: "yes=1", bar: .atLeast(1), on: .heron)
        }
    }
}

// MARK: (3) a streamed body

if which == "all" || which == "streams", let nginx {
    // 100 MB (8 MB in a quick run) from nginx's /files/, read as it arrives: the client's
    // `stream` over AsyncHTTPClientTransport against raw AsyncHTTPClient iterating its body.
    let size = Report.quick ? 8_000_000 : 100_000_000
    let file = nginx.filesFolder.appendingPathComponent("stream.bin")
    try UploadFile.write(file, size: Int64(size))
    defer { try? FileManager.default.removeItem(at: file) }
    let url = nginx.baseURL.appendingPathComponent("files/stream.bin")
    let client = try makeClient(transport: transport)
    func rawStream() async throws -> Int {
        let response = try await ahc.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(600))
        var count = 0
        for try await buffer in response.body { count += buffer.readableBytes }
        return count
    }
    func heronStream() async throws -> Int {
        let response = try await client.stream(HTTPRequest(url: url))
        var count = 0
        for try await chunk in response.body { count += chunk.count }
        return count
    }
    let raw = "raw AsyncHTTPClient iterating the body"
    let heron = "Heron Client.stream on AsyncHTTPClientTransport"
    var samples: [String: [Double]] = [:]
    _ = try await rawStream()
    _ = try await heronStream()
    // A stream of 100 MB takes about 0.15 s here, within the reach of one scheduling hiccup
    // (single streams gave per-round ratios from 0.26 to 1.89): each round streams each
    // variant several times, alternating, and compares the totals.
    let repeats = Report.quick ? 1 : 8
    for _ in 0..<rounds {
        var seconds: [String: Double] = [:]
        for _ in 0..<repeats {
            for name in [raw, heron].shuffled() {
                let start = DispatchTime.now().uptimeNanoseconds
                let count = try await name == raw ? rawStream() : heronStream()
                seconds[name, default: 0] += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                guard count == size else {
                    print("\(name): \(count) bytes, not \(size)")
                    exit(1)
                }
            }
        }
        for (name, total) in seconds { samples[name, default: []].append(Double(size * repeats) / total / 1e6) }
    }
    let heronSamples = samples[heron] ?? []
    let rawSamples = samples[raw] ?? []
    print(
        ratioLine(
            "\(size / 1_000_000) MB streamed, \(heron) / \(raw)", heron: heronSamples, raw: rawSamples, unit: "MB/s"))
    Report.record(
        "asynchttpclient", "\(size / 1_000_000) MB streamed: \(heron) / \(raw)", heron: Measure.median(heronSamples),
        baseline: Measure.median(rawSamples), unit: "MB/s",
        ratio: Measure.median(zip(heronSamples, rawSamples).map { $0 / $1 }), bar: .atLeast(0.95))
}

try await transport.shutdown()
try await ahc.shutdown().get()
