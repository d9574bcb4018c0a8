import AsyncHTTPClient
import Foundation
import HTTPClient
import HTTPCore
import Testing

@testable import HeronAsyncHTTPClient

/// The per-proxy clients of ``AsyncHTTPClientTransport`` and what it refuses, against the
/// proxies of `scripts/with-servers` (the shared proxy cases are in the contract suite,
/// `TransportContractProxyTests`).
@Suite("AsyncHTTPClientTransport: proxies")
struct ProxyTests {
    static func proxy(_ variable: String, credentials: Proxy.Credentials? = nil) throws -> Proxy {
        let proxy = try Proxy(url: try TransportFixture.server(variable).absoluteString)
        return Proxy(proxy.kind, host: proxy.host, port: proxy.port, credentials: credentials)
    }

    static func get(_ transport: AsyncHTTPClientTransport, _ url: URL) async throws -> TransportResponse {
        let response = try await transport.send(HTTPRequest(url: url), options: TransportOptions())
        _ = try await TransportFixture.data(response)
        return response
    }

    @Test("a client per proxy, made on first use and reused; shutdown() shuts every one down, and later requests fail")
    func shutdownReleasesProxyClients() async throws {
        let open = try Self.proxy("HERON_PROXY_URL")
        let socks = try Self.proxy("HERON_SOCKS_URL")
        let transport = try AsyncHTTPClientTransport(
            proxy: .choosing { url in url.path == "/bytes" ? open : url.path == "/count" ? socks : nil })
        let clients = try #require(transport.proxyClients)
        #expect(clients.count == 0)
        for _ in 0..<2 {
            #expect(try await Self.get(transport, try TransportFixture.fault("/bytes?n=3")).proxy == open)
        }
        #expect(clients.count == 1)
        #expect(try await Self.get(transport, try TransportFixture.fault("/count?key=\(UUID())")).proxy == socks)
        #expect(try await Self.get(transport, try TransportFixture.fault("/headers")).proxy == nil)
        #expect(clients.count == 2)
        let made = clients.clients
        #expect(made.count == 2)

        try await transport.shutdown()
        #expect(clients.count == 0)
        for client in made {
            // Shut down already: a second shutdown is refused.
            await #expect(throws: HTTPClientError.alreadyShutdown) { try await client.shutdown() }
        }
        let error = await #expect(throws: ClientError.self) {
            _ = try await Self.get(transport, try TransportFixture.fault("/bytes?n=3"))
        }
        #expect(error?.code == .transport)
    }

    @Test("past the limit of per-proxy clients, the least recently used idle one is shut down")
    func boundedProxyClients() async throws {
        // A proxy per port, none listening: each still gets a client, used once.
        let transport = try AsyncHTTPClientTransport(
            proxy: .choosing { url in Proxy(host: "127.0.0.1", port: Int(url.lastPathComponent) ?? 1) })
        defer { Task { try? await transport.shutdown() } }
        let clients = try #require(transport.proxyClients)
        var first: HTTPClient?
        for port in 1...(ProxyClients.limit + 3) {
            let error = await #expect(throws: ClientError.self) {
                _ = try await Self.get(transport, URL(string: "http://127.0.0.1:9/\(port)")!)
            }
            #expect(error?.code == .proxyConnectFailed, "\(String(describing: error))")
            if port == 1 { first = clients.clients.first }
            #expect(clients.count == min(port, ProxyClients.limit))
        }
        // The first proxy's client was the least recently used: it was shut down.
        let evicted = try #require(first)
        await #expect(throws: HTTPClientError.alreadyShutdown) { try await evicted.shutdown() }
    }

    @Test("when every one of the most per-proxy clients has a request under way, a new proxy is refused until one ends")
    func allBusyIsRefused() async throws {
        let clients = ProxyClients(
            settings: AsyncHTTPClientTransport.clientConfiguration(.init()),
            eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        let leases = try (1...ProxyClients.limit).map { port throws(ClientError) in
            try clients.lease(Proxy(host: "127.0.0.1", port: port))
        }
        let extra = Proxy(host: "127.0.0.1", port: 999)
        let error = #expect(throws: ClientError.self) { _ = try clients.lease(extra) }
        #expect(error?.code == .proxyUnsupported)
        #expect(error?.message.contains(extra.description) == true)
        // The same proxy again shares its client; a request that ends makes room.
        #expect(try clients.lease(Proxy(host: "127.0.0.1", port: 1)).client === leases[0].client)
        leases[1].release()
        #expect(try clients.lease(extra).configured == extra)
        #expect(clients.count == ProxyClients.limit)
        try await clients.shutdown()
        #expect(clients.count == 0)
        #expect(throws: ClientError.self) { _ = try clients.lease(extra) }
    }

    @Test("a SOCKS5 proxy with credentials: refused when the transport is made for it, and per request when chosen")
    func socksCredentialsRefused() async throws {
        let socks = try Self.proxy("HERON_SOCKS_URL", credentials: .init(username: "u", password: "socks-secret-3J"))
        let error = #expect(throws: ClientError.self) { _ = try AsyncHTTPClientTransport(proxy: .through(socks)) }
        #expect(error?.code == .proxyUnsupported)
        #expect(error?.message.contains(socks.description) == true)
        #expect(!String(describing: error).contains("socks-secret-3J"))

        let url = "socks5://u:socks-secret-3J@\(socks.authority)"
        for policy in [ProxyPolicy.environment(["http_proxy": url]), .choosing { _ in socks }] {
            let transport = try AsyncHTTPClientTransport(proxy: policy)
            defer { Task { try? await transport.shutdown() } }
            let failure = await #expect(throws: ClientError.self) {
                _ = try await Self.get(transport, try TransportFixture.fault("/bytes?n=1"))
            }
            #expect(failure?.code == .proxyUnsupported, "\(String(describing: failure))")
            #expect(failure?.url != nil)
            #expect(!String(reflecting: failure).contains("socks-secret-3J"))
        }
    }

    @Test("a proxy that asks is remembered: the next request goes straight to the client that answers")
    func answeredProxyIsRemembered() async throws {
        let environment = ProcessInfo.processInfo.environment
        let credentials = Proxy.Credentials(
            username: try #require(environment["HERON_PROXY_USER"]),
            password: try #require(environment["HERON_PROXY_PASSWORD"]))
        let proxy = try Self.proxy("HERON_PROXY_AUTH_URL", credentials: credentials)
        let transport = try AsyncHTTPClientTransport(proxy: .through(proxy))
        defer { Task { try? await transport.shutdown() } }
        let clients = try #require(transport.proxyClients)
        #expect(!clients.asks(proxy))
        _ = try await Self.get(transport, try TransportFixture.fault("/bytes?n=2"))
        #expect(clients.asks(proxy))
        // One client without the credentials (asked first), one with them.
        #expect(clients.count == 2)
        _ = try await Self.get(transport, try TransportFixture.fault("/bytes?n=2"))
        #expect(clients.count == 2)
    }

    @Test(
        "wrong credentials: the proxy asked, was answered once, refused: the message says Basic is all this transport answers with"
    )
    func refusedCredentials() async throws {
        // The other user: squid judges the requests waiting on one user's check together.
        let user = try #require(ProcessInfo.processInfo.environment["HERON_PROXY_OTHER_USER"])
        let proxy = try Self.proxy("HERON_PROXY_AUTH_URL", credentials: .init(username: user, password: "wrong-8P"))
        let transport = try AsyncHTTPClientTransport(proxy: .through(proxy))
        defer { Task { try? await transport.shutdown() } }
        let clients = try #require(transport.proxyClients)
        for _ in 0..<2 {
            let error = await #expect(throws: ClientError.self) {
                _ = try await Self.get(transport, try TransportFixture.fault("/bytes?n=2"))
            }
            #expect(error?.code == .proxyAuthenticationFailed)
            #expect(error?.message.contains("refused the credentials") == true, "\(String(describing: error))")
            #expect(error?.message.contains("Basic credentials only") == true)
            #expect(clients.asks(proxy))
        }
        // Asked without, then with the credentials; the second request went straight to the latter.
        #expect(clients.count == 2)
    }

    @Test("a transport over a caller's HTTPClient applies no policy and reports no proxy")
    func callersClient() async throws {
        let transport = AsyncHTTPClientTransport(client: sharedHTTPClient)
        #expect(transport.proxyPolicy == nil)
        #expect(transport.proxyClients == nil)
        #expect(try await Self.get(transport, try TransportFixture.fault("/bytes?n=1")).proxy == nil)
    }

    @Test("the default transport reads the environment; a direct policy makes no per-proxy clients")
    func defaults() async throws {
        let transport = AsyncHTTPClientTransport()
        defer { Task { try? await transport.shutdown() } }
        #expect(transport.proxyPolicy?.description.hasPrefix("environment") == true)
        let direct = try AsyncHTTPClientTransport(proxy: .direct)
        defer { Task { try? await direct.shutdown() } }
        #expect(direct.proxyClients == nil)
    }

    @Test("a redirect to an origin behind another proxy: that proxy never gets the first proxy's credentials")
    func credentialsStayWithTheirProxy() async throws {
        let environment = ProcessInfo.processInfo.environment
        let user = try #require(environment["HERON_PROXY_USER"])
        let password = try #require(environment["HERON_PROXY_PASSWORD"])
        let authenticating = try Self.proxy(
            "HERON_PROXY_AUTH_URL", credentials: .init(username: user, password: password))
        let faultProxyURL = try TransportFixture.server("HERON_FAULT_PROXY_URL")
        let other = try Self.proxy("HERON_FAULT_PROXY_URL")
        let faultPort = try #require(try TransportFixture.server("HERON_FAULT_URL").port)
        // The redirect's target has a name of its own: the fault proxy answers any CONNECT, and
        // records it, without resolving it.
        let target = "redirected-\(UUID().uuidString.prefix(8).lowercased()).test"
        let transport = try AsyncHTTPClientTransport(
            proxy: .choosing { url in url.port == faultPort ? authenticating : other })
        defer { Task { try? await transport.shutdown() } }
        let client = Client(transport: transport, retry: .none)
        let start = try TransportFixture.fault("/redirect?to=http://\(target)/get&status=302")
        let error = await #expect(throws: ClientError.self) {
            _ = try await client.send(HTTPRequest(url: start))
        }
        // The first hop went through the authenticating proxy (it asked, was answered, and the
        // redirect came back); the second through the fault proxy, which cut its body.
        #expect(error?.code == .truncatedBody || error?.code == .connectionLost, "\(String(describing: error))")
        let direct = try AsyncHTTPClientTransport(proxy: .direct)
        defer { Task { try? await direct.shutdown() } }
        let seen = try await TransportFixture.json(
            try await direct.send(
                HTTPRequest(url: faultProxyURL.appending(path: "seen")), options: TransportOptions()))
        let requests = try #require(seen["requests"] as? [[String: Any]])
        let connect = try #require(
            requests.first { ($0["line"] as? String)?.contains(target) == true }, "the fault proxy saw no CONNECT")
        let fields = try #require(connect["fields"] as? [String: Any])
        #expect(fields["proxy-authorization"] == nil, "\(fields)")
        #expect(!"\(seen)".contains(password))
    }

    @Test("a proxy that asks for Digest: answered with Basic once, then proxyAuthenticationFailed saying why")
    func digestProxyIsRefusedTyped() async throws {
        let environment = ProcessInfo.processInfo.environment
        let user = try #require(environment["HERON_PROXY_USER"])
        let password = try #require(environment["HERON_PROXY_PASSWORD"])
        let digest = try Self.proxy("HERON_PROXY_DIGEST_URL", credentials: .init(username: user, password: password))
        let transport = try AsyncHTTPClientTransport(proxy: .through(digest))
        defer { Task { try? await transport.shutdown() } }
        let error = await #expect(throws: ClientError.self) {
            _ = try await Self.get(transport, try TransportFixture.fault("/bytes?n=1"))
        }
        #expect(error?.code == .proxyAuthenticationFailed, "\(String(describing: error))")
        #expect(error?.message.contains(digest.withoutCredentials.description) == true)
        #expect(error?.message.contains("Basic") == true)
        #expect(!String(reflecting: error).contains(password))
    }
}
