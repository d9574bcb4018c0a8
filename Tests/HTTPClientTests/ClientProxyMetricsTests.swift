import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import HTTPClient

/// The proxy a response came through, in the call's metrics and its observers' events: host
/// and port only, never the proxy's credentials, and no event when no observer listens or no
/// proxy was used.
@Suite("Client: the proxy in metrics and events")
struct ClientProxyMetricsTests {
    static let password = "S3CRET-proxy-metrics"
    static let proxy = Proxy(host: "proxy.internal", port: 3128, credentials: .init(username: "ci", password: password))

    /// Answers `200`, or a redirect to `/final` for `/start`, each through the proxy a URL's
    /// path names: `/direct…` straight, else ``ClientProxyMetricsTests/proxy`` (with its
    /// credentials, which `TransportResponse` drops); fails `/fail` with `proxyConnectFailed`.
    struct ProxiedTransport: ClientTransport {
        func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
            let path = request.url.path
            if path.hasPrefix("/fail") {
                throw ClientError(.proxyConnectFailed, "the proxy refused the tunnel", request: request)
            }
            let proxy = path.hasPrefix("/direct") ? nil : ClientProxyMetricsTests.proxy
            if path == "/start" || path == "/direct-start" {
                let target = path == "/start" ? "/final" : "/direct-final"
                let head = HTTPResponse(status: .found, headerFields: try HTTPFields(["Location": target]))
                return TransportResponse(head: head, body: nil, proxy: proxy)
            }
            return TransportResponse(head: HTTPResponse(status: .ok), body: HTTPBody("ok"), proxy: proxy)
        }
    }

    static func client(observers: [any ClientObserver] = [], retry: RetryStack = .none) -> Client {
        Client(
            baseURL: URL(string: "http://origin.example/")!, transport: ProxiedTransport(), observers: observers,
            retry: retry)
    }

    @Test("metrics name the proxy of the final response, without its credentials, and no proxy for a direct one")
    func metricsNameTheProxy() async throws {
        let response = try await Self.client().send(HTTPRequest(url: URL(string: "through")!))
        #expect(response.metrics.proxy == Self.proxy.withoutCredentials)
        #expect(response.metrics.proxy?.credentials == nil)
        #expect(response.metrics.description.hasSuffix(", through http://proxy.internal:3128"))
        let direct = try await Self.client().send(HTTPRequest(url: URL(string: "direct")!))
        #expect(direct.metrics.proxy == nil)
        #expect(!direct.metrics.description.contains("through"))
    }

    @Test("a proxied event for each hop that came through a proxy, before the final response's events")
    func proxiedEventPerHop() async throws {
        let observer = RecordingObserver()
        let response = try await Self.client(observers: [observer]).send(HTTPRequest(url: URL(string: "start")!))
        #expect(response.metrics.redirects == 1)
        let events = try await observer.waitForFinished()
        let proxied = events.compactMap { event -> (URL, Proxy, Int)? in
            if case .proxied(let url, let proxy, let attempt) = event.kind { return (url, proxy, attempt) }
            return nil
        }
        #expect(proxied.map(\.0.path) == ["/start", "/final"])
        #expect(proxied.allSatisfy { $0.1 == Self.proxy.withoutCredentials && $0.1.credentials == nil && $0.2 == 1 })
        let line = try #require(events.first { $0.label == "proxied" }).description
        #expect(line.hasSuffix("through proxy http://proxy.internal:3128 to http://origin.example/start (attempt 1)"))
        let labels = events.map(\.label)
        let first = try #require(labels.firstIndex(of: "proxied"))
        let received = try #require(labels.firstIndex(of: "responseReceived"))
        #expect(first < received, "\(labels)")
    }

    @Test("no proxied event for responses that came straight from the origin")
    func noEventWhenDirect() async throws {
        let observer = RecordingObserver()
        _ = try await Self.client(observers: [observer]).send(HTTPRequest(url: URL(string: "direct-start")!))
        let events = try await observer.waitForFinished()
        #expect(!events.contains { $0.label == "proxied" })
        #expect(events.contains { $0.label == "redirected" })
    }

    @Test("a call whose attempt failed names no proxy in its metrics")
    func failedAttemptHasNoProxy() async throws {
        let observer = RecordingObserver()
        let error = await #expect(throws: ClientError.self) {
            try await Self.client(observers: [observer]).send(HTTPRequest(url: URL(string: "fail")!))
        }
        #expect(error?.code == .proxyConnectFailed)
        let events = try await observer.waitForFinished()
        guard case .finished(_, _, let metrics)? = events.last(where: \.isFinished)?.kind else {
            Issue.record("no finished event")
            return
        }
        #expect(metrics.proxy == nil)
    }

    @Test("metrics set with a proxy keep it without its credentials")
    func metricsDropCredentials() {
        var metrics = ClientMetrics(attempts: [], redirects: 0, duration: .zero, bytesSent: nil, bytesReceived: nil)
        metrics.proxy = Self.proxy
        #expect(metrics.proxy?.credentials == nil)
        #expect(metrics.proxy?.host == "proxy.internal")
        #expect(!String(describing: metrics).contains(Self.password))
    }
}
