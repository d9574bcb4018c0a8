import Foundation
import HTTPClientTesting
import HTTPCore
import TestSupport
import Testing

@testable import HTTPCache
@testable import HTTPClient

// Each test holds, verbatim, the ```swift example of one documentation comment of
// Sources/HTTPCache and runs it against the local httpbin of `scripts/test` (whose
// /cache/60 answers `Cache-Control: public, max-age=60`), with `print` captured.
// `everySourceExampleIsHere` fails when an example is missing from this file.

@Suite("Examples in the HTTP cache documentation comments")
struct CacheExampleTests {
    @Test("every ```swift example of Sources/HTTPCache appears verbatim in this file")
    func everySourceExampleIsHere() throws {
        let (count, untested) = try SnippetSource.untestedDocCommentExamples(
            under: "Sources/HTTPCache", testedIn: ["Tests/HTTPCacheTests/CacheExampleTests.swift"])
        for (file, block) in untested {
            Issue.record("example in \(file) is not tested:\n\(block.joined(separator: "\n"))")
        }
        #expect(count >= 14)
    }

    @Test("CachingTransport")
    func cachingTransport() async throws {
        let baseURL = try TestServers.httpbin()
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let cache = CachingTransport(wrapping: URLSessionTransport(), storage: MemoryCacheStorage())
        let client = Client(baseURL: baseURL, transport: cache)  // such as https://httpbin.org
        let first = try await client.send(.get("cache/60"))  // Cache-Control: public, max-age=60
        let second = try await client.send(.get("cache/60"))  // from the cache while fresh
        print(first.cacheOutcome == .miss, second.cacheOutcome == .hit, cache.counters.hits)  // true true 1

        #expect(printed == ["true true 1"])
    }

    @Test("CacheOutcome, CachePolicy, HTTPRequest.cachePolicy and CacheCounters")
    func outcomeAndPolicies() async throws {
        let baseURL = try TestServers.httpbin()
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        let cache = CachingTransport(wrapping: URLSessionTransport())
        let client = Client(baseURL: baseURL, transport: cache)
        _ = try await client.send(.get("cache/60"))

        let response = try await client.send(.get("cache/60"))
        if response.cacheOutcome == .hit { print("served from the cache") }

        let fresh = try await client.send(.get("cache/60").cachePolicy(.reload))  // skip what is stored
        let stored = try await client.send(.get("cache/60").cachePolicy(.cacheElseNetwork))
        print(fresh.cacheOutcome == .miss, stored.cacheOutcome == .hit)  // true true

        do {
            let response = try await client.send(.get("cache/60").cachePolicy(.revalidate))
            print(response.status)  // 200 OK
        }

        let counters = cache.counters  // a CachingTransport's
        print(counters.hits, counters.misses, counters.hitRatio)

        #expect(printed == ["served from the cache", "true true", "200 OK", "2 3 0.4"])
    }

    @Test("RequestOptions.cachePolicy")
    func requestOptionsCachePolicy() async throws {
        let baseURL = try TestServers.httpbin()
        let client = Client(baseURL: baseURL, transport: CachingTransport(wrapping: URLSessionTransport()))
        _ = try await client.send(.get("cache/60"))

        var options = RequestOptions()
        options.cachePolicy = .reload  // skip what is stored, store what comes back
        let fresh = try await client.send(.get("cache/60"), options: options)

        #expect(options.requestOptions[CachePolicyOption.self] == .reload)
        #expect(fresh.cacheOutcome == .miss)
        #expect(try await client.send(.get("cache/60")).cacheOutcome == .hit)
    }

    @Test("CachePartition.byCredentials(including:)")
    func credentialFields() throws {
        var configuration = CacheConfiguration()
        configuration.partition = .byCredentials(including: [try HTTPFieldName("X-Api-Key")])

        let keyed = HTTPRequest.get("https://api.example.com/a").header("X-Api-Key", "k1")
        let other = HTTPRequest.get("https://api.example.com/a").header("X-Api-Key", "k2")
        #expect(configuration.partition.name(for: keyed) != configuration.partition.name(for: other))
        #expect(configuration.partition.name(for: .get("https://api.example.com/a")) == "")
    }

    @Test("CacheConfiguration, CacheClock, CachePartition, CacheKey and CacheEvent")
    func configuration() async throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        do {
            var configuration = CacheConfiguration()
            configuration.offlineWindow = .seconds(7 * 24 * 3600)  // serve a week-old copy when offline
            configuration.partition = .shared  // one user: no partitions
            let transport = CachingTransport(wrapping: URLSessionTransport(), configuration: configuration)
            print(transport.configuration.defaultPolicy)  // useProtocol
        }
        do {
            let start = Date(timeIntervalSince1970: 1_700_000_000)
            let clock = CacheClock { start }
            print(clock.now() == start)  // true
        }
        do {
            let perAccount = CachePartition.custom { request in request.url.user ?? "anonymous" }
            let request = HTTPRequest(url: URL(string: "https://ada@api.example.com/me")!)
            print(perAccount.name(for: request), request.cachePartition("admin").options.isEmpty)  // ada false
        }
        do {
            let storage = MemoryCacheStorage()
            let key = CacheKey(url: URL(string: "HTTPS://Example.com/a?q=1#top")!, partition: "")
            print(key.uri, storage.entries(for: key).isEmpty)  // https://example.com/a?q=1 true
        }
        let events = Locked<[String]>([])
        do {
            @Sendable func print(_ event: CacheEvent) { events.withLock { $0.append(event.description) } }
            var configuration = CacheConfiguration()
            configuration.observer = { event in print(event) }  // such as: served hit https://api.example.com/feed
            let stub = StubTransport(
                fallback: .status(.ok, headerFields: try HTTPFields(["Cache-Control": "max-age=60"])))
            let client = Client(
                baseURL: URL(string: "https://api.example.com")!,
                transport: CachingTransport(wrapping: stub, configuration: configuration))
            _ = try await client.send(.get("feed"))
            _ = try await client.send(.get("feed"))
        }

        #expect(printed == ["useProtocol", "true", "ada false", "https://example.com/a?q=1 true"])
        #expect(events.withLock { $0 }.last == "served hit https://api.example.com/feed")
    }

    @Test("MemoryCacheStorage, CacheStorage and DiskCacheStorage")
    func storages() async throws {
        let baseURL = try TestServers.httpbin()
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        do {
            let storage = MemoryCacheStorage(capacity: 16 * 1024 * 1024)
            let client = Client(transport: CachingTransport(wrapping: URLSessionTransport(), storage: storage))
            print(storage.totalCost, client.transport is CachingTransport)  // 0 true
        }
        do {
            let storage = MemoryCacheStorage(capacity: 8 * 1024 * 1024)
            let transport = CachingTransport(wrapping: URLSessionTransport(), storage: storage)
            let client = Client(baseURL: baseURL, transport: transport)
            _ = try await client.send(.get("cache/60"))
            print(storage.count)  // 1
        }
        // The example's directory, emptied before and after.
        let used = FileManager.default.temporaryDirectory.appendingPathComponent("heron-http-cache")
        try? FileManager.default.removeItem(at: used)
        defer { try? FileManager.default.removeItem(at: used) }
        do {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("heron-http-cache")
            let storage = try DiskCacheStorage(directory: directory, capacity: 100 * 1024 * 1024)
            let cache = CachingTransport(wrapping: URLSessionTransport(), storage: storage)
            let client = Client(baseURL: baseURL, transport: cache)
            _ = try await client.send(.get("cache/60"))
            print(storage.count)  // 1: a file, found by the storage made on the directory after a restart
        }

        #expect(printed == ["0 true", "1", "1"])
    }
}
