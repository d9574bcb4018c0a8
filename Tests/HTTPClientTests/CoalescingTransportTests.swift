import Foundation
import HTTPClientTesting
import HTTPCore
import TestSupport
import Testing

@testable import HTTPClient

@Suite("Coalescing identical GETs")
struct CoalescingTransportTests {
    @Test("20 concurrent identical GETs make one server hit, and every caller gets the body")
    func twentyCallersOneHit() async throws {
        let fault = try TestServers.faultServer()
        let client = Client(baseURL: fault, transport: CoalescingTransport(wrapping: URLSessionTransport()))
        let key = "coalesce-\(UUID().uuidString)"
        let bodies = try await withThrowingTaskGroup(of: Data.self) { group in
            for _ in 0..<20 {
                group.addTask { try await client.send(.get("delay?seconds=0.5&key=\(key)")).body }
            }
            return try await group.reduce(into: [Data]()) { $0.append($1) }
        }
        #expect(bodies.count == 20)
        #expect(Set(bodies).count == 1)
        let count = try JSONSerialization.jsonObject(with: try await client.send(.get("count?key=\(key)")).body)
        #expect((count as? [String: Any])?["count"] as? Int == 1)
    }

    @Test("different key fields (another user's Authorization) are not shared; POSTs and streams pass through")
    func identity() async throws {
        let stub = StubTransport(fallback: .status(.ok, body: Data("x".utf8), delay: .milliseconds(200)))
        let client = Client(
            baseURL: URL(string: "https://api.example.com")!, transport: CoalescingTransport(wrapping: stub))
        async let a = client.send(.get("me").header(.authorization, "Bearer alice"))
        async let b = client.send(.get("me").header(.authorization, "Bearer bob"))
        async let c = client.send(.get("me").header(.authorization, "Bearer alice"))
        async let d = client.send(.post("me"))
        async let e = client.send(.post("me"))
        _ = try await (a, b, c, d, e)
        #expect(stub.requests.count == 4)
        let streamed = try await client.stream(.get("me"))
        for try await _ in streamed.body {}
        #expect(stub.requests.count == 5)
    }

    @Test("read-your-writes: a GET after the caller's own completed PUT does not join a GET begun before it")
    func writeCutsOffJoining() async throws {
        let stub = StubTransport()
        // In order of arrival: the slow GET begun before the write, the PUT, the GET after it.
        stub.enqueue(
            .status(.ok, body: Data("before the write".utf8), delay: .milliseconds(600)),
            .status(.noContent), .status(.ok, body: Data("after the write".utf8)))
        let client = Client(
            baseURL: URL(string: "https://api.example.com")!, transport: CoalescingTransport(wrapping: stub),
            retry: .none)
        async let early = client.send(.get("profile"))
        for _ in 0..<200 where stub.requests.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        _ = try await client.send(.put("profile").body(HTTPBody("new name")))
        let late = try await client.send(.get("profile"))
        #expect(String(decoding: late.body, as: UTF8.self) == "after the write")
        #expect(String(decoding: try await early.body, as: UTF8.self) == "before the write")
        #expect(stub.requests.map(\.method) == [.get, .put, .get])
    }

    @Test("GETs of http://EXAMPLE.com:80/x and http://example.com/x are one request (RFC 9110 §4.2.3)")
    func equivalentURLsShareARequest() async throws {
        let stub = StubTransport(fallback: .status(.ok, body: Data("x".utf8), delay: .milliseconds(300)))
        let coalescing = CoalescingTransport(wrapping: stub)
        let spelled = Client(baseURL: URL(string: "http://EXAMPLE.com:80")!, transport: coalescing)
        let plain = Client(baseURL: URL(string: "http://example.com")!, transport: coalescing)
        async let a = spelled.send(.get("x"))
        async let b = plain.send(.get("x"))
        async let c = plain.send(.get("y"))
        async let d = Client(baseURL: URL(string: "http://example.com:8080")!, transport: coalescing).send(.get("x"))
        _ = try await (a, b, c, d)
        // a and b are one request; another path and another port are requests of their own.
        #expect(stub.requests.count == 3)
    }

    @Test("a write to http://Example.com:80/p cuts off a GET of http://example.com/p begun before it")
    func writeCutsOffEquivalentURL() async throws {
        let stub = StubTransport()
        stub.enqueue(
            .status(.ok, body: Data("before the write".utf8), delay: .milliseconds(600)),
            .status(.noContent), .status(.ok, body: Data("after the write".utf8)))
        let coalescing = CoalescingTransport(wrapping: stub)
        let reader = Client(baseURL: URL(string: "http://example.com")!, transport: coalescing, retry: .none)
        let writer = Client(baseURL: URL(string: "HTTP://Example.COM:80")!, transport: coalescing, retry: .none)
        async let early = reader.send(.get("profile"))
        for _ in 0..<200 where stub.requests.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        _ = try await writer.send(.put("profile").body(HTTPBody("new name")))
        let late = try await reader.send(.get("profile"))
        #expect(String(decoding: late.body, as: UTF8.self) == "after the write")
        #expect(String(decoding: try await early.body, as: UTF8.self) == "before the write")
        #expect(stub.requests.map(\.method) == [.get, .put, .get])
    }

    @Test(
        "equivalence keys: scheme and host in any case and the default port written or not are one URL",
        arguments: [
            ("http://EXAMPLE.com:80/x", "http://example.com/x"),
            ("HTTPS://Example.com:443/x?q=1", "https://example.com/x?q=1"),
            ("http://example.com", "http://example.com/"), ("http://example.com/x#part", "http://example.com/x"),
            ("HTTP://Example.com/a%20b?x=%2F&y", "http://example.com/a%20b?x=%2F&y"),
            ("http://example.com:80?q", "http://example.com/?q"), ("https://[::1]:443/x", "https://[::1]/x"),
            ("http://example.com:080/x", "http://example.com/x"),
        ])
    func equivalenceKey(_ written: String, _ normal: String) throws {
        let writtenURL = try #require(URL(string: written))
        let normalURL = try #require(URL(string: normal))
        #expect(writtenURL.equivalenceKey == normal)
        #expect(normalURL.equivalenceKey == normal)
        // The key read from the bytes of a URL already normal is the one its components give.
        #expect(normalURL.equivalenceComponents?.string == normal)
    }

    @Test(
        "equivalence keys keep what tells URLs apart: another port, path case, query",
        arguments: [
            ("http://example.com:8080/x", "http://example.com/x"),
            ("https://example.com:80/x", "https://example.com/x"),
            ("http://example.com/X", "http://example.com/x"), ("http://example.com/x?a=1", "http://example.com/x?a=2"),
            ("http://example.com:443/x", "https://example.com/x"),
        ])
    func distinctKeys(_ one: String, _ other: String) throws {
        #expect(try #require(URL(string: one)).equivalenceKey != (try #require(URL(string: other)).equivalenceKey))
    }

    @Test("the URLs a write changes: its target and the same-origin Location and Content-Location")
    func urlsAWriteChanges() throws {
        let request = HTTPRequest(method: .post, url: URL(string: "https://api.example.com/items")!)
        let answer = HTTPResponse(
            status: .created,
            headerFields: [
                try HTTPField(name: .location, value: "/items/7"),
                try HTTPField(name: "Content-Location", value: "https://other.example/items/7"),
            ])
        #expect(
            request.urlsChanged(answeredBy: answer).map(\.absoluteString) == [
                "https://api.example.com/items", "https://api.example.com/items/7",
            ])
        #expect(request.urlsChanged(answeredBy: nil).map(\.absoluteString) == ["https://api.example.com/items"])
    }

    @Test("every caller gets the shared error")
    func sharedError() async throws {
        let stub = StubTransport(
            fallback: .failure(
                ClientError(.connectionLost, "reset", request: HTTPRequest(url: URL(string: "https://x.example")!)),
                delay: .milliseconds(100)))
        let client = Client(
            baseURL: URL(string: "https://api.example.com")!, transport: CoalescingTransport(wrapping: stub),
            retry: .none)
        let codes = await withTaskGroup(of: ClientError.Code?.self) { group in
            for _ in 0..<5 {
                group.addTask {
                    do {
                        _ = try await client.send(.get("flaky"))
                        return nil
                    } catch { return (error as? ClientError)?.code }
                }
            }
            return await group.reduce(into: [ClientError.Code?]()) { $0.append($1) }
        }
        #expect(codes == Array(repeating: .connectionLost, count: 5))
        #expect(stub.requests.count == 1)
    }

    @Test("a caller that cancels does not cancel the others; the last one to cancel does")
    func cancellation() async throws {
        let fault = try TestServers.faultServer()
        let client = Client(baseURL: fault, transport: CoalescingTransport(wrapping: URLSessionTransport()))
        let key = "coalesce-cancel-\(UUID().uuidString)"
        let first = Task { try await client.send(.get("delay?seconds=0.6&key=\(key)")) }
        try await Task.sleep(for: .milliseconds(50))
        let second = Task { try await client.send(.get("delay?seconds=0.6&key=\(key)")) }
        try await Task.sleep(for: .milliseconds(50))
        first.cancel()
        if case .failure(let error as ClientError) = await first.result {
            #expect(error.code == .cancelled)
        } else {
            Issue.record("the cancelled caller got a response")
        }
        #expect(try await second.value.status == .ok)

        // Both leave: the shared request is cancelled, and a new caller starts a new one.
        let stub = StubTransport(fallback: .status(.ok, delay: .seconds(120)))
        let stubbed = Client(
            baseURL: URL(string: "https://api.example.com")!, transport: CoalescingTransport(wrapping: stub))
        let one = Task { try await stubbed.send(.get("slow")) }
        let two = Task { try await stubbed.send(.get("slow")) }
        try await Task.sleep(for: .milliseconds(100))
        let clock = ContinuousClock()
        let start = clock.now
        one.cancel()
        two.cancel()
        _ = await (one.result, two.result)
        #expect(clock.now - start < .seconds(40))  // far under the stub's 120 s
        #expect(stub.requests.count == 1)
        stub.enqueue(.status(.ok))
        #expect(try await stubbed.send(.get("slow")).status == .ok)
        #expect(stub.requests.count == 2)
    }

    @Test("each caller's own timeout holds for it alone")
    func ownTimeouts() async throws {
        let stub = StubTransport(fallback: .status(.ok, delay: .milliseconds(600)))
        let client = Client(
            baseURL: URL(string: "https://api.example.com")!, transport: CoalescingTransport(wrapping: stub),
            retry: .none)
        let impatient = Task { try await client.send(.get("x").timeout(.milliseconds(150))) }
        // 60 s: a limit that must not pass stays far above the pool's busiest spells in the suite.
        let patient = Task { try await client.send(.get("x").timeout(.seconds(60))) }
        if case .failure(let error as ClientError) = await impatient.result {
            #expect(error.code == .timedOut)
        } else {
            Issue.record("expected a timeout")
        }
        #expect(try await patient.value.status == .ok)
        #expect(stub.requests.count == 1)
    }

    @Test("requests differing in any field but tracing ids are not shared; range and conditional requests never are")
    func fieldsInTheIdentity() async throws {
        let stub = StubTransport(fallback: .status(.ok, body: Data("x".utf8), delay: .milliseconds(200)))
        let client = Client(
            baseURL: URL(string: "https://api.example.com")!, transport: CoalescingTransport(wrapping: stub))
        async let a = client.send(.get("r").header("X-API-Key", "tenant-a").header("traceparent", "00-aa-01-01"))
        async let b = client.send(.get("r").header("X-API-Key", "tenant-b"))
        async let c = client.send(.get("r").header("X-API-Key", "tenant-a").header("traceparent", "00-bb-02-01"))
        async let d = client.send(.get("r").header(.range, "bytes=0-9"))
        async let e = client.send(.get("r").header(.range, "bytes=0-9"))
        async let f = client.send(.get("r").header(.ifNoneMatch, "\"v1\""))
        async let g = client.send(.get("r").header(.ifNoneMatch, "\"v1\""))
        _ = try await (a, b, c, d, e, f, g)
        // a and c are one request; b, d, e, f and g each their own.
        #expect(stub.requests.count == 6)
    }
}
