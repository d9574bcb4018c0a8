// CacheBenchmark: Heron's HTTP cache (CachingTransport) in the same run as its baselines.
//
//   swift run -c release --package-path Benchmarks CacheBenchmark [rounds] [entries]
//
// (1) A fresh hit through the client (Client over CachingTransport over URLSessionTransport,
//     memory store) against the same request sent to a loopback nginx by the same client
//     without the cache: microseconds per call, sequential; bar: a hit costs at most 25% of
//     the loopback request (measured about 6-10%).
// (2) The hit's own cost: CachingTransport.send answering from a MemoryCacheStorage, called
//     directly, against a transport that answers at once (the floor of any transport call):
//     microseconds per call.
// (3) A DiskCacheStorage of `entries` (10,000 by default) entries of 1 KiB: the cost of
//     storing one (write, rename), of a lookup (the head read from disk and the body read
//     whole) against reading a file of the same size with `Data(contentsOf:)`, of opening the
//     directory again (indexing every entry), and of an insertion that evicts the least
//     recently used entry; peak RSS growth over the whole disk run (bar: under 64 MiB above
//     the baseline, the index is small and bodies stream).
// nginx (started here on a free port) is the origin of (1); without it (1) is skipped.
// HERON_BENCH_JSON / HERON_BENCH_QUICK: see BenchmarkSupport's Report.
import BenchmarkSupport
import Foundation
import HTTPCache
import HTTPClient
import HTTPCore

let arguments = CommandLine.arguments
let rounds = max(1, arguments.count > 1 ? Int(arguments[1]) ?? 5 : 5)
let entryCount = max(100, arguments.count > 2 ? Int(arguments[2]) ?? 10_000 : (Report.quick ? 1_000 : 10_000))
let calls = Report.quick ? 500 : 5_000

/// A transport that answers at once with a cacheable 2-byte response.
struct InstantTransport: ClientTransport {
    let head = HTTPResponse(status: .ok, headerFields: try! HTTPFields(["Cache-Control": "max-age=3600"]))
    func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
        TransportResponse(head: head, body: HTTPBody("ok"))
    }
}

func microseconds(_ seconds: Double, per count: Int) -> Double { seconds / Double(count) * 1e6 }

/// Seconds `count` calls of `call` take, run off the main actor (top-level code is on it, and
/// every call from there would hop to another thread and back).
func timed(_ count: Int, _ call: @escaping @Sendable () async throws -> Void) async throws -> Double {
    try await Task.detached {
        try await call()  // warm-up
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<count { try await call() }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }.value
}
func show(_ value: Double) -> String { String(format: "%.2f µs", value) }

// MARK: (1) a fresh hit through the client against a loopback request

if let origin = LoopbackServer() {
    defer { origin.stop() }
    let network = URLSessionTransport()
    let cached = Client(baseURL: origin.baseURL, transport: CachingTransport(wrapping: network), retry: .none)
    let direct = Client(baseURL: origin.baseURL, transport: network, retry: .none)
    let first = try await cached.send(.get("cached"))
    guard first.status == .ok, try await cached.send(.get("cached")).cacheOutcome == .hit else {
        print("the loopback response was not stored")
        exit(1)
    }
    var hits: [Double] = []
    var loopback: [Double] = []
    var ratios: [Double] = []
    for _ in 0..<rounds {
        let hit = try await timed(calls) { _ = try await cached.send(.get("cached")) }
        let sent = try await timed(calls) { _ = try await direct.send(.get("cached")) }
        hits.append(microseconds(hit, per: calls))
        loopback.append(microseconds(sent, per: calls))
        ratios.append(hit / sent)
    }
    let hit = Measure.median(hits)
    let sent = Measure.median(loopback)
    let ratio = Measure.median(ratios)
    print("(1) fresh hit through the client: \(show(hit)) per call; loopback request: \(show(sent)); ratio \(ratio)")
    Report.record(
        "cache", "fresh hit via Client vs loopback GET", heron: hit, baseline: sent, unit: "µs/call", ratio: ratio,
        bar: .atMost(0.25))
} else {
    print("(1) skipped: nginx not found (apt-get install -y nginx)")
}

// MARK: (2) the hit's own cost

do {
    let cache = CachingTransport(wrapping: InstantTransport(), storage: MemoryCacheStorage())
    let instant = InstantTransport()
    let request = HTTPRequest(url: URL(string: "https://bench.example/cached")!)
    let options = TransportOptions()
    // Storing happens as the body is read.
    _ = try await cache.send(request, options: options).body?.collect(upTo: 1024)
    var hitCosts: [Double] = []
    var floors: [Double] = []
    var ratios: [Double] = []
    let many = calls * 10
    for _ in 0..<rounds {
        let hit = try await timed(many) { _ = try await cache.send(request, options: options) }
        let floor = try await timed(many) { _ = try await instant.send(request, options: options) }
        hitCosts.append(microseconds(hit, per: many))
        floors.append(microseconds(floor, per: many))
        ratios.append(hit / floor)
    }
    guard cache.counters.hits >= many * rounds else {
        print("the hits were not hits")
        exit(1)
    }
    let hit = Measure.median(hitCosts)
    print(
        "(2) CachingTransport hit (memory store): \(show(hit)) per call; instant transport: \(show(Measure.median(floors)))"
    )
    Report.record(
        "cache", "hit in CachingTransport (memory store)", heron: hit, baseline: Measure.median(floors),
        unit: "µs/call", ratio: Measure.median(ratios))
}

// MARK: (3) a disk store of many entries

do {
    let baseline = Measure.peakRSS()
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "heron-cache-bench-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let body = Data(repeating: 0x61, count: 1024)
    let head = HTTPResponse(
        status: .ok, headerFields: try HTTPFields(["Cache-Control": "max-age=3600", "Content-Type": "text/plain"]))
    func key(_ index: Int) -> CacheKey { CacheKey(partition: "", uri: "https://bench.example/item/\(index)") }
    func store(_ storage: DiskCacheStorage, _ index: Int) throws {
        let entry = CacheEntry(key: key(index), head: head, requestTime: Date(), responseTime: Date())
        let writer = try storage.makeWriter(for: entry, replacing: [])
        try writer.write(body)
        try writer.commit()
    }
    // Room for every entry: no eviction while filling.
    let storage = try DiskCacheStorage(directory: directory, capacity: 1 << 40)
    let fill = Measure.seconds(rounds: 1, warmup: 0) {
        for index in 0..<entryCount { try? store(storage, index) }
    }[0]
    guard storage.count == entryCount else {
        print("stored \(storage.count) of \(entryCount)")
        exit(1)
    }
    let perStore = microseconds(fill, per: entryCount)

    // Lookups of random keys: the head from disk, the body read whole.
    var generator = SystemRandomNumberGenerator()
    let lookups = Report.quick ? 500 : 5_000
    let probe = directory.appendingPathComponent("probe.bin")
    try Data(repeating: 0x62, count: 1024 + 300).write(to: probe)
    var lookupCosts: [Double] = []
    var readCosts: [Double] = []
    var ratios: [Double] = []
    for _ in 0..<rounds {
        let indices = (0..<lookups).map { _ in Int.random(in: 0..<entryCount, using: &generator) }
        let lookup = try await Measure.seconds(rounds: 1, warmup: 0) {
            for index in indices {
                guard let entry = storage.entries(for: key(index)).first,
                    let data = try await storage.body(of: entry)?.collect(upTo: 1 << 20), data.count == 1024
                else {
                    print("entry \(index) missing")
                    exit(1)
                }
            }
        }[0]
        let read = Measure.seconds(rounds: 1, warmup: 0) {
            for _ in indices { _ = try? Data(contentsOf: probe) }
        }[0]
        lookupCosts.append(microseconds(lookup, per: lookups))
        readCosts.append(microseconds(read, per: lookups))
        ratios.append(lookup / read)
    }
    let lookup = Measure.median(lookupCosts)

    // Reopening: the first access reads every entry's head to build the index.
    let entrySize = storage.totalCost / Int64(entryCount)
    let reopened = try DiskCacheStorage(directory: directory, capacity: Int64(entryCount - 100) * entrySize)
    let index = Measure.seconds(rounds: 1, warmup: 0) { _ = reopened.count }[0]
    // The capacity above holds about entryCount - 100 entries: each new one evicts the oldest.
    let evictions = Report.quick ? 200 : 1_000
    let before = reopened.count
    let evict = Measure.seconds(rounds: 1, warmup: 0) {
        for index in 0..<evictions { try? store(reopened, entryCount + index) }
    }[0]
    let evicted = before + evictions - reopened.count
    guard evicted >= evictions else {
        print("only \(evicted) evictions for \(evictions) insertions")
        exit(1)
    }
    let perEviction = microseconds(evict, per: evictions)
    let growth = Double(Measure.peakRSS() - baseline) / 1_048_576

    print("(3) disk store of \(entryCount) entries of 1 KiB:")
    print(
        "    store \(show(perStore)) per entry; lookup (head + body) \(show(lookup)), Data(contentsOf:) \(show(Measure.median(readCosts)))"
    )
    print(
        String(
            format: "    reopen (index %d entries) %.1f ms; insert with eviction %@; peak RSS +%.1f MiB", entryCount,
            index * 1000, show(perEviction), growth))
    Report.record("cache", "disk store: store one entry (\(entryCount) entries)", heron: perStore, unit: "µs/entry")
    Report.record(
        "cache", "disk store: lookup of \(entryCount) vs Data(contentsOf:)", heron: lookup,
        baseline: Measure.median(readCosts), unit: "µs/lookup", ratio: Measure.median(ratios))
    Report.record("cache", "disk store: reopen and index \(entryCount) entries", heron: index * 1000, unit: "ms")
    Report.record("cache", "disk store: insert evicting the LRU entry", heron: perEviction, unit: "µs/insert")
    Report.record(
        "cache", "disk store: peak RSS growth, \(entryCount) entries", heron: growth, unit: "MiB", bar: .atMost(64),
        on: .heron)
}
