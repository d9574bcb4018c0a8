import Foundation
import HTTPClient
import HTTPCore
import HeronAsyncHTTPClient
import Testing

/// The proxy and Unix-socket examples of `HeronAsyncHTTPClient.docc`, run against the servers
/// of `scripts/with-servers`: the same calls, with the local proxy and socket in place of the
/// examples' hosts.
@Suite("HeronAsyncHTTPClient's documentation examples")
struct DocumentationExampleTests {
    @Test("a proxy with credentials and a bypass list, as the catalog's Proxies section shows")
    func proxyExample() async throws {
        let environment = ProcessInfo.processInfo.environment
        let server = try Proxy(url: try TransportFixture.server("HERON_PROXY_AUTH_URL").absoluteString)
        let secret = try #require(environment["HERON_PROXY_PASSWORD"])
        let user = try #require(environment["HERON_PROXY_USER"])

        let proxy = Proxy(host: server.host, port: server.port, credentials: .init(username: user, password: secret))
        let transport = try AsyncHTTPClientTransport(proxy: .through(proxy, bypass: "localhost, .internal.example"))

        defer { Task { try? await transport.shutdown() } }
        let client = Client(transport: transport)
        let proxied = try await client.send(HTTPRequest(url: try TransportFixture.fault("/bytes?n=4")))
        #expect(proxied.body == TransportFixture.pattern(4))
        // localhost is bypassed: it goes straight to the origin.
        let port = try #require(try TransportFixture.fault("/").port)
        let direct = try await client.send(HTTPRequest(url: URL(string: "http://localhost:\(port)/bytes?n=4")!))
        #expect(direct.body == TransportFixture.pattern(4))
    }

    @Test("a client whose base URL is a Unix socket, as the catalog's Unix domain sockets section shows")
    func socketExample() async throws {
        let path = try #require(ProcessInfo.processInfo.environment["HERON_UNIX_SOCKET_A"])

        let socket = path.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let transport = AsyncHTTPClientTransport()
        let local = Client(baseURL: URL(string: "http+unix://\(socket)/")!, transport: transport)
        let info = try await local.send(.get("whoami"))

        defer { Task { try? await transport.shutdown() } }
        #expect(info.status == .ok)
        let answer = try JSONSerialization.jsonObject(with: info.body) as? [String: Any]
        #expect(answer?["socket"] as? String == path)
    }
}
