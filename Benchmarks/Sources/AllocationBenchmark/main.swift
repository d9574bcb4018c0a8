// AllocationBenchmark: heap allocations and global executor jobs per call, counted, not timed:
// the same figures on every run of the same build, whatever else the machine is doing, so CI
// can hold them (swift-nio's allocation-counter tests do the same for its own code).
//
//   scripts/with-servers swift run -c release --package-path Benchmarks AllocationBenchmark [calls]
//
// Counted per call, after a warm-up, one call at a time:
//   - the bare client (no interceptor, no observer, no retry), the full client (3
//     interceptors, 1 observer, the default retry stack: ClientBenchmark's) and the full client
//     without its observer, over a transport that answers at once and enforces every limit;
//   - a small GET to a loopback nginx through URLSessionTransport and AsyncHTTPClientTransport
//     alone, and through the full client over each.
// Allocations are every malloc, calloc, realloc and aligned allocation of the process
// (MallocCounter replaces glibc's); jobs are the tasks started or resumed on Swift's global
// concurrent executor (its enqueue hook): a Task per call shows as a job or more per call.
//
// HERON_ALLOCATION_THRESHOLDS names a JSON file of the most allocations per call each figure may
// reach, per build configuration (`{"debug": {"name": max}, "release": {...}}`): a figure over its
// threshold fails the run (exit status 1) naming it. scripts/bench passes
// Benchmarks/allocation-thresholds.json; CI runs the debug build's quick benchmarks.
// HERON_ALLOCATION_TRACE=bare|full prints the stack of each allocation of one call of that client
// over the instant transport (pipe it through `swift demangle`).
// HERON_BENCH_JSON / HERON_BENCH_QUICK: see BenchmarkSupport's Report.
import AsyncHTTPClient
import BenchmarkSupport
import Foundation
import HTTPClient
import HTTPCore
import HeronAsyncHTTPClient
import MallocCounter

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if DEBUG
let configuration = "debug"
#else
let configuration = "release"
#endif

let environment = ProcessInfo.processInfo.environment
let quick = environment["HERON_BENCH_QUICK"] == "1"
let instantCalls = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? (quick ? 2_000 : 20_000)
let networkCalls = max(50, instantCalls / 20)

guard heron_allocation_count() >= 0 else {
    print("AllocationBenchmark: allocations cannot be counted on this platform (glibc only)")
    exit(0)
}
heron_count_global_jobs()

/// Answers every request at once with the same small response, and says it enforces every
/// limit, as the real transports do: what is counted is the client's own work.
struct InstantTransport: ClientTransport {
    let response = TransportResponse(head: HTTPResponse(status: .ok), body: HTTPBody("ok"))
    var enforcedLimits: TransportLimits { .all }
    func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse { response }
}

/// Counts finished calls: the full client's one observer.
final class CountingObserver: ClientObserver, @unchecked Sendable {
    // Invariant: `finished` is only touched under `lock`.
    private let lock = NSLock()
    private var finished = 0

    func receive(_ event: ClientEvent) async {
        if case .finished = event.kind { lock.withLock { finished += 1 } }
    }
}

func makeClient(_ transport: any ClientTransport, full: Bool, observer: Bool = true) throws -> Client {
    Client(
        transport: transport,
        interceptors: full
            ? [
                DefaultHeaderFields(try HTTPFields(["X-Bench": "1"])), BearerAuth(token: "bench-token"),
                ResponseValidation(),
            ] : [],
        observers: full && observer ? [CountingObserver()] : [], retry: full ? .default : .none,
        timeout: .seconds(600))
}

/// What one figure counted.
struct Figure {
    let name: String
    let allocations: Double
    let jobs: Double
}

/// Runs `call` `calls` times one at a time in a detached task, after a tenth as many to warm up,
/// and returns the allocations and global jobs per call.
func count(_ name: String, calls: Int, _ call: @escaping @Sendable () async throws -> Void) async throws -> Figure {
    try await Task.detached {
        for _ in 0..<max(10, calls / 10) { try await call() }
        // Observers' deliveries of the warm-up end first.
        try await Task.sleep(for: .milliseconds(200))
        let allocations = heron_allocation_count()
        let jobs = heron_global_job_count()
        for _ in 0..<calls { try await call() }
        let allocated = Double(heron_allocation_count() - allocations) / Double(calls)
        let enqueued = Double(heron_global_job_count() - jobs) / Double(calls)
        return Figure(name: name, allocations: allocated, jobs: enqueued)
    }.value
}

// HERON_ALLOCATION_TRACE=bare|full: the stacks of one call's allocations, on standard error.
if let traced = environment["HERON_ALLOCATION_TRACE"] {
    let client = try makeClient(InstantTransport(), full: traced == "full")
    let request = HTTPRequest(url: URL(string: "http://127.0.0.1:1/small")!)
    try await Task.detached {
        for _ in 0..<1000 { _ = try await client.send(request) }
        try await Task.sleep(for: .milliseconds(200))
        heron_trace_allocations(1)
        _ = try await client.send(request)
        heron_trace_allocations(0)
    }.value
    exit(0)
}

var figures: [Figure] = []
let request = HTTPRequest(url: URL(string: "http://127.0.0.1:1/small")!)
let instant = InstantTransport()
let bare = try makeClient(instant, full: false)
let full = try makeClient(instant, full: true)
figures.append(
    try await count("bare client, instant transport", calls: instantCalls) { _ = try await bare.send(request) })
figures.append(
    try await count("full client, instant transport", calls: instantCalls) { _ = try await full.send(request) })
// The same without its observer: the observer's queue allocates as its drain happens to run
// (in a debug build, a few tenths of an allocation a call from one run to the next), so this
// figure holds the interceptors' and the retry stack's part exactly.
let quiet = try makeClient(instant, full: true, observer: false)
figures.append(
    try await count("full client without its observer, instant transport", calls: instantCalls) {
        _ = try await quiet.send(request)
    })

if let nginx = LoopbackServer() {
    defer { nginx.stop() }
    let small = HTTPRequest(url: nginx.baseURL.appendingPathComponent("small"))
    let urlSession = URLSessionTransport()
    let ahc = AsyncHTTPClientTransport()
    let fullURLSession = try makeClient(urlSession, full: true)
    let fullAHC = try makeClient(ahc, full: true)
    // As the client passes them: the head's deadline, the idle timeout, the whole body awaited.
    @Sendable func options() -> TransportOptions {
        TransportOptions(idleTimeout: .seconds(600), deadline: .now + .seconds(600), awaitsWholeBody: true)
    }
    figures.append(
        try await count("URLSessionTransport alone, loopback GET", calls: networkCalls) {
            _ = try await urlSession.send(small, options: options()).body?.collect(upTo: 1 << 20)
        })
    figures.append(
        try await count("AsyncHTTPClientTransport alone, loopback GET", calls: networkCalls) {
            _ = try await ahc.send(small, options: options()).body?.collect(upTo: 1 << 20)
        })
    figures.append(
        try await count("full client on URLSessionTransport, loopback GET", calls: networkCalls) {
            _ = try await fullURLSession.send(small)
        })
    figures.append(
        try await count("full client on AsyncHTTPClientTransport, loopback GET", calls: networkCalls) {
            _ = try await fullAHC.send(small)
        })
    try await ahc.shutdown()
} else {
    print("AllocationBenchmark: nginx is missing; the loopback GETs are not counted")
}

// MARK: Report and thresholds

var thresholds: [String: Double] = [:]
if let path = environment["HERON_ALLOCATION_THRESHOLDS"] {
    guard let data = FileManager.default.contents(atPath: path),
        let all = try JSONSerialization.jsonObject(with: data) as? [String: [String: Double]]
    else {
        print("AllocationBenchmark: cannot read the thresholds in \(path)")
        exit(1)
    }
    thresholds = all[configuration] ?? [:]
}
var over: [String] = []
print("allocations and global executor jobs per call (\(configuration) build):")
for figure in figures {
    let limit = thresholds[figure.name]
    let verdict: String
    if let limit {
        verdict = figure.allocations <= limit + 0.005 ? "<= \(limit)" : "OVER the threshold of \(limit)"
        if figure.allocations > limit + 0.005 { over.append(figure.name) }
    } else {
        verdict = "no threshold"
    }
    print(
        String(
            format: "  %@: %.2f allocations, %.2f jobs a call (%@)", figure.name, figure.allocations, figure.jobs,
            verdict))
    Report.record(
        "allocations", "\(figure.name): allocations a call (\(configuration))", heron: figure.allocations,
        unit: "allocations", bar: limit.map { .atMost($0) }, on: .heron,
        note: String(format: "%.2f global executor jobs a call", figure.jobs))
}
if !over.isEmpty {
    print("AllocationBenchmark: more allocations a call than the thresholds allow: \(over.joined(separator: "; "))")
    exit(1)
}
