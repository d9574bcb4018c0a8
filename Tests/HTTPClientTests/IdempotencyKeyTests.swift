import Foundation
import HTTPClientTesting
import HTTPCore
import TestSupport
import Testing

@testable import HTTPClient

@Suite("Idempotency keys")
struct IdempotencyKeyTests {
    @Test(
        "a POST reset on its first attempt is retried with the same key: the server sees key and body twice, identical")
    func resetPostRetriedWithTheSameKey() async throws {
        let client = Client(
            baseURL: try TestServers.faultServer(), interceptors: [IdempotencyKey()],
            retry: [.transportErrors(max: 2), .backoff(.constant(0.01), jitter: .none)])
        let key = "idem-\(UUID().uuidString)"
        let body = Data((0..<50_000).map { UInt8($0 % 251) })
        let response = try await client.send(
            .post("flaky-record?key=\(key)&fail=1").body(HTTPBody(body), contentType: .octetStream))
        #expect(response.status == .ok)
        #expect(response.metrics.attempts.map(\.failure) == ["connectionLost", nil])
        let recorded = try await client.send(.get("recorded?key=\(key)")).body
        let requests = try #require(
            (try JSONSerialization.jsonObject(with: recorded) as? [String: Any])?["requests"] as? [[String: Any]])
        #expect(requests.count == 2)
        let keys = requests.compactMap { $0["idempotency_key"] as? String }
        #expect(keys.count == 2 && keys[0] == keys[1] && UUID(uuidString: keys[0]) != nil)
        #expect(requests.map { $0["bytes"] as? Int } == [50_000, 50_000])
        #expect(Set(requests.compactMap { $0["sha256"] as? String }).count == 1)
        #expect(response.request.headerFields[.idempotencyKey] == keys[0])
    }

    @Test("without a key the same POST is not re-sent after a reset (it may have been processed)")
    func withoutAKeyNoRetry() async throws {
        let client = Client(
            baseURL: try TestServers.faultServer(),
            retry: [.transportErrors(max: 2), .backoff(.constant(0.01), jitter: .none)])
        let key = "idem-\(UUID().uuidString)"
        let error = await #expect(throws: ClientError.self) {
            _ = try await client.send(
                .post("flaky-record?key=\(key)&fail=1").body(HTTPBody("x"), contentType: .octetStream))
        }
        #expect(error?.attempts.count == 1)
    }

    @Test("each call gets its own key, from the caller's generator; GET gets none; a caller's own key is kept")
    func keysPerCall() async throws {
        let stub = StubTransport(fallback: .status(.ok))
        let counter = Locked(0)
        let client = Client(
            baseURL: URL(string: "https://api.example.com")!, transport: stub,
            interceptors: [
                IdempotencyKey {
                    counter.withLock { value in
                        value += 1
                        return "key-\(value)"
                    }
                }
            ])
        _ = try await client.send(.post("a"))
        _ = try await client.send(.patch("b"))
        _ = try await client.send(.get("c"))
        _ = try await client.send(.post("d").header(.idempotencyKey, "mine"))
        #expect(stub.requests.map { $0.headerFields[.idempotencyKey] } == ["key-1", "key-2", nil, "mine"])
    }

    @Test("the key stays the same on a redirect and on a retry after a 503")
    func sameKeyOnRedirectAndRetry() async throws {
        let stub = StubTransport()
        stub.enqueue(
            .status(.temporaryRedirect, headerFields: [try HTTPField(name: .location, value: "/moved")]),
            .status(.serviceUnavailable), .status(.ok))
        let client = Client(
            baseURL: URL(string: "https://api.example.com")!, transport: stub, interceptors: [IdempotencyKey()],
            retry: [.status([503], max: 1), .backoff(.constant(0.01), jitter: .none)])
        let response = try await client.send(.post("pay").body(HTTPBody("{}"), contentType: .json))
        #expect(response.status == .ok)
        let keys = stub.requests.map { $0.headerFields[.idempotencyKey] }
        #expect(keys.count == 3)
        #expect(Set(keys).count == 1 && keys[0] != nil)
        #expect(stub.requests.map(\.url.path) == ["/pay", "/moved", "/pay"])
    }
}
