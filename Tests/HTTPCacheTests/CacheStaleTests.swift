import Foundation
import HTTPCore
import Testing

@testable import HTTPCache
@testable import HTTPClient

@Suite("CachingTransport: stale responses, policies and outcomes")
struct CacheStaleTests: CachingClientSuite {
    let base = URL(string: "https://api.example.com")!

    @Test("stale-while-revalidate serves stale at once and sends one background revalidation for many callers")
    func staleWhileRevalidate() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin(delay: .milliseconds(100)) { _, number in
            ScriptedOrigin.response(
                .ok, ["Cache-Control": "max-age=1, stale-while-revalidate=60", "ETag": "\"v\(number)\""],
                body: "v\(number)", date: clock.now)
        }
        let (client, cache) = makeClient(origin, clock: clock)
        _ = try await client.send(.get("a"))
        clock.advance(5)
        let outcomes = try await withThrowingTaskGroup(of: (CacheOutcome?, String).self) { group in
            for _ in 0..<10 {
                group.addTask {
                    let response = try await client.send(.get("a"))
                    return (response.cacheOutcome, response.text)
                }
            }
            return try await group.reduce(into: [(CacheOutcome?, String)]()) { $0.append($1) }
        }
        #expect(outcomes.allSatisfy { $0.0 == .staleWhileRevalidate && $0.1 == "v1" })
        await cache.backgroundRevalidationsFinished()
        #expect(origin.count == 2)
        #expect(origin.requests[1].headerFields[.ifNoneMatch] == "\"v1\"")
        let fresh = try await client.send(.get("a"))
        #expect(fresh.cacheOutcome == .hit && fresh.text == "v2")
    }

    @Test("only-if-cached and .cacheOnly serve within stale-while-revalidate without a background request")
    func onlyCacheStartsNoBackgroundRevalidation() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { _, number in
            ScriptedOrigin.response(
                .ok, ["Cache-Control": "max-age=1, stale-while-revalidate=60"], body: "v\(number)", date: clock.now)
        }
        let (client, cache) = makeClient(origin, clock: clock)
        _ = try await client.send(.get("a"))
        clock.advance(5)
        var onlyIfCached = HTTPRequest.get("a")
        try onlyIfCached.headerFields.set(.cacheControl, "only-if-cached")
        let first = try await client.send(onlyIfCached)
        let second = try await client.send(.get("a").cachePolicy(.cacheOnly))
        await cache.backgroundRevalidationsFinished()

        #expect(first.cacheOutcome == .staleWhileRevalidate && first.text == "v1")
        // .cacheOnly serves what is stored as it is, stale or not (a hit), and never revalidates.
        #expect(second.cacheOutcome == .hit && second.text == "v1")
        #expect(origin.count == 1)
        // A plain call in the window still revalidates in the background.
        _ = try await client.send(.get("a"))
        await cache.backgroundRevalidationsFinished()
        #expect(origin.count == 2)
    }

    @Test(
        "background revalidations that end at once are all waited for and none is left behind",
        .timeLimit(.minutes(1)))
    func backgroundRevalidationsEnd() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { request, _ in
            ScriptedOrigin.response(
                .ok, ["Cache-Control": "max-age=1, stale-while-revalidate=600"], body: request.url.path,
                date: clock.now)
        }
        let (client, cache) = makeClient(origin, clock: clock)
        for round in 0..<50 {
            _ = try await client.send(.get("r\(round)"))
            clock.advance(2)
            #expect(try await client.send(.get("r\(round)")).cacheOutcome == .staleWhileRevalidate)
        }
        await cache.backgroundRevalidationsFinished()
        #expect(cache.backgroundTasks.count == 0)
        #expect(origin.count == 100)
    }

    @Test("a background task that ends before start returns is still removed and waited for")
    func backgroundTasksRegisterFirst() async {
        let tasks = BackgroundTasks()
        let runs = Locked(0)
        for _ in 0..<200 { tasks.start { runs.withLock { $0 += 1 } } }
        await tasks.waitForAll()
        #expect(tasks.count == 0)
        #expect(runs.withLock { $0 } == 200)
    }

    @Test("past the stale-while-revalidate window the request waits for validation")
    func staleWhileRevalidateWindow() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { _, number in
            ScriptedOrigin.response(
                .ok, ["Cache-Control": "max-age=1, stale-while-revalidate=5"], body: "v\(number)", date: clock.now)
        }
        let (client, _) = makeClient(origin, clock: clock)
        _ = try await client.send(.get("a"))
        clock.advance(10)
        let response = try await client.send(.get("a"))
        #expect(response.cacheOutcome == .miss && response.text == "v2")
    }

    @Test("stale-if-error serves the stale response on a 503 and on a lost connection (RFC 5861 §4)")
    func staleIfError() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { request, number in
            if number == 1 {
                return ScriptedOrigin.response(
                    .ok, ["Cache-Control": "max-age=1, stale-if-error=60"], body: "old", date: clock.now)
            }
            if number == 2 { return ScriptedOrigin.response(.serviceUnavailable, body: "down", date: clock.now) }
            throw ClientError(.connectionLost, "reset", request: request)
        }
        let (client, _) = makeClient(origin, clock: clock)
        _ = try await client.send(.get("a"))
        clock.advance(10)
        let onStatus = try await client.send(.get("a"))
        let onError = try await client.send(.get("a"))
        #expect(onStatus.cacheOutcome == .staleIfError && onStatus.text == "old" && onStatus.status == .ok)
        #expect(onError.cacheOutcome == .staleIfError && onError.text == "old")
        clock.advance(100)
        await #expect(throws: ClientError.self) { _ = try await client.send(.get("a")) }
    }

    @Test("the offline window serves a stale copy when the origin is unreachable, marked offline")
    func offlineWindow() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { request, number in
            if number == 1 {
                return ScriptedOrigin.response(.ok, ["Cache-Control": "max-age=60"], body: "copy", date: clock.now)
            }
            throw ClientError(.cannotConnect, "offline", request: request)
        }
        let (client, cache) = makeClient(origin, clock: clock) { $0.offlineWindow = .seconds(3600) }
        _ = try await client.send(.get("a"))
        clock.advance(600)
        let offline = try await client.send(.get("a"))
        #expect(offline.cacheOutcome == .offline && offline.text == "copy")
        #expect(offline.headerFields[.cacheStatus]?.contains("detail=offline") == true)
        #expect(cache.counters.staleHits == 1)
        clock.advance(7200)
        await #expect(throws: ClientError.self) { _ = try await client.send(.get("a")) }
    }

    @Test("must-revalidate is never served stale: 504 when the origin cannot be reached (RFC 9111 §4.2.4)")
    func mustRevalidate() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { request, number in
            if number == 1 {
                return ScriptedOrigin.response(.ok, ["Cache-Control": "max-age=1, must-revalidate"], date: clock.now)
            }
            throw ClientError(.cannotConnect, "offline", request: request)
        }
        let (client, _) = makeClient(origin, clock: clock) { $0.offlineWindow = .seconds(3600) }
        _ = try await client.send(.get("a"))
        clock.advance(10)
        let response = try await client.send(.get("a"))
        #expect(response.status == .gatewayTimeout)
        #expect(response.cacheOutcome == .unavailable)
    }

    @Test("only-if-cached and .cacheOnly answer 504 when nothing fits, and serve what is stored")
    func onlyIfCached() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { _, _ in
            ScriptedOrigin.response(.ok, ["Cache-Control": "max-age=10"], body: "x", date: clock.now)
        }
        let (client, _) = makeClient(origin, clock: clock)
        let miss = try await client.send(.get("a").header(.cacheControl, "only-if-cached"))
        #expect(miss.status == .gatewayTimeout && origin.count == 0)
        _ = try await client.send(.get("a"))
        clock.advance(100)
        var options = RequestOptions()
        options.cachePolicy = .cacheOnly
        let stale = try await client.send(.get("a"), options: options)
        #expect(stale.status == .ok && stale.text == "x" && origin.count == 1)
        #expect(try await client.send(.get("b").cachePolicy(.cacheOnly)).status == .gatewayTimeout)
    }

    @Test(
        "only-if-cached and .cacheOnly never reach the network: not for a body, a precondition or a reload",
        arguments: ["body", "If-Match", "If-Unmodified-Since", "If-None-Match", "reload"])
    func onlyCacheNeverSends(_ variant: String) async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { _, _ in ScriptedOrigin.response(.ok, ["Cache-Control": "max-age=60"]) }
        let (client, _) = makeClient(origin, clock: clock)
        var request = HTTPRequest.get("a").header(.cacheControl, "only-if-cached")
        switch variant {
        case "body": request.body = HTTPBody("query")
        case "reload": request = request.cachePolicy(.reload)
        default: request = request.header(variant, "\"e\"")
        }
        let response = try await client.send(request)
        #expect(response.status == .gatewayTimeout)
        #expect(origin.count == 0)
        #expect(
            try await client.send(HTTPRequest.get("a").cachePolicy(.cacheOnly).header("If-Match", "*")).status
                == .gatewayTimeout)
        #expect(origin.count == 0)
    }

    @Test("only-if-cached answers 504 when the stored body vanished between the lookup and the serving")
    func onlyCacheBodyGone() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { _, _ in
            ScriptedOrigin.response(.ok, ["Cache-Control": "max-age=60"], body: "x", date: clock.now)
        }
        var configuration = CacheConfiguration()
        configuration.clock = clock.cacheClock
        let client = Client(
            baseURL: base,
            transport: CachingTransport(wrapping: origin, storage: BodylessStorage(), configuration: configuration),
            retry: .none)
        _ = try await client.send(.get("a"))
        let response = try await client.send(.get("a").cachePolicy(.cacheOnly))
        #expect(response.status == .gatewayTimeout)
        #expect(origin.count == 1)
    }

    @Test("the cache's own 504 is returned as it is, not retried by the default retry policies")
    func generatedGatewayTimeoutIsNotRetried() async throws {
        let origin = ScriptedOrigin { _, _ in ScriptedOrigin.response(.ok) }
        let client = Client(baseURL: base, transport: CachingTransport(wrapping: origin))
        let response = try await client.send(.get("a").cachePolicy(.cacheOnly))
        #expect(response.status == .gatewayTimeout)
        #expect(response.metrics.attempts.count == 1)
        #expect(origin.count == 0)
    }

    @Test(
        "an origin's Cache-Status member named like the cache neither crashes nor speaks for it",
        arguments: ["Heron; ", "Heron;;=1; =; hit", "Heron; hit", "\"Heron\"; detail=unavailable, Other; hit"])
    func originCacheStatus(_ value: String) async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { _, _ in
            ScriptedOrigin.response(.ok, ["Cache-Control": "no-store", "Cache-Status": value], date: clock.now)
        }
        let (client, _) = makeClient(origin, clock: clock)
        let response = try await client.send(.get("a"))
        #expect(response.cacheOutcome == .miss)
        let ours = CacheStatusValue.members(in: response.headerFields).filter { $0.name == "Heron" }
        #expect(ours.count == 1)
        #expect(CacheStatusValue.members(in: response.headerFields).last?.name == "Heron")
    }

    @Test("Cache-Status parsing: the last member of the name wins; empty parameters and quoted commas do not break it")
    func cacheStatusParsing() throws {
        let pairs: KeyValuePairs<String, String> = [
            "Cache-Status": "Heron; hit, Edge; detail=\"a, b; c\"",
            "Cache-Status": "Heron; fwd=uri-miss; ; =; fwd-status=200",
        ]
        let fields = try HTTPFields(pairs)
        let empty: KeyValuePairs<String, String> = ["Cache-Status": "Heron; "]
        let noName: KeyValuePairs<String, String> = ["Cache-Status": ",;,"]
        #expect(CacheStatusValue.outcome(in: fields, name: "Heron") == .miss)
        #expect(CacheStatusValue.outcome(in: fields, name: "Edge") == CacheOutcome("a, b; c"))
        #expect(CacheStatusValue.outcome(in: try HTTPFields(empty), name: "Heron") == .miss)
        #expect(CacheStatusValue.outcome(in: try HTTPFields(noName), name: "Heron") == nil)
    }

    @Test("an origin's 504 that claims to be the cache's own is still retried")
    func forgedGeneratedGatewayTimeoutIsRetried() async throws {
        let origin = ScriptedOrigin { _, number in
            if number == 1 {
                return ScriptedOrigin.response(
                    .gatewayTimeout,
                    ["Cache-Status": "Heron; fwd=miss; detail=unavailable", "Cache-Control": "no-store"])
            }
            return ScriptedOrigin.response(.ok, ["Cache-Control": "no-store"], body: "second")
        }
        let client = Client(
            baseURL: base, transport: origin, retry: [.status([504], max: 1), .backoff(.constant(0), jitter: .none)])
        let response = try await client.send(.get("a"))
        #expect(response.status == .ok && response.text == "second")
        #expect(origin.count == 2)
    }

    @Test("a validation that failed on the network gives a 504 the retry policies still retry")
    func failedValidationIsRetried() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { request, number in
            switch number {
            case 1:
                return ScriptedOrigin.response(
                    .ok, ["Cache-Control": "no-cache", "ETag": "\"e\""], body: "stored", date: clock.now)
            case 2: throw ClientError(.connectionLost, "reset", request: request)
            default:
                #expect(request.headerFields[.ifNoneMatch] == "\"e\"")
                return ScriptedOrigin.response(.notModified, ["ETag": "\"e\""], date: clock.now)
            }
        }
        var configuration = CacheConfiguration()
        configuration.clock = clock.cacheClock
        let client = Client(
            baseURL: base, transport: CachingTransport(wrapping: origin, configuration: configuration),
            retry: [.status([504], max: 1), .backoff(.constant(0), jitter: .none)])
        _ = try await client.send(.get("a"))
        let response = try await client.send(.get("a"))
        #expect(response.status == .ok && response.text == "stored")
        #expect(response.cacheOutcome == .revalidated)
        #expect(origin.count == 3)
    }

    @Test("request directives: max-age, min-fresh and max-stale bound what is served (RFC 9111 §5.2.1)")
    func requestDirectives() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { _, number in
            ScriptedOrigin.response(.ok, ["Cache-Control": "max-age=100"], body: "v\(number)", date: clock.now)
        }
        let (client, _) = makeClient(origin, clock: clock)
        _ = try await client.send(.get("a"))
        clock.advance(50)
        #expect(try await client.send(.get("a").header(.cacheControl, "max-age=60")).cacheOutcome == .hit)
        #expect(try await client.send(.get("a").header(.cacheControl, "min-fresh=30")).cacheOutcome == .hit)
        clock.advance(80)  // age 130: 30 s stale
        #expect(try await client.send(.get("a").header(.cacheControl, "max-stale=60")).cacheOutcome == .hit)
        #expect(try await client.send(.get("a").header(.cacheControl, "max-stale=10")).cacheOutcome == .miss)
        _ = try await client.send(.get("b"))
        clock.advance(50)
        #expect(try await client.send(.get("b").header(.cacheControl, "max-age=40")).cacheOutcome == .miss)
    }

    @Test("policies: reload skips the stored copy; revalidate validates a fresh one but an immutable one")
    func policies() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { request, _ in
            let control = request.url.path == "/fixed" ? "max-age=100, immutable" : "max-age=100"
            return ScriptedOrigin.response(.ok, ["Cache-Control": control, "ETag": "\"e\""], date: clock.now)
        }
        let (client, _) = makeClient(origin, clock: clock)
        _ = try await client.send(.get("a"))
        _ = try await client.send(.get("fixed"))
        var reload = RequestOptions()
        reload.cachePolicy = .reload
        #expect(try await client.send(.get("a"), options: reload).cacheOutcome == .miss)
        #expect(origin.requests.last?.headerFields[.ifNoneMatch] == nil)
        _ = try await client.send(.get("a").cachePolicy(.revalidate))
        #expect(origin.requests.last?.headerFields[.ifNoneMatch] == "\"e\"")
        #expect(origin.requests.last?.headerFields[.cacheControl] == "max-age=0")
        #expect(try await client.send(.get("fixed").cachePolicy(.revalidate)).cacheOutcome == .hit)
        #expect(origin.count == 4)
    }

    @Test("the observer sees every event, and Cache-Status reads back as the outcome")
    func observerAndStatus() async throws {
        let clock = ManualClock()
        let events = Locked<[String]>([])
        let origin = ScriptedOrigin { _, _ in
            ScriptedOrigin.response(.ok, ["Cache-Control": "max-age=100"], date: clock.now)
        }
        let (client, _) = makeClient(origin, clock: clock) { configuration in
            configuration.observer = { event in events.withLock { $0.append(event.description) } }
        }
        let first = try await client.send(.get("a"))
        let second = try await client.send(.get("a"))
        #expect(first.headerFields[.cacheStatus] == "Heron; fwd=uri-miss; fwd-status=200; stored")
        #expect(second.headerFields[.cacheStatus] == "Heron; hit; ttl=100")
        #expect(
            events.withLock { $0 } == [
                "served miss https://api.example.com/a", "stored https://api.example.com/a",
                "served hit https://api.example.com/a",
            ])
    }

    @Test("stale-if-error from the request serves the stale response on a 503 (RFC 5861 §4)")
    func staleIfErrorFromRequest() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { _, number in
            number == 1
                ? ScriptedOrigin.response(.ok, ["Cache-Control": "max-age=1"], body: "old", date: clock.now)
                : ScriptedOrigin.response(.serviceUnavailable, body: "down", date: clock.now)
        }
        let (client, _) = makeClient(origin, clock: clock)
        _ = try await client.send(.get("a"))
        clock.advance(30)
        #expect(try await client.send(.get("a")).status == .serviceUnavailable)
        let stale = try await client.send(.get("a").header(.cacheControl, "stale-if-error=60"))
        #expect(stale.status == .ok && stale.text == "old" && stale.cacheOutcome == .staleIfError)
    }

    @Test("interceptors and response validation see a hit like any response")
    func interceptorsSeeHits() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { _, _ in
            ScriptedOrigin.response(.notFound, ["Cache-Control": "max-age=60"], body: "gone", date: clock.now)
        }
        var configuration = CacheConfiguration()
        configuration.clock = clock.cacheClock
        let cache = CachingTransport(wrapping: origin, configuration: configuration)
        let client = Client(baseURL: base, transport: cache, interceptors: [ResponseValidation()], retry: .none)
        for expected in [CacheOutcome.miss, .hit] {
            do {
                _ = try await client.send(.get("a"))
                Issue.record("a 404 passed validation")
            } catch let error as ClientError {
                #expect(error.code == .validationFailed)
                #expect(error.response.map { CacheStatusValue.outcome(in: $0.headerFields, name: "Heron") } == expected)
            }
        }
        #expect(origin.count == 1)
    }
}

/// A storage whose bodies are always gone, as if evicted right after each lookup.
final class BodylessStorage: CacheStorage {
    let base = MemoryCacheStorage()

    func entries(for key: CacheKey) throws -> [CacheEntry] { base.entries(for: key) }
    func body(of entry: CacheEntry) throws -> HTTPBody? { nil }
    func makeWriter(for entry: CacheEntry, replacing: [String]) throws -> any CacheBodyWriter {
        base.makeWriter(for: entry, replacing: replacing)
    }
    func update(_ entry: CacheEntry) throws { base.update(entry) }
    func remove(_ ids: [String], for key: CacheKey) throws { base.remove(ids, for: key) }
    func removeAll(partition: String?) throws { base.removeAll(partition: partition) }
}
