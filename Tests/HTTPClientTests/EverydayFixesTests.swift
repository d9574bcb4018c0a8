import Foundation
import HTTPClient
import HTTPCore
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The four behaviours issue 30 found wrong, each against the local servers: a fluent
/// modifier's error inside an interceptor, a credential attached to one request for another
/// origin, a refused POST under `.retries(3)`, a retry interceptor's own limit.
@Suite("Everyday fixes: errors, credentials and retries that were silent")
struct EverydayFixesTests {
    /// Sets a field with a fluent modifier in `prepare`, as a user writes it.
    struct Tracing: Interceptor {
        let value: String
        func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) async throws {
            request = request.header("X-Trace", value)
        }
    }

    /// How many requests carrying `key` the fault server has seen.
    static func count(_ key: String) async throws -> Int {
        let url = try TestServers.faultServer().appendingPathComponent("count")
            .appending(queryItems: [.init(name: "key", value: key)])
        let response = try await Client().send(HTTPRequest(url: url))
        let object = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        return try #require(object?["count"] as? Int)
    }

    @Test("a fluent modifier's error in an interceptor fails the call, naming it, and nothing is sent")
    func pendingErrorFromAnInterceptor() async throws {
        let key = "pending-\(UUID().uuidString)"
        let url = try TestServers.faultServer().appendingPathComponent("headers")
            .appending(queryItems: [.init(name: "key", value: key)])
        let client = Client(interceptors: [Tracing(value: "a\r\nb")])
        let error = await #expect(throws: ClientError.self) { try await client.send(HTTPRequest(url: url)) }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("Tracing") == true)
        #expect(error?.underlying is HTTPCoreError)
        #expect(try await Self.count(key) == 0)
        // A valid value goes out.
        let sent = try await Client(interceptors: [Tracing(value: "ok")]).send(HTTPRequest(url: url))
        #expect(String(decoding: sent.body, as: UTF8.self).contains(#""x-trace": ["ok"]"#))
    }

    @Test("credentials attached to one request reach its origin; the client's stay with its base URL")
    func credentialsAttachedToARequest() async throws {
        // The client's base URL is httpbin; the request goes to the fault server, another origin.
        let client = Client(baseURL: try TestServers.httpbin())
        let other = try TestServers.faultServer().appendingPathComponent("headers")
        let named = try await client.send(
            HTTPRequest(url: other).intercepted(by: BasicAuth(username: "ada", password: "secret")))
        let basic = "Basic " + Data("ada:secret".utf8).base64EncodedString()
        #expect(String(decoding: named.body, as: UTF8.self).contains(#""authorization": ["\#(basic)"]"#))

        let clientWide = Client(
            baseURL: try TestServers.httpbin(), interceptors: [BasicAuth(username: "ada", password: "secret")])
        let unnamed = try await clientWide.send(HTTPRequest(url: other))
        #expect(!String(decoding: unnamed.body, as: UTF8.self).contains("authorization"))
    }

    /// A port on 127.0.0.1 where nothing listens: bound, then closed.
    static func refusingPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        try #require(bound)
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test("a refused POST is retried: nothing was sent; a POST whose connection was reset is not")
    func refusedPostIsRetried() async throws {
        let port = try Self.refusingPort()
        let refused = await #expect(throws: ClientError.self) {
            try await Client().send(.post("http://127.0.0.1:\(port)/post").body(HTTPBody("x")).retries(3))
        }
        #expect(refused?.code == .tooManyRetries)
        #expect(refused?.attempts.map(\.failure) == Array(repeating: "cannotConnect", count: 4))

        // A POST the server answered with a redirect was received: a refused next hop does
        // not show that nothing was sent, so the POST is not sent again.
        let redirect = try TestServers.faultServer().appendingPathComponent("redirect")
            .appending(queryItems: [
                .init(name: "to", value: "http://127.0.0.1:\(port)/receipt"), .init(name: "status", value: "303"),
            ])
        let afterRedirect = await #expect(throws: ClientError.self) {
            try await Client().send(HTTPRequest(method: .post, url: redirect, body: HTTPBody("x")))
        }
        #expect(afterRedirect?.code == .cannotConnect)
        #expect(afterRedirect?.attempts.count == 1)

        // A reset may come after the server acted on the request: a POST is not sent again.
        let reset = try TestServers.faultServer().appendingPathComponent("reset")
        let lost = await #expect(throws: ClientError.self) {
            try await Client().send(HTTPRequest(method: .post, url: reset, body: HTTPBody("x")).retries(3))
        }
        #expect(lost?.code == .connectionLost)
        #expect(lost?.attempts.count == 1)
    }

    /// Retries a `418` until its own limit of `attempts`.
    struct Persistent: Interceptor {
        let attempts: Int
        func decide(_ outcome: AttemptOutcome, context: inout InterceptorContext) async throws -> InterceptorDecision {
            outcome.response?.status.code == 418 && context.attempt < attempts ? .retry : .proceed
        }
    }

    @Test("a retry interceptor's own limit wins over the default stack's 3 attempts")
    func interceptorsOwnLimitWins() async throws {
        let key = "persistent-\(UUID().uuidString)"
        let url = try TestServers.faultServer().appendingPathComponent("flaky")
            .appending(queryItems: [
                .init(name: "key", value: key), .init(name: "fail", value: "4"),
                .init(name: "status", value: "418"),
            ])
        let client = Client(interceptors: [Persistent(attempts: 5)], retry: .default)
        let response = try await client.send(HTTPRequest(url: url))
        #expect(response.status == .ok)
        #expect(response.metrics.attempts.count == 5)
    }
}
