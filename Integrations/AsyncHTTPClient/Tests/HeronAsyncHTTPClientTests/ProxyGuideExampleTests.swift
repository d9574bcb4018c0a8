import Foundation
import HTTPClient
import HeronAsyncHTTPClient
import Testing

// The examples of Docs/ProxiesAndUnixSockets.md that need AsyncHTTPClientTransport, held
// verbatim and run against the proxies and sockets of `scripts/with-servers`. The root
// package's ProxyGuideTests checks that every example of the guide is held here or there.

@Suite("Docs/ProxiesAndUnixSockets.md: the AsyncHTTPClientTransport examples")
struct ProxyGuideExampleTests {
    @Test("one proxy, in code: requests go through it, bypassed hosts do not")
    func oneProxy() async throws {
        let proxyPort = try #require(try TransportFixture.server("HERON_PROXY_URL").port)

        let transport = try AsyncHTTPClientTransport(
            proxy: .through(Proxy(host: "127.0.0.1", port: proxyPort), bypass: "localhost, .internal.example"))
        let client = Client(baseURL: "https://api.example.com", transport: transport)

        defer { Task { try? await transport.shutdown() } }
        let proxied = try await client.send(.get(try TransportFixture.httpbin("/get").absoluteString))
        #expect(proxied.status == .ok)
        #expect(proxied.metrics.proxy == Proxy(host: "127.0.0.1", port: proxyPort))
        let faultPort = try #require(try TransportFixture.server("HERON_FAULT_URL").port)
        let bypassed = try await client.send(.get("http://localhost:\(faultPort)/headers"))
        #expect(bypassed.status == .ok)
        #expect(bypassed.metrics.proxy == nil)
    }

    @Test("Unix sockets: a request to httpbin on a socket path")
    func unixSocket() async throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        let socketPath = try #require(ProcessInfo.processInfo.environment["HERON_HTTPBIN_SOCKET"])

        let transport = try AsyncHTTPClientTransport(proxy: .direct)
        let socket = socketPath.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let daemon = Client(baseURL: "http+unix://\(socket)", transport: transport)
        let answer = try await daemon.send(.get("get"))
        print(answer.status)  // 200 OK
        try await transport.shutdown()

        #expect(printed == ["200 OK"])
        let echo = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
        #expect((echo?["url"] as? String)?.hasSuffix("/get") == true)
    }
}
