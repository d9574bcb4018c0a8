import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import HTTPClient

/// The client against the real local servers that `scripts/test` starts (httpbin and the
/// fault server), through the default URLSession transport.
@Suite("Client against the local servers")
struct ClientIntegrationTests {
    /// A unique key for the fault server's per-key counters.
    static func key(_ name: String) -> String { "\(name)-\(UUID().uuidString)" }

    /// How many requests carrying `key` the fault server has seen.
    static func count(_ key: String, client: Client) async throws -> Int {
        let response = try await client.send(HTTPRequest(url: URL(string: "count?key=\(key)")!))
        let json = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        return try #require(json?["count"] as? Int)
    }

    static func json(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("/status/503 is retried exactly the configured number of times, counted by an observer")
    func statusRetriedExactly() async throws {
        let observer = RecordingObserver()
        let client = Client(
            baseURL: try TestServers.httpbin(), observers: [observer],
            retry: [.status([503], max: 2), .backoff(.constant(0.05), jitter: .none)])
        let error = await #expect(throws: ClientError.self) {
            _ = try await client.send(HTTPRequest(url: URL(string: "status/503")!))
        }
        #expect(error?.code == .tooManyRetries)
        #expect(error?.attempts.map(\.status) == [.serviceUnavailable, .serviceUnavailable, .serviceUnavailable])
        let events = try await observer.waitForFinished()
        #expect(events.filter(\.isSent).count == 3)
        #expect(events.filter { $0.label == "retryScheduled" }.count == 2)
    }

    @Test("Retry-After from the server is waited for before the retry")
    func retryAfterWaited() async throws {
        let fault = Client(baseURL: try TestServers.faultServer(), retry: [.status([503], honorRetryAfter: true)])
        let key = Self.key("retry-after")
        let clock = ContinuousClock()
        let start = clock.now
        let response = try await fault.send(
            HTTPRequest(url: URL(string: "flaky?key=\(key)&fail=1&status=503&retry_after=1")!))
        #expect(response.status == .ok)
        #expect(clock.now - start >= .seconds(1))
        #expect(try await Self.count(key, client: fault) == 2)
    }

    @Test("/basic-auth/u/p succeeds through BasicAuth")
    func basicAuth() async throws {
        let client = Client(baseURL: try TestServers.httpbin(), interceptors: [BasicAuth(username: "u", password: "p")])
        let response = try await client.send(HTTPRequest(url: URL(string: "basic-auth/u/p")!))
        #expect(response.status == .ok)
        let json = try Self.json(response.body)
        #expect(json["authenticated"] as? Bool == true)
        #expect(json["user"] as? String == "u")
    }

    @Test("/bearer succeeds through BearerAuth and is refused without it")
    func bearer() async throws {
        let withToken = Client(baseURL: try TestServers.httpbin(), interceptors: [BearerAuth(token: "abc")])
        let response = try await withToken.send(HTTPRequest(url: URL(string: "bearer")!))
        #expect(response.status == .ok)
        #expect(try Self.json(response.body)["token"] as? String == "abc")
        let without = Client(baseURL: try TestServers.httpbin())
        #expect(try await without.send(HTTPRequest(url: URL(string: "bearer")!)).status == .unauthorized)
    }

    @Test("/redirect/3 is followed to the end, each hop observed")
    func redirects() async throws {
        let observer = RecordingObserver()
        let client = Client(baseURL: try TestServers.httpbin(), observers: [observer])
        let response = try await client.send(HTTPRequest(url: URL(string: "redirect/3")!))
        #expect(response.status == .ok)
        #expect(response.metrics.redirects == 3)
        #expect(response.head.url?.path == "/get")
        let events = try await observer.waitForFinished()
        #expect(events.filter { $0.label == "redirected" }.count == 3)
        let limited = Client(baseURL: try TestServers.httpbin(), redirectLimit: 2)
        let error = await #expect(throws: ClientError.self) {
            _ = try await limited.send(HTTPRequest(url: URL(string: "redirect/3")!))
        }
        #expect(error?.code == .tooManyRedirects)
    }

    @Test("a cross-origin redirect drops Authorization; a same-origin one keeps it")
    func crossOriginRedirect() async throws {
        let httpbin = try TestServers.httpbin()
        let fault = try TestServers.faultServer()
        let client = Client(baseURL: httpbin, interceptors: [BearerAuth(token: "secret")])
        let custom = try HTTPFieldName("X-Kept")
        var request = HTTPRequest(url: URL(string: "redirect-to")!)
        try request.headerFields.set(custom, "yes")
        let target = fault.appendingPathComponent("headers").absoluteString
        request.url = URL(
            string: "redirect-to?url=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")!
        let crossed = try await client.send(request)
        #expect(crossed.head.url?.port == fault.port)
        let echoed = try Self.json(crossed.body)
        #expect(echoed["authorization"] == nil)
        #expect(echoed["x-kept"] as? [String] == ["yes"])

        let same = try await client.send(HTTPRequest(url: URL(string: "redirect-to?url=%2Fheaders")!))
        let headers = try #require(try Self.json(same.body)["headers"] as? [String: String])
        #expect(headers["Authorization"] == "Bearer secret")
    }

    @Test("a 60 s delay fails with timedOut after a 0.5 s client timeout, long before the answer")
    func timeout() async throws {
        let client = Client(baseURL: try TestServers.faultServer(), retry: .none, timeout: .milliseconds(500))
        let clock = ContinuousClock()
        let start = clock.now
        let error = await #expect(throws: ClientError.self) {
            _ = try await client.send(HTTPRequest(url: URL(string: "delay?seconds=60")!))
        }
        #expect(error?.code == .timedOut)
        let elapsed = clock.now - start
        #expect(elapsed >= .milliseconds(450) && elapsed < .seconds(30))
    }

    @Test("cancelling mid-request ends it promptly with cancelled")
    func cancellation() async throws {
        let client = Client(baseURL: try TestServers.faultServer())
        let task = Task { try await client.send(HTTPRequest(url: URL(string: "delay?seconds=60")!)) }
        try await Task.sleep(for: .milliseconds(300))
        let clock = ContinuousClock()
        let start = clock.now
        task.cancel()
        let result = await task.result
        #expect(clock.now - start < .seconds(30))
        guard case .failure(let error as ClientError) = result else {
            Issue.record("expected a ClientError, got \(result)")
            return
        }
        #expect(error.code == .cancelled)
    }

    @Test("200 concurrent requests rejected with 401 share exactly one token refresh")
    func concurrentRefresh() async throws {
        let refreshes = Collector<String?>()
        let tokens = TokenRefresher(token: "stale") { rejected in
            refreshes.append(rejected)
            try await Task.sleep(for: .milliseconds(50))
            return "fresh-\(UUID().uuidString)"
        }
        let client = Client(baseURL: try TestServers.faultServer(), interceptors: [BearerAuth(tokens)])
        let statuses = try await withThrowingTaskGroup(of: HTTPStatus.self) { group in
            for _ in 0..<200 {
                group.addTask { try await client.send(HTTPRequest(url: URL(string: "token-protected")!)).status }
            }
            return try await group.reduce(into: [HTTPStatus]()) { $0.append($1) }
        }
        #expect(statuses.count == 200)
        #expect(statuses.allSatisfy { $0 == .ok })
        #expect(refreshes.values == ["stale"])
    }

    @Test("a connection reset is retried for GET and not for POST")
    func connectionReset() async throws {
        let client = Client(baseURL: try TestServers.faultServer(), retry: [.transportErrors(max: 2)])
        let getKey = Self.key("reset-get")
        let response = try await client.send(HTTPRequest(url: URL(string: "flaky-reset?key=\(getKey)&fail=1")!))
        #expect(response.status == .ok)
        #expect(try await Self.count(getKey, client: client) == 2)

        // A fresh client, so the POST opens a new connection: libcurl itself re-sends a
        // request that fails on a reused keep-alive connection, whatever its method.
        let fresh = Client(baseURL: try TestServers.faultServer(), retry: [.transportErrors(max: 2)])
        let postKey = Self.key("reset-post")
        let post = HTTPRequest(
            method: .post, url: URL(string: "flaky-reset?key=\(postKey)&fail=1")!, body: HTTPBody("data"))
        let error = await #expect(throws: ClientError.self) { _ = try await fresh.send(post) }
        #expect(error?.code == .connectionLost)
        #expect(try await Self.count(postKey, client: client) == 1)
    }

    @Test("a truncated body is retried for GET and not for POST")
    func truncatedBody() async throws {
        let client = Client(baseURL: try TestServers.faultServer(), retry: [.transportErrors(max: 2)])
        let getKey = Self.key("truncate-get")
        let response = try await client.send(HTTPRequest(url: URL(string: "flaky-truncate?key=\(getKey)&fail=1")!))
        #expect(response.status == .ok)
        #expect(response.metrics.attempts.map(\.failure) == ["truncatedBody", nil])

        let fresh = Client(baseURL: try TestServers.faultServer(), retry: [.transportErrors(max: 2)])
        let postKey = Self.key("truncate-post")
        let post = HTTPRequest(
            method: .post, url: URL(string: "flaky-truncate?key=\(postKey)&fail=1")!, body: HTTPBody("data"))
        let error = await #expect(throws: ClientError.self) { _ = try await fresh.send(post) }
        #expect(error?.code == .truncatedBody)
        #expect(try await Self.count(postKey, client: client) == 1)
    }
}
