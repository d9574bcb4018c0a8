import Foundation
import HTTPClient
import HTTPCore
import Testing

/// A proxy set-up of the contract suite that a transport either applies or refuses when it is
/// made (``ContractTransport/proxyCases``).
enum ContractProxyCase: String, CaseIterable, Sendable {
    /// `http` through an HTTP proxy.
    case plainHTTP
    /// `https` through a `CONNECT` tunnel (RFC 9110 §9.3.6).
    case httpsTunnel
    /// `http` and `https` through a SOCKS5 proxy (RFC 1928).
    case socks5
    /// Basic credentials for a proxy that asks (`407`, RFC 9110 §15.5.8), answered once.
    case credentials
    /// Hosts reached directly by a `NO_PROXY` list, given to ``ProxyPolicy/through(_:bypass:)``
    /// or in ``ProxyPolicy/environment(_:)``.
    case bypass
    /// A proxy that refuses the tunnel.
    case refusedTunnel
    /// A proxy that goes away in the middle of a body.
    case goneMidBody
}

extension ContractTransport {
    /// None: a transport claims the cases it passes.
    var proxyCases: Set<ContractProxyCase> { [] }
}

/// The proxy cases of the contract suite, against the proxies of `scripts/with-servers`: an
/// open tinyproxy (`HERON_PROXY_URL`), one that wants Basic credentials
/// (`HERON_PROXY_AUTH_URL`, `HERON_PROXY_USER`, `HERON_PROXY_PASSWORD`), one that allows
/// `CONNECT` to port 443 only (`HERON_PROXY_LIMITED_URL`), microsocks (`HERON_SOCKS_URL`) and a
/// proxy that cuts every body (`HERON_FAULT_PROXY_URL`). Each case runs on every transport:
/// one that claims it (``ContractTransport/proxyCases``) must pass it, one that does not must
/// refuse its policy when it is made, with ``ClientError/Code/proxyUnsupported``.
@Suite("Transport contract: proxies")
struct TransportContractProxyTests {
    /// A port nothing listens on: a request through a proxy there fails.
    static let closedProxy = Proxy(host: "127.0.0.1", port: 1)

    static func proxy(_ variable: String, credentials: Proxy.Credentials? = nil) throws -> Proxy {
        let proxy = try Proxy(url: try TransportFixture.server(variable).absoluteString)
        return Proxy(proxy.kind, host: proxy.host, port: proxy.port, credentials: credentials)
    }

    /// The credentials the authenticating proxy wants, or with a wrong `password` those of its
    /// other user (squid judges the requests waiting on one user's check together: a wrong
    /// password beside the right one for the same user could fail the right one).
    static func credentials(password: String? = nil) throws -> Proxy.Credentials {
        let environment = ProcessInfo.processInfo.environment
        let userVariable = password == nil ? "HERON_PROXY_USER" : "HERON_PROXY_OTHER_USER"
        guard let user = environment[userVariable], let secret = environment["HERON_PROXY_PASSWORD"] else {
            throw TransportFixture.MissingServer(variable: userVariable)
        }
        return Proxy.Credentials(username: user, password: password ?? secret)
    }

    /// The private CA of the TLS test servers, trusted beside the system's roots.
    static func privateCA() throws -> TrustPolicy {
        let pem = try String(contentsOfFile: try TLSServers.load().ca, encoding: .utf8)
        return TrustPolicy(additionalRoots: [try TrustPolicy.Certificate(pem: pem)])
    }

    /// The TLS test server whose leaf the private CA signed.
    static func tlsURL() throws -> URL {
        URL(string: "https://127.0.0.1:\(try #require(try TLSServers.load().ports["trusted"]))/x")!
    }

    /// Runs `body` with a transport of `subject` applying `policy`, when it claims `claim`;
    /// otherwise checks that making it fails with `proxyUnsupported`.
    static func with(
        _ subject: any ContractTransport, _ claim: ContractProxyCase, _ policy: ProxyPolicy,
        trust: TrustPolicy = .system, _ body: (any ClientTransport) async throws -> Void
    ) async throws {
        guard subject.proxyCases.contains(claim) else {
            let error = #expect(throws: ClientError.self, "\(subject.name) claims no \(claim) case") {
                _ = try subject.make(proxy: policy, trust: trust)
            }
            #expect(error?.code == .proxyUnsupported, "\(String(describing: error))")
            return
        }
        let transport = try subject.make(proxy: policy, trust: trust)
        do {
            try await body(transport)
        } catch {
            await subject.release(transport)
            throw error
        }
        await subject.release(transport)
    }

    /// The request fields the fault server saw, by lower-cased name.
    static func echoedFields(_ response: TransportResponse) async throws -> [String: Any] {
        try await TransportFixture.json(response)
    }

    /// The error sending `url` through `transport` fails with.
    static func failure(_ transport: any ClientTransport, _ request: HTTPRequest) async -> ClientError? {
        await #expect(throws: ClientError.self) {
            _ = try await TransportFixture.data(transport.send(request, options: TransportOptions()))
        }
    }

    @Test(
        "plain http through an HTTP proxy: the origin answers, sees no Proxy-Authorization, the response names the proxy without its credentials",
        arguments: ContractTransports.all)
    func plainHTTP(_ subject: any ContractTransport) async throws {
        // Credentials for a proxy that never asks for them are never sent (the open proxy
        // forwards a Proxy-Authorization it gets to the origin).
        let proxy = try Self.proxy("HERON_PROXY_URL", credentials: .init(username: "u", password: "never-sent-9Z"))
        try await Self.with(subject, .plainHTTP, .through(proxy)) { transport in
            let response = try await transport.send(
                HTTPRequest(url: try TransportFixture.fault("/headers")), options: TransportOptions())
            #expect(response.head.status == .ok)
            #expect(response.proxy == proxy.withoutCredentials)
            #expect(response.proxy?.credentials == nil)
            let fields = try await Self.echoedFields(response)
            #expect(fields["proxy-authorization"] == nil, "\(fields)")
            #expect(!String(describing: fields).contains("never-sent-9Z"))
        }
    }

    @Test("https through a CONNECT tunnel to the TLS server with the private CA", arguments: ContractTransports.all)
    func httpsTunnel(_ subject: any ContractTransport) async throws {
        let proxy = try Self.proxy("HERON_PROXY_URL")
        try await Self.with(subject, .httpsTunnel, .through(proxy), trust: try Self.privateCA()) { transport in
            let response = try await transport.send(HTTPRequest(url: try Self.tlsURL()), options: TransportOptions())
            #expect(response.head.status == .ok)
            #expect(try await TransportFixture.data(response) == Data("ok".utf8))
            #expect(response.proxy == proxy)
        }
    }

    @Test("http and https through a SOCKS5 proxy", arguments: ContractTransports.all)
    func socks5(_ subject: any ContractTransport) async throws {
        let proxy = try Self.proxy("HERON_SOCKS_URL")
        #expect(proxy.kind == .socks5)
        try await Self.with(subject, .socks5, .through(proxy), trust: try Self.privateCA()) { transport in
            let plain = try await transport.send(
                HTTPRequest(url: try TransportFixture.fault("/bytes?n=10")), options: TransportOptions())
            #expect(try await TransportFixture.data(plain) == TransportFixture.pattern(10))
            #expect(plain.proxy == proxy)
            let secure = try await transport.send(HTTPRequest(url: try Self.tlsURL()), options: TransportOptions())
            #expect(try await TransportFixture.data(secure) == Data("ok".utf8))
            #expect(secure.proxy == proxy)
        }
        // Nothing listens there: the request did go to the SOCKS proxy.
        let closed = Proxy(.socks5, host: "127.0.0.1", port: 1)
        try await Self.with(subject, .socks5, .through(closed)) { transport in
            let error = await Self.failure(transport, HTTPRequest(url: try TransportFixture.fault("/bytes?n=10")))
            #expect(error?.code == .proxyConnectFailed, "\(String(describing: error))")
        }
    }

    @Test(
        "Basic credentials for a proxy that asks: the request gets through, and again on the same transport",
        arguments: ContractTransports.all)
    func credentialsAnswered(_ subject: any ContractTransport) async throws {
        let proxy = try Self.proxy("HERON_PROXY_AUTH_URL", credentials: try Self.credentials())
        try await Self.with(subject, .credentials, .through(proxy), trust: try Self.privateCA()) { transport in
            for _ in 0..<2 {
                let response = try await transport.send(
                    HTTPRequest(url: try TransportFixture.fault("/headers")), options: TransportOptions())
                #expect(response.head.status == .ok)
                #expect(response.proxy == proxy.withoutCredentials)
                #expect(try await Self.echoedFields(response)["proxy-authorization"] == nil)
            }
            let secure = try await transport.send(HTTPRequest(url: try Self.tlsURL()), options: TransportOptions())
            #expect(try await TransportFixture.data(secure) == Data("ok".utf8))
        }
    }

    @Test(
        "a one-shot stream body goes through a proxy that asks for credentials whole, once answered",
        arguments: ContractTransports.all)
    func credentialsWithOneShotBody(_ subject: any ContractTransport) async throws {
        let proxy = try Self.proxy("HERON_PROXY_AUTH_URL", credentials: try Self.credentials())
        let data = TransportFixture.randomData(300_000)
        try await Self.with(subject, .credentials, .through(proxy)) { transport in
            let chunks = AsyncStream<Data> { continuation in
                for start in stride(from: 0, to: data.count, by: 64 * 1024) {
                    continuation.yield(data[start..<min(data.count, start + 64 * 1024)])
                }
                continuation.finish()
            }
            let body = HTTPBody(stream: chunks, length: .known(Int64(data.count)))
            #expect(!body.isReplayable)
            let response = try await transport.send(
                HTTPRequest(method: .post, url: try TransportFixture.fault("/hash"), body: body),
                options: TransportOptions())
            let echoed = try await TransportFixture.json(response)
            #expect(echoed["bytes"] as? Int == data.count)
            #expect(echoed["sha256"] as? String == (try await TransportFixture.sha256(data)))
        }
    }

    @Test(
        "a wrong proxy password is proxyAuthenticationFailed naming the proxy, and no description shows it",
        arguments: ContractTransports.all)
    func wrongPassword(_ subject: any ContractTransport) async throws {
        let password = "wrong-proxy-password-4K"
        let proxy = try Self.proxy("HERON_PROXY_AUTH_URL", credentials: try Self.credentials(password: password))
        try await Self.with(subject, .credentials, .through(proxy)) { transport in
            let origin = try TransportFixture.fault("/headers")
            let error = try #require(await Self.failure(transport, HTTPRequest(url: origin)))
            #expect(error.code == .proxyAuthenticationFailed, "\(error)")
            #expect(error.message.contains(proxy.description), "\(error.message)")
            #expect(!error.message.contains(":\(origin.port ?? 0)"), "the message names the origin: \(error.message)")
            for text in [String(describing: error), String(reflecting: error), error.message] {
                #expect(!text.contains(password), "\(text)")
            }
        }
    }

    @Test(
        "no credentials for a proxy that asks is proxyAuthenticationFailed naming the proxy",
        arguments: ContractTransports.all)
    func noCredentials(_ subject: any ContractTransport) async throws {
        let proxy = try Self.proxy("HERON_PROXY_AUTH_URL")
        try await Self.with(subject, .credentials, .through(proxy)) { transport in
            let error = try #require(
                await Self.failure(transport, HTTPRequest(url: try TransportFixture.fault("/headers"))))
            #expect(error.code == .proxyAuthenticationFailed, "\(error)")
            #expect(error.message.contains(proxy.description), "\(error.message)")
        }
    }

    /// NO_PROXY entries matching the fault server's URL, each with the host to send to.
    static func bypassLists(port: Int) -> [(list: String, host: String)] {
        [
            (".localhost", "localhost"),  // a suffix
            ("example.com, localhost", "localhost"),  // an exact host
            ("127.0.0.1", "127.0.0.1"),  // an IP address
            ("127.0.0.0/8", "127.0.0.1"),  // a CIDR range
            ("127.0.0.1:\(port)", "127.0.0.1"),  // a port
            ("*", "127.0.0.1"),
        ]
    }

    @Test(
        "NO_PROXY (suffix, exact host, IP, CIDR, port, *): a bypassed request goes straight to the origin, the rest through the proxy",
        arguments: ContractTransports.all)
    func bypass(_ subject: any ContractTransport) async throws {
        let origin = try TransportFixture.fault("/bytes?n=5")
        let port = try #require(origin.port)
        func url(_ host: String) throws -> URL { try #require(URL(string: "http://\(host):\(port)/bytes?n=5")) }
        for (list, host) in Self.bypassLists(port: port) {
            let environment = ["http_proxy": Self.closedProxy.description, "no_proxy": list]
            for policy in [ProxyPolicy.through(Self.closedProxy, bypass: ProxyBypass(list)), .environment(environment)]
            {
                try await Self.with(subject, .bypass, policy) { transport in
                    // The proxy is closed: only a request that bypassed it gets an answer.
                    let response = try await transport.send(
                        HTTPRequest(url: try url(host)), options: TransportOptions())
                    #expect(try await TransportFixture.data(response) == TransportFixture.pattern(5), "\(list)")
                    #expect(response.proxy == nil, "\(list)")
                }
            }
        }
        // Lists that do not match go through the (closed) proxy.
        for list in ["example.com", "127.0.0.1:1", "10.0.0.0/8", "notlocalhost"] {
            try await Self.with(subject, .bypass, .through(Self.closedProxy, bypass: ProxyBypass(list))) { transport in
                let error = await Self.failure(transport, HTTPRequest(url: try url("127.0.0.1")))
                #expect(error?.code == .proxyConnectFailed, "\(list): \(String(describing: error))")
                #expect(error?.message.contains(Self.closedProxy.description) == true)
            }
        }
    }

    @Test(
        "a proxy that refuses the tunnel is proxyConnectFailed naming the proxy and the target, retried by the client, for a POST too",
        arguments: ContractTransports.all)
    func refusedTunnel(_ subject: any ContractTransport) async throws {
        let proxy = try Self.proxy("HERON_PROXY_LIMITED_URL")
        let target = try Self.tlsURL()
        try await Self.with(subject, .refusedTunnel, .through(proxy), trust: try Self.privateCA()) { transport in
            let error = try #require(await Self.failure(transport, HTTPRequest(url: target)))
            #expect(error.code == .proxyConnectFailed, "\(error)")
            #expect(error.message.contains(proxy.description), "\(error.message)")
            #expect(error.message.contains("127.0.0.1:\(target.port ?? 0)"), "\(error.message)")

            let client = Client(transport: transport, retry: RetryStack.default.endingWithLastOutcome())
            let post = await #expect(throws: ClientError.self) {
                _ = try await client.send(HTTPRequest(method: .post, url: target, body: HTTPBody(Data("x".utf8))))
            }
            #expect(post?.code == .proxyConnectFailed, "\(String(describing: post))")
            #expect(post?.attempts.count == 3, "\(String(describing: post?.attempts))")
        }
    }

    @Test("a proxy that goes away mid-body is truncatedBody or connectionLost", arguments: ContractTransports.all)
    func goneMidBody(_ subject: any ContractTransport) async throws {
        let proxy = try Self.proxy("HERON_FAULT_PROXY_URL")
        let key = UUID().uuidString
        try await Self.with(subject, .goneMidBody, .through(proxy)) { transport in
            // The fault proxy answers itself: the origin is never reached.
            let url = try #require(URL(string: "http://127.0.0.1:1/cut?key=\(key)"))
            let error = try #require(await Self.failure(transport, HTTPRequest(url: url)))
            #expect([.truncatedBody, .connectionLost].contains(error.code), "\(error)")
            if error.code == .truncatedBody { #expect(error.response?.status == .ok) }
            let count = try await subject.shared.send(
                HTTPRequest(
                    url: try TransportFixture.server("HERON_FAULT_PROXY_URL").appending(path: "count")
                        .appending(queryItems: [URLQueryItem(name: "key", value: key)])),
                options: TransportOptions())
            #expect(try await TransportFixture.json(count)["count"] as? Int == 1)
        }
    }
}
