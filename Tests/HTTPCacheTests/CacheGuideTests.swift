import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import HTTPCache
@testable import HTTPClient

// Each test holds, verbatim, one ```swift block of Docs/HTTPCache.md and runs it against the
// local httpbin of `scripts/test` (/cache/60 answers `Cache-Control: public, max-age=60`),
// with `print` captured to check what the comments say it prints.

@Suite("Examples in Docs/HTTPCache.md")
struct CacheGuideTests {
    @Test("every ```swift block of Docs/HTTPCache.md appears verbatim in this file")
    func everySnippetIsHere() throws {
        let tests = try SnippetSource.read("Tests/HTTPCacheTests/CacheGuideTests.swift")
        let blocks = SnippetSource.markdownBlocks(try SnippetSource.read("Docs/HTTPCache.md"))
        #expect(blocks.count == 4)
        for block in blocks {
            #expect(SnippetSource.contains(block, in: tests), "snippet of Docs/HTTPCache.md is not tested:\n\(block)")
        }
    }

    @Test("the first example: a miss, then a hit with an Age")
    func introduction() async throws {
        let baseURL = try TestServers.httpbin()
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let cache = CachingTransport(wrapping: URLSessionTransport(), storage: MemoryCacheStorage())
        let client = Client(baseURL: baseURL, transport: cache)
        let first = try await client.send(.get("cache/60"))  // Cache-Control: public, max-age=60
        let second = try await client.send(.get("cache/60"))  // fresh: served from the cache
        print(first.cacheOutcome == .miss, second.cacheOutcome == .hit)  // true true
        print(second.headerFields[.age] != nil, cache.counters.hits)  // true 1

        #expect(printed == ["true true", "true 1"])
    }

    @Test("policies per call")
    func policies() async throws {
        let baseURL = try TestServers.httpbin()
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let cache = CachingTransport(wrapping: URLSessionTransport())
        let client = Client(baseURL: baseURL, transport: cache)
        _ = try await client.send(.get("cache/60"))
        var options = RequestOptions()
        options.cachePolicy = .reload
        let reloaded = try await client.send(.get("cache/60"), options: options)
        let offline = try await client.send(.get("cache/60").cachePolicy(.cacheOnly))
        let nothing = try await client.send(.get("cache/61").cachePolicy(.cacheOnly))
        print(reloaded.cacheOutcome == .miss, offline.cacheOutcome == .hit)  // true true
        print(nothing.status)  // 504 Gateway Timeout

        #expect(printed == ["true true", "504 Gateway Timeout"])
    }

    @Test("stale responses, offline use and partitions")
    func partitions() async throws {
        let baseURL = try TestServers.httpbin()
        let printed = Locked<[String]>([])
        @Sendable func print(_ items: Any...) {
            let line = items.map { "\($0)" }.joined(separator: " ")
            printed.withLock { $0.append(line) }
        }

        var configuration = CacheConfiguration()
        configuration.offlineWindow = .seconds(7 * 24 * 3600)
        configuration.partition = .custom { request in request.headerFields[try! HTTPFieldName("X-User")] ?? "" }
        configuration.observer = { event in if event.kind == .stored { print("stored", event.url.path) } }
        let cache = CachingTransport(wrapping: URLSessionTransport(), configuration: configuration)
        let client = Client(baseURL: baseURL, transport: cache)
        _ = try await client.send(.get("cache/60").header("X-User", "ada"))
        let other = try await client.send(.get("cache/60").header("X-User", "grace"))
        print(other.cacheOutcome == .miss)  // true: another partition
        try cache.removeAll(partition: "ada")

        #expect(printed.withLock { $0 } == ["stored /cache/60", "stored /cache/60", "true"])
        #expect(try await client.send(.get("cache/60").header("X-User", "ada")).cacheOutcome == .miss)
    }

    @Test("on disk")
    func onDisk() async throws {
        let baseURL = try TestServers.httpbin()
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        let used = FileManager.default.temporaryDirectory.appendingPathComponent("heron-guide-cache")
        try? FileManager.default.removeItem(at: used)
        defer { try? FileManager.default.removeItem(at: used) }

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("heron-guide-cache")
        do {
            let storage = try DiskCacheStorage(directory: directory, capacity: 50 * 1024 * 1024)
            let cache = CachingTransport(wrapping: URLSessionTransport(), storage: storage)
            _ = try await Client(baseURL: baseURL, transport: cache).send(.get("cache/60"))
        }
        // As after a restart: the first storage is gone (two storages never share a directory).
        let reopened = try DiskCacheStorage(directory: directory)
        let later = Client(
            baseURL: baseURL, transport: CachingTransport(wrapping: URLSessionTransport(), storage: reopened))
        print(try await later.send(.get("cache/60")).cacheOutcome == .hit)  // true: kept on disk

        #expect(printed == ["true"])
    }
}
