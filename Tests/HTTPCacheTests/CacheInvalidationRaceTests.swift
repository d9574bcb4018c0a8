import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import HTTPCache
@testable import HTTPClient

/// A gate tasks wait at until it is opened, once; waiting at an open gate returns at once.
final class Gate: Sendable {
    private struct State {
        var open = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let passed = state.withLock { state in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if passed { continuation.resume() }
        }
    }
}

/// An origin in memory that holds one request: request number `held` opens ``arrived`` when
/// it comes in and is answered only once the test opens ``release``. The others are answered
/// at once.
final class HoldingOrigin: ClientTransport {
    private let answer: ScriptedOrigin.Answer
    private let log = Locked<[HTTPRequest]>([])
    private let held: Int
    let arrived = Gate()
    let release = Gate()

    init(holding held: Int, _ answer: @escaping ScriptedOrigin.Answer) {
        self.held = held
        self.answer = answer
    }

    var requests: [HTTPRequest] { log.withLock { $0 } }

    func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
        let number = log.withLock { log in
            log.append(request)
            return log.count
        }
        if number == held {
            arrived.open()
            await release.wait()
        }
        return try answer(request, number)
    }
}

@Suite("CachingTransport: an invalidation wins over a response requested before it (RFC 9111 §4.4)")
struct CacheInvalidationRaceTests {
    /// How the held `GET` reaches the origin: a miss, a validation of a stale entry, or a
    /// background revalidation (`stale-while-revalidate`).
    enum Path: String, CaseIterable {
        case miss, validation, background
    }

    @Test(
        "a GET sent before the caller's POST to its URI and answered after it is returned but not stored",
        arguments: CacheStorageTests.Kind.allCases, Path.allCases)
    func lateAnswerNotStored(_ kind: CacheStorageTests.Kind, _ path: Path) async throws {
        let (storage, directory) = try CacheStorageTests().makeStorage(kind)
        defer { if let directory { try? FileManager.default.removeItem(at: directory) } }
        let clock = ManualClock()
        // The held GET is the first request on a miss; after a stored first answer, the second.
        let held = path == .miss ? 1 : 2
        let origin = HoldingOrigin(holding: held) { request, number in
            if request.method == .post { return ScriptedOrigin.response(.noContent, date: clock.now) }
            let control =
                number < held ? "max-age=1, stale-while-revalidate=600" : "max-age=600"
            return ScriptedOrigin.response(
                .ok, ["Cache-Control": control, "ETag": "\"\(number)\""], body: "answer \(number)", date: clock.now)
        }
        var configuration = CacheConfiguration()
        configuration.clock = clock.cacheClock
        let cache = CachingTransport(wrapping: origin, storage: storage, configuration: configuration)
        let client = Client(baseURL: URL(string: "https://api.example.com")!, transport: cache, retry: .none)
        if path != .miss {
            _ = try await client.send(.get("items"))
            clock.advance(10)
        }
        // Validation: the stored answer must be validated (max-age=0 in the request).
        let get: HTTPRequest = path == .validation ? .get("items").header(.cacheControl, "max-age=0") : .get("items")
        let early = Task { try await client.send(get) }
        await origin.arrived.wait()
        _ = try await client.send(.post("items"))
        origin.release.open()
        let answered = try await early.value
        if path == .background {
            #expect(answered.cacheOutcome == .staleWhileRevalidate)
            await cache.backgroundRevalidationsFinished()
        } else {
            // The late answer still reaches its own caller.
            #expect(answered.text == "answer \(held)")
        }
        let after = try await client.send(.get("items"))
        #expect(after.cacheOutcome == .miss)
        #expect(after.text == "answer \(held + 2)")
        #expect(origin.requests.map(\.method) == (path == .miss ? [] : [.get]) + [.get, .post, .get])
        // Stored: the first answer when one came before the held one, and the last; never the held one.
        #expect(cache.counters.stores == (path == .miss ? 1 : 2))
    }

    @Test(
        "a POST answered while a stored body still arrives voids the store, and the cache counts it as not stored",
        arguments: CacheStorageTests.Kind.allCases)
    func invalidationWhileBodyArrives(_ kind: CacheStorageTests.Kind) async throws {
        let (storage, directory) = try CacheStorageTests().makeStorage(kind)
        defer { if let directory { try? FileManager.default.removeItem(at: directory) } }
        let clock = ManualClock()
        let (chunks, feed) = AsyncStream.makeStream(of: Data.self)
        let origin = ScriptedOrigin { request, number in
            if request.method == .post { return ScriptedOrigin.response(.noContent, date: clock.now) }
            if number == 1 {
                let head = HTTPResponse(status: .ok, headerFields: try HTTPFields(["Cache-Control": "max-age=600"]))
                return TransportResponse(head: head, body: HTTPBody(stream: chunks, length: .unknown))
            }
            return ScriptedOrigin.response(
                .ok, ["Cache-Control": "max-age=600"], body: "answer \(number)", date: clock.now)
        }
        let events = Locked<[CacheEvent.Kind]>([])
        var configuration = CacheConfiguration()
        configuration.clock = clock.cacheClock
        configuration.observer = { event in events.withLock { $0.append(event.kind) } }
        let cache = CachingTransport(wrapping: origin, storage: storage, configuration: configuration)
        let client = Client(baseURL: URL(string: "https://api.example.com")!, transport: cache, retry: .none)
        let streamed = try await client.stream(.get("items"))
        feed.yield(Data("early ".utf8))
        _ = try await client.send(.post("items"))
        feed.yield(Data("answer".utf8))
        feed.finish()
        var body = Data()
        for try await chunk in streamed.body { body.append(chunk) }
        #expect(String(decoding: body, as: UTF8.self) == "early answer")
        #expect(events.withLock { $0.contains(.notStored) && !$0.contains(.stored) })
        #expect(cache.counters.stores == 0)
        let after = try await client.send(.get("items"))
        #expect(after.cacheOutcome == .miss && after.text == "answer 3")
    }

    @Test("a GET sent after the POST's answer is stored as usual")
    func answerAfterInvalidationStored() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { request, number in
            if request.method == .post { return ScriptedOrigin.response(.noContent, date: clock.now) }
            return ScriptedOrigin.response(
                .ok, ["Cache-Control": "max-age=600"], body: "answer \(number)", date: clock.now)
        }
        var configuration = CacheConfiguration()
        configuration.clock = clock.cacheClock
        let client = Client(
            baseURL: URL(string: "https://api.example.com")!,
            transport: CachingTransport(wrapping: origin, configuration: configuration), retry: .none)
        _ = try await client.send(.get("items"))
        _ = try await client.send(.post("items"))
        #expect(try await client.send(.get("items")).cacheOutcome == .miss)
        let hit = try await client.send(.get("items"))
        #expect(hit.cacheOutcome == .hit && hit.text == "answer 3")
    }

    @Test(
        "a POST invalidates the URI however its scheme and host are cased and its default port written (RFC 9110 §4.2.3)",
        arguments: [
            ("http://example.com", "http://Example.com:80"), ("https://example.com", "HTTPS://EXAMPLE.COM:443"),
            ("http://EXAMPLE.com:80", "http://example.com"),
        ])
    func invalidationAcrossSpellings(_ stored: String, _ written: String) async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { request, _ in
            if request.method == .post {
                // The Location names another stored URI in yet another spelling.
                let location = written + "/created"
                return ScriptedOrigin.response(.created, ["Location": location], date: clock.now)
            }
            return ScriptedOrigin.response(.ok, ["Cache-Control": "max-age=600"], date: clock.now)
        }
        var configuration = CacheConfiguration()
        configuration.clock = clock.cacheClock
        let cache = CachingTransport(wrapping: origin, configuration: configuration)
        let reader = Client(baseURL: URL(string: stored)!, transport: cache, retry: .none)
        let writer = Client(baseURL: URL(string: written)!, transport: cache, retry: .none)
        for path in ["a", "created", "kept"] { _ = try await reader.send(.get(path)) }
        #expect(try await writer.send(.get("a")).cacheOutcome == .hit)
        _ = try await writer.send(.post("a"))
        #expect(try await reader.send(.get("a")).cacheOutcome == .miss)
        #expect(try await reader.send(.get("created")).cacheOutcome == .miss)
        #expect(try await reader.send(.get("kept")).cacheOutcome == .hit)
        #expect(cache.counters.invalidations == 2)
    }

    @Test("a storage of its own without removal marks compiles and stores as before")
    func storageWithoutMarks() throws {
        let storage = UnmarkedStorage()
        #expect(storage.removalMark() == 0)
        let entry = CacheEntry(
            key: CacheKey(partition: "", uri: "https://a.example/x"), head: HTTPResponse(status: .ok),
            requestTime: CacheStorageTests.time, responseTime: CacheStorageTests.time)
        let writer = try storage.makeWriter(for: entry, replacing: [], since: 7)
        try writer.commit()
        #expect(try storage.entries(for: entry.key).count == 1)
    }
}

@Suite("CachingTransport: the GET/POST/GET race of issue 42 against a real origin")
struct CacheInvalidationOriginTests {
    /// A transport that opens ``sent`` once it has handed a `GET` to the one it wraps.
    final class Signalling: ClientTransport {
        let base: any ClientTransport
        let sent = Gate()

        init(_ base: any ClientTransport) { self.base = base }

        func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
            if request.method == .get { sent.open() }
            return try await base.send(request, options: options)
        }
    }

    @Test(
        "a GET answered after 1 s with max-age=600, a POST to its URI 300 ms in, then a GET: the last one is a miss",
        arguments: CacheStorageTests.Kind.allCases)
    func delayedGetThenPost(_ kind: CacheStorageTests.Kind) async throws {
        let origin = try TestServers.cacheOrigin()
        let (storage, directory) = try CacheStorageTests().makeStorage(kind)
        defer { if let directory { try? FileManager.default.removeItem(at: directory) } }
        let id = "race-\(UUID().uuidString)"
        let answers: [[String: Any]] = [
            ["response_pause": 1, "response_headers": [["Cache-Control", "max-age=600"]], "response_body": "before"],
            ["response_status": [201, "Created"], "response_body": "posted"],
            ["response_headers": [["Cache-Control", "max-age=600"]], "response_body": "after"],
        ]
        let setup = Client(baseURL: origin, retry: .none)
        _ = try await setup.send(
            .put("config/\(id)").body(HTTPBody(try JSONSerialization.data(withJSONObject: answers))))
        let signalling = Signalling(URLSessionTransport())
        let client = Client(
            baseURL: origin, transport: CachingTransport(wrapping: signalling, storage: storage), retry: .none)
        // Req-Num picks each request's answer, whatever order the origin's threads take them in.
        let early = Task { try await client.send(.get("test/\(id)").header("Req-Num", "1")) }
        await signalling.sent.wait()
        try await Task.sleep(for: .milliseconds(300))
        _ = try await client.send(.post("test/\(id)").header("Req-Num", "2"))
        #expect(try await early.value.text == "before")
        let late = try await client.send(.get("test/\(id)").header("Req-Num", "3"))
        #expect(late.cacheOutcome == .miss)
        #expect(late.text == "after")
    }
}

/// A storage that implements only the required methods, over a memory storage.
private struct UnmarkedStorage: CacheStorage {
    let inner = MemoryCacheStorage()
    func entries(for key: CacheKey) throws -> [CacheEntry] { inner.entries(for: key) }
    func body(of entry: CacheEntry) throws -> HTTPBody? { inner.body(of: entry) }
    func makeWriter(for entry: CacheEntry, replacing: [String]) throws -> any CacheBodyWriter {
        inner.makeWriter(for: entry, replacing: replacing)
    }
    func update(_ entry: CacheEntry) throws { inner.update(entry) }
    func remove(_ ids: [String], for key: CacheKey) throws { inner.remove(ids, for: key) }
    func removeAll(partition: String?) throws { inner.removeAll(partition: partition) }
}
