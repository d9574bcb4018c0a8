import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import HTTPClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// URLSessionTransport behind real proxies (the tinyproxy instances, microsocks and the fault
/// proxy `scripts/with-servers` starts), and what it refuses.
///
/// On Linux, libcurl reads its proxy from the process's environment for every transfer, and
/// the tests of this process run in parallel: setting `http_proxy` here would send every other
/// test's requests through the proxy. So each case runs `HeronProxyProbe` (Tests/ProxyProbe), a
/// process of its own whose environment holds exactly the case's variables, which sends one
/// request with a `Client` on `URLSessionTransport(proxy: .environment)` and prints what came
/// back. The origin is the fault server, whose `/headers` echoes the request's fields as
/// received: a request through tinyproxy carries its `Via` (the proof it came through), and
/// never a `Proxy-Authorization`.
@Suite("URLSessionTransport behind proxies", .timeLimit(.minutes(2)))
struct URLSessionProxyTests {
    /// What the probe printed.
    struct Outcome: Decodable {
        let status: Int?
        let body: String?
        let proxy: String?
        let proxiedEvents: [String]
        let attempts: Int?
        let error: String?
        let failures: [String]?
        let description: String?
        let reflecting: String?

        /// The fields `/headers` echoed, by lower-cased name.
        func echoedFields() throws -> [String: [String]] {
            try JSONDecoder().decode([String: [String]].self, from: Data(try #require(body).utf8))
        }
    }

    /// A server's URL from the variable `scripts/with-servers` exports.
    static func server(_ variable: String) throws -> String {
        try #require(ProcessInfo.processInfo.environment[variable], "\(variable) is not set: run with scripts/test")
    }

    /// `host:port` of a server's URL, with the proxies' user name and `password` in front (the
    /// other user's when the password is wrong: squid judges the requests waiting on one user's
    /// check together, so a wrong password beside the right one could fail the right one).
    static func authority(_ variable: String, password: String) throws -> String {
        let right = password == (try server("HERON_PROXY_PASSWORD"))
        let user = try server(right ? "HERON_PROXY_USER" : "HERON_PROXY_OTHER_USER")
        return "\(encoded(user)):\(encoded(password))@\(try authority(variable))"
    }

    /// `host:port` of a server's URL.
    static func authority(_ variable: String) throws -> String {
        let url = try server(variable)
        return String(url[try #require(url.range(of: "://")).upperBound...])
    }

    /// The trusted TLS test server's `https` URL (its CA is private: libcurl trusts it not).
    static func tlsOrigin() throws -> String {
        "https://127.0.0.1:\(try #require(try TLSServers.load().ports["trusted"]))/"
    }

    /// `text` percent-encoded for a URL's userinfo: the test password has `:`, `@` and `!`.
    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    /// Runs the probe with `environment` for `url`, and checks that nothing it printed holds
    /// `secret`.
    static func probe(
        _ environment: [String: String], _ url: String, secrets: [String] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Outcome {
        let probe = try #require(
            ProbeExecutable.find("HeronProxyProbe"),
            "HeronProxyProbe not found: build it with `swift build --build-tests`",
            sourceLocation: sourceLocation)
        let arguments = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" } + [url]
        let output = try await ExternalProcess.run(probe.path, arguments)
        let printed = String(decoding: output.standardOutput + output.standardError, as: UTF8.self)
        #expect(output.status == 0, "\(printed)", sourceLocation: sourceLocation)
        for secret in secrets {
            #expect(!printed.contains(secret), "the secret was printed: \(printed)", sourceLocation: sourceLocation)
        }
        return try JSONDecoder().decode(Outcome.self, from: output.standardOutput)
    }

    #if canImport(FoundationNetworking)
    @Test("plain http goes through http_proxy: the origin sees the proxy's Via and no Proxy-Authorization")
    func plainHTTP() async throws {
        let proxy = try Self.server("HERON_PROXY_URL")
        let outcome = try await Self.probe(["http_proxy": proxy], try Self.server("HERON_FAULT_URL") + "/headers")
        #expect(outcome.status == 200, "\(outcome)")
        let fields = try outcome.echoedFields()
        #expect(fields["via"]?.first?.contains("heron-proxy ") == true, "\(fields)")
        #expect(fields["proxy-authorization"] == nil)
        #expect(outcome.proxy == proxy)
        #expect(outcome.proxiedEvents == [proxy])
    }

    @Test("HTTP_PROXY in upper case is ignored, as curl ignores it (httpoxy)")
    func upperCaseHTTPProxyIgnored() async throws {
        let outcome = try await Self.probe(
            ["HTTP_PROXY": try Self.server("HERON_PROXY_URL")], try Self.server("HERON_FAULT_URL") + "/headers")
        #expect(outcome.status == 200, "\(outcome)")
        #expect(try outcome.echoedFields()["via"] == nil)
        #expect(outcome.proxy == nil)
        #expect(outcome.proxiedEvents.isEmpty)
    }

    @Test("https goes through a CONNECT tunnel: the origin's TLS handshake is reached through it")
    func httpsThroughConnect() async throws {
        // Through the open proxy the tunnel opens and the origin's certificate (a private
        // CA's, which URLSession on Linux cannot be told to trust) is what fails: TLS ran
        // inside the tunnel, and the proxy's answer to CONNECT was not taken for the origin's.
        let open = try await Self.probe(["https_proxy": try Self.server("HERON_PROXY_URL")], try Self.tlsOrigin())
        #expect(open.error == "serverTrustFailed", "\(open)")
        #expect(open.attempts == 1)
        // HTTPS_PROXY in upper case is read too, and the request goes to the proxy (a closed
        // port here), not to the origin.
        let closed = try await Self.probe(["HTTPS_PROXY": "http://127.0.0.1:1"], try Self.tlsOrigin())
        #expect(closed.failures?.allSatisfy { $0 == "proxyConnectFailed" } == true, "\(closed)")
        #expect(closed.description?.contains("no connection to the proxy http://127.0.0.1:1") == true)
    }

    @Test("a tunnel the proxy refuses is proxyConnectFailed with its status, retried by the default stack")
    func refusedTunnel() async throws {
        let limited = try Self.server("HERON_PROXY_LIMITED_URL")
        let outcome = try await Self.probe(["https_proxy": limited], try Self.tlsOrigin())
        #expect(outcome.error == "tooManyRetries", "\(outcome)")
        #expect(outcome.failures == ["proxyConnectFailed", "proxyConnectFailed", "proxyConnectFailed"])
        #expect(
            outcome.description?.contains("the proxy \(limited) refused the tunnel: it answered CONNECT with 403")
                == true)
    }

    @Test("SOCKS5 through all_proxy: http arrives without a proxy's Via, https's TLS reaches the origin")
    func socks5() async throws {
        let socks = try Self.server("HERON_SOCKS_URL")
        let socksH = "socks5h://" + (try Self.authority("HERON_SOCKS_URL"))
        let plain = try await Self.probe(["all_proxy": socksH], try Self.server("HERON_FAULT_URL") + "/headers")
        #expect(plain.status == 200, "\(plain)")
        #expect(try plain.echoedFields()["via"] == nil)
        #expect(plain.proxy == socks)
        #expect(plain.proxiedEvents == [socks])
        let tls = try await Self.probe(["ALL_PROXY": socksH], try Self.tlsOrigin())
        #expect(tls.error == "serverTrustFailed", "\(tls)")
        // A port nothing listens on: the SOCKS proxy's refusal, named.
        let refused = try await Self.probe(["all_proxy": socksH], "http://127.0.0.1:1/")
        #expect(refused.failures?.first == "proxyConnectFailed", "\(refused)")
        #expect(refused.description?.contains("Can't complete SOCKS5 connection") == true)
    }

    @Test("Basic credentials in the proxy's URL are sent to the proxy, which keeps them from the origin")
    func proxyCredentials() async throws {
        let password = try Self.server("HERON_PROXY_PASSWORD")
        let user = try Self.server("HERON_PROXY_USER")
        let authority = try Self.authority("HERON_PROXY_AUTH_URL")
        let outcome = try await Self.probe(
            ["http_proxy": "http://\(Self.encoded(user)):\(Self.encoded(password))@\(authority)"],
            try Self.server("HERON_FAULT_URL") + "/headers", secrets: [password, Self.encoded(password)])
        #expect(outcome.status == 200, "\(outcome)")
        let fields = try outcome.echoedFields()
        #expect(fields["via"]?.first?.contains("heron-proxy-auth") == true, "\(fields)")
        #expect(fields["proxy-authorization"] == nil)
        #expect(outcome.proxy == "http://\(authority)")
    }

    @Test("no credentials: the proxy's 407 is proxyAuthenticationFailed naming the proxy, not retried")
    func missingCredentials() async throws {
        let proxy = try Self.server("HERON_PROXY_AUTH_URL")
        let plain = try await Self.probe(["http_proxy": proxy], try Self.server("HERON_FAULT_URL") + "/headers")
        #expect(plain.error == "proxyAuthenticationFailed", "\(plain)")
        #expect(plain.attempts == 1)
        #expect(plain.description?.contains("the proxy \(proxy) asked for credentials (407)") == true)
        let tunnel = try await Self.probe(["https_proxy": proxy], try Self.tlsOrigin())
        #expect(tunnel.error == "proxyAuthenticationFailed", "\(tunnel)")
        #expect(tunnel.description?.contains("answered CONNECT with 407") == true)
    }

    @Test("a wrong proxy password is proxyAuthenticationFailed after one attempt, and never printed")
    func wrongPassword() async throws {
        let wrong = "wr0ng-S3CRET-proxy-pw"
        let authority = try Self.authority("HERON_PROXY_AUTH_URL")
        let withWrong = "http://" + (try Self.authority("HERON_PROXY_AUTH_URL", password: wrong))
        let tunnel = try await Self.probe(["https_proxy": withWrong], try Self.tlsOrigin(), secrets: [wrong])
        #expect(tunnel.error == "proxyAuthenticationFailed", "\(tunnel)")
        #expect(tunnel.attempts == 1)
        #expect(
            tunnel.description?.contains("http://\(authority) refused the tunnel with the credentials given") == true)
        // A plain request: the proxy's 407 comes back as a response, which is the proxy's.
        let plain = try await Self.probe(
            ["http_proxy": withWrong], try Self.server("HERON_FAULT_URL") + "/headers", secrets: [wrong])
        #expect(plain.error == "proxyAuthenticationFailed", "\(plain)")
        #expect(plain.attempts == 1)
        #expect(plain.description?.contains("the request went with the credentials given") == true)
    }

    @Test("a proxy that wants Digest gets libcurl's Basic credentials only: proxyAuthenticationFailed")
    func digestProxy() async throws {
        // swift-corelibs-foundation sets no CURLOPT_PROXYAUTH, and libcurl's default is Basic
        // alone: it sends the password Basic-encoded and does not answer the Digest challenge.
        let password = try Self.server("HERON_PROXY_PASSWORD")
        let proxy = "http://" + (try Self.authority("HERON_PROXY_DIGEST_URL", password: password))
        for (variable, url) in [
            ("http_proxy", try Self.server("HERON_FAULT_URL") + "/headers"), ("https_proxy", try Self.tlsOrigin()),
        ] {
            let outcome = try await Self.probe(
                [variable: proxy], url, secrets: [password, Self.encoded(password)])
            #expect(outcome.error == "proxyAuthenticationFailed", "\(variable): \(outcome)")
            #expect(outcome.attempts == 1)
        }
    }

    @Test("libcurl sends the proxy URL's Basic credentials to the proxy before any challenge, in a CONNECT too")
    func preemptiveBasic() async throws {
        let secret = "S3CRET-preemptive"
        let faultProxy = try Self.server("HERON_FAULT_PROXY_URL")
        let marker = "/preemptive-\(UUID().uuidString)"
        let outcome = try await Self.probe(
            ["http_proxy": "http://heron:\(secret)@\(try Self.authority("HERON_FAULT_PROXY_URL"))"],
            try Self.server("HERON_FAULT_URL") + marker, secrets: [secret])
        // The fault proxy cuts every body; what matters is what it was sent.
        #expect(outcome.failures?.first == "truncatedBody", "\(outcome)")
        let seen = try await TransportFixture.json(
            try await URLSessionTransport().send(
                HTTPRequest(url: try #require(URL(string: faultProxy + "/seen"))), options: TransportOptions()))
        let requests = try #require(seen["requests"] as? [[String: Any]])
        let ours = requests.filter { ($0["line"] as? String)?.contains(marker) == true }
        #expect(!ours.isEmpty)
        let basic = "Basic " + Data("heron:\(secret)".utf8).base64EncodedString()
        for request in ours {
            let fields = try #require(request["fields"] as? [String: [String]])
            #expect(fields["proxy-authorization"] == [basic], "\(fields)")
        }
        // An https request: the CONNECT carries them (the fault proxy then closes the tunnel at
        // the TLS handshake), named by a host of its own that is never resolved here.
        let host = "\(UUID().uuidString.lowercased()).localhost"
        let tunnel = try await Self.probe(
            ["https_proxy": "http://heron:\(secret)@\(try Self.authority("HERON_FAULT_PROXY_URL"))"],
            "https://\(host):8443/", secrets: [secret])
        #expect(tunnel.error != nil, "\(tunnel)")
        let again = try await TransportFixture.json(
            try await URLSessionTransport().send(
                HTTPRequest(url: try #require(URL(string: faultProxy + "/seen"))), options: TransportOptions()))
        let connects = try #require(again["requests"] as? [[String: Any]]).filter {
            ($0["line"] as? String) == "CONNECT \(host):8443 HTTP/1.1"
        }
        #expect(!connects.isEmpty)
        for connect in connects {
            #expect((connect["fields"] as? [String: [String]])?["proxy-authorization"] == [basic])
        }
    }

    @Test(
        "NO_PROXY sends the request straight to the origin past a proxy that is not there",
        arguments: [
            ("no_proxy", "localhost", "api.localhost"), ("no_proxy", ".localhost", "api.localhost"),
            ("NO_PROXY", "localhost", "localhost"), ("no_proxy", "127.0.0.1", "127.0.0.1"),
            ("no_proxy", "example.com, 127.0.0.0/8", "127.0.0.1"), ("no_proxy", "*", "127.0.0.1"),
        ])
    func bypass(variable: String, list: String, host: String) async throws {
        let port = try #require(URL(string: try Self.server("HERON_FAULT_URL"))?.port)
        let outcome = try await Self.probe(
            ["http_proxy": "http://127.0.0.1:1", variable: list], "http://\(host):\(port)/headers")
        #expect(outcome.status == 200, "\(outcome)")
        #expect(outcome.proxy == nil)
        #expect(outcome.proxiedEvents.isEmpty)
    }

    @Test("a host NO_PROXY does not list goes to the proxy")
    func notBypassed() async throws {
        let port = try #require(URL(string: try Self.server("HERON_FAULT_URL"))?.port)
        let outcome = try await Self.probe(
            ["http_proxy": "http://127.0.0.1:1", "no_proxy": "example.com, 10.0.0.0/8, notlocalhost"],
            "http://api.localhost:\(port)/headers")
        #expect(outcome.failures?.first == "proxyConnectFailed", "\(outcome)")
        #expect(outcome.description?.contains("no connection to the proxy http://127.0.0.1:1") == true)
    }

    @Test("a NO_PROXY entry with a port, which curl 7.88 ignores, fails the request it alone would keep from the proxy")
    func portEntry() async throws {
        let port = try #require(URL(string: try Self.server("HERON_FAULT_URL"))?.port)
        let outcome = try await Self.probe(
            ["http_proxy": try Self.server("HERON_PROXY_URL"), "no_proxy": "127.0.0.1:\(port)"],
            "http://127.0.0.1:\(port)/headers")
        #expect(outcome.error == "proxyUnsupported", "\(outcome)")
        #expect(outcome.attempts == 1)
    }

    @Test("an https or socks4 proxy, which libcurl speaks to, is used and named: a closed one is proxyConnectFailed")
    func otherProxyKinds() async throws {
        for (value, named) in [
            ("https://heron:S3CRET-kind@127.0.0.1:1", "https://127.0.0.1:1"),
            ("socks4://127.0.0.1:1", "socks4://127.0.0.1:1"),
        ] {
            let outcome = try await Self.probe(["https_proxy": value], try Self.tlsOrigin(), secrets: ["S3CRET-kind"])
            #expect(outcome.failures?.first == "proxyConnectFailed", "\(outcome)")
            #expect(outcome.description?.contains("no connection to the proxy \(named)") == true, "\(outcome)")
        }
    }

    @Test("a proxy that goes away mid-body: truncatedBody, retried")
    func proxyGoesAwayMidBody() async throws {
        let outcome = try await Self.probe(
            ["http_proxy": try Self.server("HERON_FAULT_PROXY_URL")], try Self.server("HERON_FAULT_URL") + "/bytes")
        #expect(outcome.error == "tooManyRetries", "\(outcome)")
        #expect(outcome.failures?.allSatisfy { $0 == "truncatedBody" } == true)
        #expect(outcome.description?.contains("1000 of the 100000 bytes") == true)
    }

    @Test(
        "on Linux a proxy of one's own, another environment or a closure is refused at once with proxyUnsupported")
    func refusedPolicies() {
        let policies: [ProxyPolicy] = [
            .through(Proxy(host: "127.0.0.1", port: 3128)), .choosing { _ in nil },
            .environment(["https_proxy": "http://127.0.0.1:3128"]),
        ]
        for policy in policies {
            let error = #expect(throws: ClientError.self) { _ = try URLSessionTransport(proxy: policy) }
            #expect(error?.code == .proxyUnsupported, "\(policy)")
            #expect(error?.message.contains("AsyncHTTPClientTransport") == true)
        }
    }
    #endif

    @Test(
        "a Unix-socket URL is refused at send, typed, naming the transport that takes it",
        arguments: [
            "http+unix://%2Ftmp%2Fheron-none.sock/info", "https+unix://%2Ftmp%2Fheron-none.sock/info",
            "unix:///tmp/heron-none.sock",
        ])
    func unixSocketRefused(url: String) async throws {
        let request = HTTPRequest(url: try #require(URL(string: url)))
        let error = await #expect(throws: ClientError.self) {
            _ = try await URLSessionTransport().send(request, options: TransportOptions())
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("Unix domain socket") == true, "\(String(describing: error))")
        #expect(error?.message.contains("AsyncHTTPClientTransport") == true)
    }

    /// Drives a transfer as URLSession's delegate does on Linux for an https request through
    /// an HTTP proxy, the proxy's answer to CONNECT first.
    static func tunnelled(
        _ deliver: @escaping @Sendable (URLSessionTransfer, HTTPRequest) throws -> Void
    )
        async throws -> TransportResponse
    {
        let request = HTTPRequest(url: URL(string: "https://origin.example/data")!)
        let transfer = URLSessionTransfer(
            request: request, options: TransportOptions(), timers: DeadlineScheduler(),
            proxy: Proxy(host: "127.0.0.1", port: 3128))
        return try await withCheckedThrowingContinuation { continuation in
            guard transfer.prepare(continuation) else { return }
            do { try deliver(transfer, request) } catch { Issue.record(error) }
        }
    }

    static func head(_ status: Int, _ request: HTTPRequest, _ fields: [String: String]) throws -> HTTPURLResponse {
        try #require(
            HTTPURLResponse(url: request.url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: fields))
    }

    @Test("through a tunnel the origin's head is the response, not the proxy's answer to CONNECT")
    func tunnelHeadIsTheOrigins() async throws {
        let response = try await Self.tunnelled { transfer, request in
            _ = transfer.didReceive(try Self.head(200, request, ["Proxy-Agent": "tinyproxy"]))
            _ = transfer.didReceive(try Self.head(201, request, ["Content-Length": "2", "X-Origin": "yes"]))
            _ = transfer.didReceive(Data("ok".utf8))
            transfer.didComplete(error: nil)
        }
        #expect(response.head.status.code == 201)
        #expect(response.head.headerFields[try HTTPFieldName("X-Origin")] == "yes")
        #expect(response.proxy == Proxy(host: "127.0.0.1", port: 3128))
        #expect(try await response.body?.collect(upTo: 10) == Data("ok".utf8))
    }

    @Test("a reused tunnel brings the origin's head alone, and a response without a body is answered at its end")
    func reusedTunnel() async throws {
        let response = try await Self.tunnelled { transfer, request in
            _ = transfer.didReceive(try Self.head(204, request, ["X-Origin": "yes"]))
            transfer.didComplete(error: nil)
        }
        #expect(response.head.status.code == 204)
    }

    @Test("a failure after the proxy's answer to CONNECT carries no response of the proxy's")
    func failureAfterConnect() async throws {
        let error = await #expect(throws: ClientError.self) {
            _ = try await Self.tunnelled { transfer, request in
                _ = transfer.didReceive(try Self.head(200, request, [:]))
                transfer.didComplete(
                    error: URLError(
                        .unknown,
                        userInfo: [
                            NSLocalizedDescriptionKey: "SSL certificate problem: unable to get local issuer certificate"
                        ]
                    ))
            }
        }
        #expect(error?.code == .serverTrustFailed, "\(String(describing: error))")
        #expect(error?.response == nil)
    }
}
