import Foundation
import HTTPClientTesting
import TestSupport
import Testing

@testable import HTTPClient

/// `Proxy`, `ProxyBypass` and `ProxyPolicy` on their own, without a network: how a proxy is
/// read, which hosts `NO_PROXY` keeps direct, and which variable of an environment names the
/// proxy (the table of `ProxyEnvironmentCurlTests` checks the same rules against curl itself).
@Suite("Proxy settings")
struct ProxyPolicyTests {
    private static func url(_ text: String) -> URL { URL(string: text)! }

    @Test("a proxy URL as curl reads it: scheme, default port 1080, percent-decoded credentials, IPv6")
    func proxyURLs() throws {
        let plain = try Proxy(url: "127.0.0.1:3128")
        #expect(plain.kind == .http && plain.host == "127.0.0.1" && plain.port == 3128 && plain.credentials == nil)
        let noPort = try Proxy(url: "http://Proxy.Example.COM")
        #expect(noPort.host == "proxy.example.com" && noPort.port == 1080)
        let socks = try Proxy(url: "socks5://10.0.0.1:1081")
        let socksRemote = try Proxy(url: "socks5h://10.0.0.1")
        #expect(socks.kind == .socks5 && socksRemote.kind == .socks5 && socksRemote.port == 1080)
        let withUser = try Proxy(url: "http://ci%40corp:p%3Ass%40w0rd@proxy.local:8080/ignored")
        #expect(withUser.credentials == Proxy.Credentials(username: "ci@corp", password: "p:ss@w0rd"))
        #expect(withUser.host == "proxy.local" && withUser.port == 8080)
        let v6 = try Proxy(url: "http://[::1]:3128")
        #expect(v6.host == "::1" && v6.authority == "[::1]:3128" && v6.description == "http://[::1]:3128")
    }

    @Test("every proxy kind curl knows is read, with curl's default ports")
    func proxyKinds() throws {
        let kinds = try ["https://proxy", "socks4://proxy:1081", "socks://proxy", "socks4a://proxy"].map {
            let proxy = try Proxy(url: $0)
            return "\(proxy.kind) \(proxy.port)"
        }
        #expect(kinds == ["https 443", "socks4 1081", "socks4 1080", "socks4a 1080"])
    }

    @Test(
        "text that is no proxy URL is refused typed",
        arguments: ["ftp://proxy:21", "http://proxy:99999", "http://proxy:port", "http://:3128", "http://[::1:3128"])
    func refusedProxyURLs(text: String) {
        #expect {
            _ = try Proxy(url: text)
        } throws: { error in
            (error as? ClientError)?.code == .invalidRequest
        }
    }

    @Test("no description, mirror or error shows a proxy's password")
    func passwordNeverShown() throws {
        let secret = "Pr0xyPa55-unique"
        let proxy = try Proxy(url: "http://ci:\(secret)@proxy.local:3128")
        var dumped = ""
        dump(proxy, to: &dumped)
        dump(proxy.credentials, to: &dumped)
        let policies: [ProxyPolicy] = [
            .through(proxy), .environment(["https_proxy": "http://ci:\(secret)@proxy.local:3128"]),
            .choosing { _ in proxy },
        ]
        let texts =
            [
                "\(proxy)", String(reflecting: proxy), "\(proxy.credentials!)", String(reflecting: proxy.credentials!),
                dumped,
            ] + policies.map { "\($0)" }
        for text in texts { #expect(!text.contains(secret), "\(text)") }
        // An environment value Heron refuses names its variable, never the password.
        let refused = ProxyPolicy.environment(["https_proxy": "gopher://ci:\(secret)@proxy.local"])
        do {
            _ = try refused.proxy(for: Self.url("https://example.com/"))
            Issue.record("a gopher proxy was not refused")
        } catch {
            #expect(error.code == .invalidRequest)
            #expect(error.message.contains("https_proxy") && !"\(error)".contains(secret))
        }
    }

    @Test("NO_PROXY names: the host and every name under it, without regard to case or dots")
    func bypassNames() {
        let bypass = ProxyBypass("example.com, .Internal.Test, localhost.")
        for host in [
            "example.com", "api.example.com", "a.b.example.com", "EXAMPLE.com.", "internal.test", "x.internal.test",
            "localhost",
        ] {
            #expect(bypass.matches(host: host, port: 80), "\(host)")
        }
        for host in ["notexample.com", "example.com.evil", "test", "10.0.0.1", "localhostx"] {
            #expect(!bypass.matches(host: host, port: 80), "\(host)")
        }
    }

    @Test("NO_PROXY addresses and CIDR ranges match addresses only, IPv4 and IPv6")
    func bypassAddresses() {
        let bypass = ProxyBypass("10.0.0.0/8 192.168.1.7,::1,fd00::/8 172.16.0.0/33")
        #expect(bypass.matches(host: "10.200.3.4", port: nil))
        #expect(bypass.matches(host: "192.168.1.7", port: nil))
        #expect(!bypass.matches(host: "192.168.1.8", port: nil))
        #expect(bypass.matches(host: "[::1]", port: nil))
        #expect(bypass.matches(host: "0:0:0:0:0:0:0:1", port: nil))
        #expect(bypass.matches(host: "fd12:3456::1", port: nil))
        #expect(!bypass.matches(host: "fe80::1", port: nil))
        #expect(
            !bypass.matches(host: "172.16.0.1", port: nil), "a range of more bits than an address has matches nothing")
        #expect(!bypass.matches(host: "ten.example", port: nil), "a name is never compared with an address")
    }

    @Test("'*' alone bypasses every host; inside a list it is a name that matches none, as in curl")
    func bypassStar() {
        #expect(ProxyBypass("*").matches(host: "anything.example", port: 443))
        #expect(ProxyBypass("*").bypassesAll)
        #expect(!ProxyBypass("*, example.com").matches(host: "anything.example", port: 443))
        #expect(!ProxyBypass("").matches(host: "example.com", port: 80))
        #expect(!ProxyBypass.none.matches(Self.url("https://example.com/")))
    }

    @Test("NO_PROXY entries with a port match that port only (the scheme's default when the URL has none)")
    func bypassPorts() {
        let bypass = ProxyBypass("example.com:8080, 10.1.2.3:443, [::1]:9000")
        #expect(bypass.matches(Self.url("http://example.com:8080/")))
        #expect(bypass.matches(Self.url("http://api.example.com:8080/")))
        #expect(!bypass.matches(Self.url("http://example.com/")))
        #expect(bypass.matches(Self.url("https://10.1.2.3/")))
        #expect(!bypass.matches(Self.url("http://10.1.2.3/")))
        #expect(bypass.matches(Self.url("http://[::1]:9000/")))
        #expect(!bypass.matches(Self.url("http://[::1]:9001/")))
    }

    @Test("the environment: http_proxy in lower case only, https_proxy before HTTPS_PROXY, then all_proxy")
    func environmentPrecedence() throws {
        let http = Self.url("http://example.com/")
        let https = Self.url("https://example.com/")
        func chosen(_ variables: [String: String], _ url: URL) throws -> String? {
            try ProxyPolicy.environment(variables).proxy(for: url).map { "\($0)" }
        }
        #expect(try chosen(["HTTP_PROXY": "http://10.0.0.1:1"], http) == nil, "httpoxy: HTTP_PROXY is ignored")
        #expect(try chosen(["http_proxy": "10.0.0.1:2"], http) == "http://10.0.0.1:2")
        #expect(try chosen(["http_proxy": "10.0.0.1:2"], https) == nil)
        #expect(try chosen(["HTTPS_PROXY": "10.0.0.1:3"], https) == "http://10.0.0.1:3")
        #expect(try chosen(["HTTPS_PROXY": "10.0.0.1:3", "https_proxy": "10.0.0.1:4"], https) == "http://10.0.0.1:4")
        #expect(
            try chosen(["ALL_PROXY": "10.0.0.1:5", "all_proxy": "socks5://10.0.0.1:6"], http) == "socks5://10.0.0.1:6")
        #expect(try chosen(["ALL_PROXY": "10.0.0.1:5", "HTTP_PROXY": "10.0.0.1:1"], http) == "http://10.0.0.1:5")
        #expect(
            try chosen(["https_proxy": "", "ALL_PROXY": "10.0.0.1:5"], https) == "http://10.0.0.1:5", "empty is unset")
        let bypassed = ["https_proxy": "10.0.0.1:4", "NO_PROXY": "example.com", "no_proxy": "other.test"]
        #expect(try chosen(bypassed, https) == "http://10.0.0.1:4", "no_proxy wins over NO_PROXY")
        #expect(try chosen(["https_proxy": "10.0.0.1:4", "NO_PROXY": "example.com"], https) == nil)
        #expect(try chosen(["all_proxy": "10.0.0.1:5"], Self.url("http+unix://%2Ftmp%2Fa.sock/x")) == nil)
        #expect(ProxyPolicy.environment(["no_proxy": "*", "PATH": "/bin"]).isDirect)
        #expect(!ProxyPolicy.environment(["all_proxy": "10.0.0.1:5"]).isDirect)
    }

    @Test("a closure chooses per URL; its proxy is checked, and its failure fails the request typed")
    func choosing() throws {
        struct Refusal: Error {}
        let bypass = ProxyBypass("internal.test")
        let policy = ProxyPolicy.choosing { url in
            if url.host == "fail.test" { throw Refusal() }
            if url.host == "bad.test" { return Proxy(host: "proxy", port: 0) }
            return bypass.matches(url) ? nil : Proxy(.socks5, host: "127.0.0.1", port: 1080)
        }
        #expect(try policy.proxy(for: Self.url("https://api.internal.test/"))?.description == nil)
        #expect(try policy.proxy(for: Self.url("https://example.com/"))?.description == "socks5://127.0.0.1:1080")
        #expect(throws: ClientError.self) { try policy.proxy(for: Self.url("https://bad.test/")) }
        do {
            _ = try policy.proxy(for: Self.url("https://fail.test/"))
            Issue.record("the closure's error did not fail the choice")
        } catch {
            #expect(error.code == .invalidRequest && error.underlying is Refusal)
        }
    }

    @Test("a proxy refusing the tunnel is retried as a connection failure, even for a POST")
    func proxyConnectFailedIsRetried() {
        let post = HTTPRequest(method: .post, url: Self.url("https://example.com/orders"))
        let refused = ClientError(.proxyConnectFailed, "the proxy refused the tunnel", request: post)
        #expect(RetryPolicy.defaultTransportErrorCodes.contains(.proxyConnectFailed))
        #expect(
            RetryStack.mayResend(post, after: .failure(refused), retriesNonIdempotent: false, byInterceptor: false))
        let denied = ClientError(.proxyAuthenticationFailed, "407", request: post)
        #expect(!RetryPolicy.defaultTransportErrorCodes.contains(.proxyAuthenticationFailed))
        #expect(!RetryStack.mayResend(post, after: .failure(denied), retriesNonIdempotent: false, byInterceptor: false))
    }
}

/// A `Proxy-Authorization` field set on a request (by its caller or an interceptor) never
/// reaches a transport, so never an origin: a proxy's credentials are given in its `Proxy`.
@Suite("Proxy-Authorization set on a request")
struct RequestProxyAuthorizationTests {
    @Test("the client drops it before the transport, on every hop, and keeps the request's other fields")
    func droppedBeforeTheTransport() async throws {
        let stub = StubTransport(fallback: .status(.ok))
        let client = Client(baseURL: URL(string: "https://api.example.com")!, transport: stub)
        let response = try await client.send(
            .get("items").header(.proxyAuthorization, "Basic c2VjcmV0").header(.accept, "application/json"))
        let sent = try #require(stub.requests.first)
        #expect(!sent.headerFields.contains(.proxyAuthorization))
        #expect(sent.headerFields[.accept] == "application/json")
        #expect(!response.request.headerFields.contains(.proxyAuthorization))
    }

    @Test("the origin never sees it (the fault server echoes the fields it received)")
    func originNeverSeesIt() async throws {
        let client = Client(baseURL: try TestServers.faultServer(), transport: URLSessionTransport())
        let response = try await client.send(.get("headers").header(.proxyAuthorization, "Basic c2VjcmV0"))
        let echo = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        #expect(echo?["accept"] != nil || echo?["host"] != nil)
        #expect(echo?["proxy-authorization"] == nil)
    }
}
