import Foundation
import HTTPCore
import Testing

@testable import HTTPCache
@testable import HTTPClient

@Suite("CachingTransport: storing, freshness and validation")
struct CachingTransportTests: CachingClientSuite {
    let base = URL(string: "https://api.example.com")!

    @Test("a fresh response is served from the cache with an Age that grows with the clock")
    func freshHit() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { _, number in
            ScriptedOrigin.response(.ok, ["Cache-Control": "max-age=60"], body: "v\(number)", date: clock.now)
        }
        let (client, cache) = makeClient(origin, clock: clock)
        let first = try await client.send(.get("a"))
        clock.advance(10)
        let second = try await client.send(.get("a"))
        #expect(first.cacheOutcome == .miss)
        #expect(second.cacheOutcome == .hit)
        #expect(second.text == "v1")
        #expect(second.headerFields[.age] == "10")
        #expect(origin.count == 1)
        #expect(cache.counters.hits == 1 && cache.counters.misses == 1 && cache.counters.stores == 1)
    }

    @Test("the full URI with its query is the key: ?a=1 is never served for ?a=2")
    func queryIsPartOfTheKey() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { request, _ in
            ScriptedOrigin.response(
                .ok, ["Cache-Control": "max-age=60"], body: request.url.query ?? "", date: clock.now)
        }
        let (client, _) = makeClient(origin, clock: clock)
        #expect(try await client.send(.get("q?a=1")).text == "a=1")
        #expect(try await client.send(.get("q?a=2")).text == "a=2")
        #expect(try await client.send(.get("q?a=1")).cacheOutcome == .hit)
        #expect(origin.count == 2)
    }

    @Test("the upstream Age counts: max-age=3600 with Age 7200 is stale at once (RFC 9111 §4.2.3)")
    func upstreamAge() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { _, _ in
            ScriptedOrigin.response(.ok, ["Cache-Control": "max-age=3600", "Age": "7200"], date: clock.now)
        }
        let (client, _) = makeClient(origin, clock: clock)
        _ = try await client.send(.get("a"))
        #expect(try await client.send(.get("a")).cacheOutcome == .miss)
        #expect(origin.count == 2)
    }

    @Test("a stale response is validated with If-None-Match, and a 304 freshens its fields (RFC 9111 §4.3.4)")
    func revalidation() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { request, number in
            if number == 1 {
                return ScriptedOrigin.response(
                    .ok, ["Cache-Control": "max-age=10", "ETag": "\"v1\"", "X-Version": "1"], body: "payload",
                    date: clock.now)
            }
            #expect(request.headerFields[.ifNoneMatch] == "\"v1\"")
            return ScriptedOrigin.response(
                .notModified, ["Cache-Control": "max-age=100", "ETag": "\"v1\"", "X-Version": "2"], date: clock.now)
        }
        let (client, _) = makeClient(origin, clock: clock)
        _ = try await client.send(.get("a"))
        clock.advance(20)
        let validated = try await client.send(.get("a"))
        #expect(validated.status == .ok)
        #expect(validated.text == "payload")
        #expect(validated.headerFields[try HTTPFieldName("X-Version")] == "2")
        #expect(validated.cacheOutcome == .revalidated)
        clock.advance(50)
        #expect(try await client.send(.get("a")).cacheOutcome == .hit)  // fresh for 100 s from the 304
        #expect(origin.count == 2)
    }

    @Test("an invalid Expires means already expired; a valid one gives Expires − Date of freshness")
    func expires() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { request, _ in
            let expires = request.url.path == "/bad" ? "0" : HTTPDate.format(clock.now.addingTimeInterval(100))
            return ScriptedOrigin.response(.ok, ["Expires": expires], date: clock.now)
        }
        let (client, _) = makeClient(origin, clock: clock)
        _ = try await client.send(.get("bad"))
        _ = try await client.send(.get("good"))
        clock.advance(50)
        #expect(try await client.send(.get("bad")).cacheOutcome == .miss)
        #expect(try await client.send(.get("good")).cacheOutcome == .hit)
        clock.advance(60)
        #expect(try await client.send(.get("good")).cacheOutcome == .miss)
    }

    @Test("heuristic freshness is 10% of Date − Last-Modified, for a heuristically cacheable status only")
    func heuristic() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { request, _ in
            let status: HTTPStatus = request.url.path == "/created" ? .created : .notFound
            return ScriptedOrigin.response(
                status, ["Last-Modified": HTTPDate.format(clock.now.addingTimeInterval(-1000))], date: clock.now)
        }
        let (client, _) = makeClient(origin, clock: clock)
        _ = try await client.send(.get("missing"))
        _ = try await client.send(.get("created"))
        clock.advance(90)
        #expect(try await client.send(.get("missing")).cacheOutcome == .hit)  // 404: fresh for 100 s
        #expect(try await client.send(.get("created")).cacheOutcome == .miss)  // 201: never heuristic
        clock.advance(20)
        #expect(try await client.send(.get("missing")).cacheOutcome != .hit)
    }

    @Test("no-store is never stored; must-understand with a known status overrides it (RFC 9111 §5.2.2.3)")
    func noStore() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { request, _ in
            let control = request.url.path == "/mu" ? "max-age=60, no-store, must-understand" : "max-age=60, no-store"
            return ScriptedOrigin.response(.ok, ["Cache-Control": control], date: clock.now)
        }
        let (client, _) = makeClient(origin, clock: clock)
        _ = try await client.send(.get("plain"))
        _ = try await client.send(.get("mu"))
        #expect(try await client.send(.get("plain")).cacheOutcome == .miss)
        #expect(try await client.send(.get("mu")).cacheOutcome == .hit)
    }

    @Test("Connection-listed and proxy fields are not stored; no-cache=\"f\" fields are left out of hits")
    func storedFields() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { _, _ in
            ScriptedOrigin.response(
                .ok,
                [
                    "Cache-Control": "max-age=60, no-cache=\"X-Secret\"", "Connection": "X-Hop", "X-Hop": "1",
                    "Proxy-Authenticate": "Basic", "X-Secret": "s", "X-Kept": "k",
                ], date: clock.now)
        }
        let (client, _) = makeClient(origin, clock: clock)
        _ = try await client.send(.get("a"))
        let hit = try await client.send(.get("a"))
        #expect(hit.cacheOutcome == .hit)
        #expect(hit.headerFields[try HTTPFieldName("X-Kept")] == "k")
        for name in ["X-Hop", "Connection", "Proxy-Authenticate", "X-Secret"] {
            #expect(hit.headerFields[try HTTPFieldName(name)] == nil, "\(name)")
        }
    }

    @Test("Vary keeps one variant per selecting value, normalised (RFC 9111 §4.1)")
    func vary() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { request, _ in
            ScriptedOrigin.response(
                .ok, ["Cache-Control": "max-age=60", "Vary": "Accept-Language"],
                body: request.headerFields[.acceptLanguage] ?? "none", date: clock.now)
        }
        let (client, _) = makeClient(origin, clock: clock)
        _ = try await client.send(.get("a").header(.acceptLanguage, "en, de"))
        _ = try await client.send(.get("a").header(.acceptLanguage, "fr"))
        let german = try await client.send(.get("a").header(.acceptLanguage, "DE,en"))
        let french = try await client.send(.get("a").header(.acceptLanguage, "fr"))
        let none = try await client.send(.get("a"))
        #expect(german.cacheOutcome == .hit && german.text == "en, de")
        #expect(french.cacheOutcome == .hit && french.text == "fr")
        #expect(none.cacheOutcome == .miss)
        #expect(origin.count == 3)
    }

    @Test("a successful POST invalidates the URI and its same-origin Location (RFC 9111 §4.4); a failed one does not")
    func invalidation() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { request, _ in
            if request.method == .post {
                let failed = request.url.path == "/fail"
                return ScriptedOrigin.response(
                    failed ? .internalServerError : .created, ["Location": "/other"], date: clock.now)
            }
            return ScriptedOrigin.response(.ok, ["Cache-Control": "max-age=60"], date: clock.now)
        }
        let (client, cache) = makeClient(origin, clock: clock)
        for path in ["items", "other", "fail"] { _ = try await client.send(.get(path)) }
        _ = try await client.send(.post("items"))
        _ = try await client.send(.post("fail"))
        #expect(try await client.send(.get("items")).cacheOutcome == .miss)
        #expect(try await client.send(.get("other")).cacheOutcome == .miss)
        #expect(try await client.send(.get("fail")).cacheOutcome == .hit)
        #expect(cache.counters.invalidations == 2)
    }

    @Test("a POST by one user invalidates the URI and its Location in every partition (RFC 9111 §4.4)")
    func invalidationReachesEveryPartition() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { request, _ in
            if request.method == .post {
                return ScriptedOrigin.response(.created, ["Content-Location": "/other"], date: clock.now)
            }
            return ScriptedOrigin.response(.ok, ["Cache-Control": "private, max-age=60"], date: clock.now)
        }
        let (client, cache) = makeClient(origin, clock: clock)
        for user in ["Bearer ada", "Bearer bob"] {
            for path in ["items", "other", "kept"] {
                _ = try await client.send(.get(path).header(.authorization, user))
            }
        }
        _ = try await client.send(.post("items").header(.authorization, "Bearer ada"))
        for user in ["Bearer ada", "Bearer bob"] {
            #expect(try await client.send(.get("items").header(.authorization, user)).cacheOutcome == .miss)
            #expect(try await client.send(.get("other").header(.authorization, user)).cacheOutcome == .miss)
            #expect(try await client.send(.get("kept").header(.authorization, user)).cacheOutcome == .hit)
        }
        #expect(cache.counters.invalidations == 2)
    }

    @Test("at sign-out, removeAll(keepingPartition:) drops the partitions of every token a user had")
    func signOutAfterTokenRotation() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { _, _ in
            ScriptedOrigin.response(.ok, ["Cache-Control": "private, max-age=600"], date: clock.now)
        }
        let (client, cache) = makeClient(origin, clock: clock)
        for token in ["Bearer t1", "Bearer t2", "Bearer t3"] {
            _ = try await client.send(.get("me").header(.authorization, token))
        }
        _ = try await client.send(.get("public"))
        try cache.removeAll(keepingPartition: "")
        for token in ["Bearer t1", "Bearer t2", "Bearer t3"] {
            #expect(try await client.send(.get("me").header(.authorization, token)).cacheOutcome == .miss)
        }
        #expect(try await client.send(.get("public")).cacheOutcome == .hit)
    }

    @Test(
        "a GET with a body, If-Match, If-Unmodified-Since or If-Range is not stored for later plain GETs",
        arguments: ["body", "If-Match", "If-Unmodified-Since", "If-Range"])
    func conditionalNotStored(_ variant: String) async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { _, number in
            ScriptedOrigin.response(
                .ok, ["Cache-Control": "max-age=60", "ETag": "\"e\""], body: "v\(number)", date: clock.now)
        }
        let (client, cache) = makeClient(origin, clock: clock)
        var request = HTTPRequest.get("a")
        if variant == "body" {
            request.body = HTTPBody("{\"filter\": 1}")
        } else {
            request = request.header(variant, "\"e\"")
        }
        #expect(try await client.send(request).text == "v1")
        let plain = try await client.send(.get("a"))
        #expect(plain.text == "v2")
        #expect(plain.cacheOutcome == .miss)
        #expect(cache.counters.stores == 1)
    }

    @Test("a 304 without Date dates the freshened response when received (RFC 9110 §6.6.1)")
    func notModifiedWithoutDate() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { _, number in
            if number == 1 {
                return ScriptedOrigin.response(
                    .ok, ["Cache-Control": "max-age=10", "ETag": "\"e\""], body: "kept", date: clock.now)
            }
            return ScriptedOrigin.response(.notModified, ["Cache-Control": "max-age=10", "ETag": "\"e\""])
        }
        let (client, _) = makeClient(origin, clock: clock)
        _ = try await client.send(.get("a"))
        clock.advance(20)
        let validated = try await client.send(.get("a"))
        #expect(validated.cacheOutcome == .revalidated)
        #expect(validated.headerFields[.date] == HTTPDate.format(clock.now))
        clock.advance(5)
        let hit = try await client.send(.get("a"))
        #expect(hit.cacheOutcome == .hit && hit.text == "kept")
        #expect(origin.count == 2)
    }

    @Test("a redirect whose body is shorter than its Content-Length is passed on but not stored")
    func shortRedirectBodyNotStored() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { _, _ in
            var response = ScriptedOrigin.response(
                .movedPermanently, ["Cache-Control": "max-age=600", "Location": "/b", "Content-Length": "10"],
                date: clock.now)
            // The body stream ends whole at its own length, 5 bytes short of Content-Length.
            response.body = HTTPBody(Data("moved".utf8))
            return response
        }
        var configuration = CacheConfiguration()
        configuration.clock = clock.cacheClock
        let cache = CachingTransport(wrapping: origin, configuration: configuration)
        let request = HTTPRequest(method: .get, url: URL(string: "https://api.example.com/a")!)
        let first = try await cache.send(request, options: TransportOptions())
        #expect(first.head.status.code == 301)
        _ = try await cache.send(request, options: TransportOptions())
        #expect(origin.count == 2)
        #expect(cache.counters.stores == 0)
    }

    @Test("a HEAD is answered from a stored GET, without a body")
    func headFromGet() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { _, _ in
            ScriptedOrigin.response(.ok, ["Cache-Control": "max-age=60"], body: "full", date: clock.now)
        }
        let (client, _) = makeClient(origin, clock: clock)
        _ = try await client.send(.get("a"))
        let head = try await client.send(HTTPRequest(method: .head, url: URL(string: "a")!))
        #expect(head.cacheOutcome == .hit)
        #expect(head.body.isEmpty)
        #expect(origin.count == 1)
    }

    @Test("a body cut short is never stored")
    func truncatedBody() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { _, number in
            var response = ScriptedOrigin.response(
                .ok, ["Cache-Control": "max-age=60", "Content-Length": "10"], date: clock.now)
            if number == 1 {
                let chunks = AsyncThrowingStream<Data, any Error> { continuation in
                    continuation.yield(Data("12345".utf8))
                    continuation.finish(throwing: ClientError(.truncatedBody, "cut"))
                }
                response.body = HTTPBody(stream: chunks, length: .known(10))
            } else {
                response.body = HTTPBody("0123456789")
            }
            return response
        }
        let (client, cache) = makeClient(origin, clock: clock)
        await #expect(throws: ClientError.self) { _ = try await client.send(.get("a")) }
        #expect(cache.counters.stores == 0)
        #expect(try await client.send(.get("a")).cacheOutcome == .miss)
        #expect(try await client.send(.get("a")).text == "0123456789")
    }

    @Test("responses of two Authorization values live in two partitions; removeAll(partition:) empties one")
    func partitions() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { request, _ in
            ScriptedOrigin.response(
                .ok, ["Cache-Control": "private, max-age=60"], body: request.headerFields[.authorization] ?? "",
                date: clock.now)
        }
        let (client, cache) = makeClient(origin, clock: clock)
        _ = try await client.send(.get("me").header(.authorization, "Bearer alice"))
        let bob = try await client.send(.get("me").header(.authorization, "Bearer bob"))
        #expect(bob.text == "Bearer bob" && bob.cacheOutcome == .miss)
        let alice = HTTPRequest.get("me").header(.authorization, "Bearer alice")
        #expect(try await client.send(alice).cacheOutcome == .hit)
        let partition = CachePartition.byCredentials.name(
            for: HTTPRequest(url: base, headerFields: try HTTPFields(["Authorization": "Bearer alice"])))
        try cache.removeAll(partition: partition)
        #expect(try await client.send(alice).cacheOutcome == .miss)
        #expect(try await client.send(.get("me").header(.authorization, "Bearer bob")).cacheOutcome == .hit)
    }

    @Test("one byte range is cut from a fresh stored 200; a 206 from the origin is never stored")
    func ranges() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { request, _ in
            if request.headerFields.contains(.range) {
                return ScriptedOrigin.response(
                    .partialContent, ["Cache-Control": "max-age=60", "Content-Range": "bytes 0-1/10"], body: "01",
                    date: clock.now)
            }
            return ScriptedOrigin.response(.ok, ["Cache-Control": "max-age=60"], body: "0123456789", date: clock.now)
        }
        let (client, _) = makeClient(origin, clock: clock)
        _ = try await client.send(.get("partial").header(.range, "bytes=0-1"))
        #expect(try await client.send(.get("partial")).cacheOutcome == .miss)  // the 206 was not stored
        let middle = try await client.send(.get("partial").header(.range, "bytes=3-5"))
        let suffix = try await client.send(.get("partial").header(.range, "bytes=-2"))
        #expect(middle.status == .partialContent && middle.text == "345")
        #expect(middle.headerFields[.contentRange] == "bytes 3-5/10")
        #expect(suffix.text == "89")
        #expect(origin.count == 2)
        let unsatisfiable = try await client.send(.get("partial").header(.range, "bytes=20-").cachePolicy(.cacheOnly))
        #expect(unsatisfiable.status == .gatewayTimeout)
    }

    @Test("a 200 to a HEAD freshens the stored GET it matches (RFC 9111 §4.3.5)")
    func headFreshens() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { request, number in
            let control = number == 1 ? "max-age=10" : "max-age=600"
            return ScriptedOrigin.response(
                .ok, ["Cache-Control": control, "ETag": "\"e\"", "X-Round": "\(number)"], body: "full",
                date: clock.now)
        }
        let (client, _) = makeClient(origin, clock: clock)
        _ = try await client.send(.get("a"))
        clock.advance(20)
        let head = try await client.send(HTTPRequest(method: .head, url: URL(string: "a")!).cachePolicy(.reload))
        #expect(head.headerFields[try HTTPFieldName("X-Round")] == "2")
        clock.advance(100)
        let hit = try await client.send(.get("a"))
        #expect(hit.cacheOutcome == .hit && hit.text == "full")
        #expect(origin.count == 2)
    }

    @Test("the caller's own conditional request passes through; its 304 reaches the caller")
    func callerConditional() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { request, _ in
            if request.headerFields[.ifNoneMatch] == "\"e\"" {
                return ScriptedOrigin.response(.notModified, ["ETag": "\"e\""], date: clock.now)
            }
            return ScriptedOrigin.response(.ok, ["Cache-Control": "max-age=60", "ETag": "\"e\""], date: clock.now)
        }
        let (client, _) = makeClient(origin, clock: clock)
        _ = try await client.send(.get("a"))
        let conditional = try await client.send(.get("a").header(.ifNoneMatch, "\"e\""))
        #expect(conditional.status == .notModified)
        #expect(conditional.cacheOutcome == .bypass)
        #expect(origin.count == 2)
    }

    @Test("a stored 301 is followed without a request: redirects are cached per hop")
    func redirectsPerHop() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { request, _ in
            if request.url.path == "/old" {
                return ScriptedOrigin.response(
                    .movedPermanently, ["Cache-Control": "max-age=3600", "Location": "/new"], date: clock.now)
            }
            return ScriptedOrigin.response(.ok, ["Cache-Control": "max-age=60"], body: "moved here", date: clock.now)
        }
        let (client, cache) = makeClient(origin, clock: clock)
        _ = try await client.send(.get("old"))
        clock.advance(120)  // /new is stale now, /old still fresh
        let again = try await client.send(.get("old"))
        #expect(again.text == "moved here")
        #expect(origin.requests.map(\.url.path) == ["/old", "/new", "/new"])
        #expect(cache.counters.hits == 1)
    }

    @Test("the memory store evicts the least recently used entry past its capacity")
    func memoryEviction() async throws {
        let clock = ManualClock()
        let body = String(repeating: "x", count: 1000)
        let origin = ScriptedOrigin { _, _ in
            ScriptedOrigin.response(.ok, ["Cache-Control": "max-age=600"], body: body, date: clock.now)
        }
        let storage = MemoryCacheStorage(capacity: 3000)
        var configuration = CacheConfiguration()
        configuration.clock = clock.cacheClock
        let cache = CachingTransport(wrapping: origin, storage: storage, configuration: configuration)
        let client = Client(baseURL: base, transport: cache, retry: .none)
        _ = try await client.send(.get("a"))
        _ = try await client.send(.get("b"))
        #expect(try await client.send(.get("a")).cacheOutcome == .hit)
        _ = try await client.send(.get("c"))
        #expect(storage.count == 2 && storage.totalCost <= 3000)
        #expect(try await client.send(.get("a")).cacheOutcome == .hit)
        #expect(try await client.send(.get("b")).cacheOutcome == .miss)
    }
}
