import Foundation
import HTTPClientTesting
import TestSupport
import Testing

@testable import HTTPClient

/// Every public type that holds a credential (a password, a token, a refresh's result, a
/// private key), and a client holding one, prints none of it however it is rendered:
/// interpolation, `String(describing:)`, `String(reflecting:)` (a debugger's `po`), `dump`,
/// and its mirror's children at every depth.
@Suite("Credentials are never rendered")
struct CredentialRenderingTests {
    static let privateKey = "-----BEGIN PRIVATE KEY-----\nS3CRET-KEY-MATERIAL\n-----END PRIVATE KEY-----\n"

    static func expectNoSecret<Value>(
        in value: Value, secrets: [String] = ["S3CRET"], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for text in Renderings.of(value) {
            for secret in secrets {
                #expect(!text.contains(secret), "\(secret) rendered in: \(text)", sourceLocation: sourceLocation)
            }
        }
    }

    static func identity() throws -> TrustPolicy.ClientIdentity {
        let certificate = try TrustPolicy.Certificate(der: Data([0x30, 0x82] + Array(repeating: 0x01, count: 40)))
        return try TrustPolicy.ClientIdentity(certificateChain: [certificate], privateKeyPEM: privateKey)
    }

    static func client(_ interceptor: any Interceptor) -> Client {
        Client(
            baseURL: URL(string: "https://api.example.com/v1")!, interceptors: [interceptor, ResponseValidation()],
            retry: .none)
    }

    @Test("BasicAuth shows its user name and never its password")
    func basic() {
        let basic = BasicAuth(username: "ada", password: "S3CRET-basic")
        Self.expectNoSecret(in: basic)
        Self.expectNoSecret(in: Self.client(basic))
        #expect(String(describing: basic) == #"BasicAuth(username: "ada", password: <redacted>)"#)
        #expect(Mirror(reflecting: basic).children.map(\.label) == ["username", "password"])
    }

    @Test("BearerAuth with a fixed token, valid or not, never shows it")
    func bearer() {
        for token in ["S3CRET-bearer", "S3CRET-bad\r\nline"] {
            let bearer = BearerAuth(token: token)
            Self.expectNoSecret(in: bearer)
            Self.expectNoSecret(in: Self.client(bearer))
            #expect(String(describing: bearer) == "BearerAuth(token: <redacted>)")
        }
    }

    @Test("a TokenRefresher, and BearerAuth and a client holding it, never show its tokens, before or after a refresh")
    func refresher() async throws {
        let tokens = TokenRefresher(token: "S3CRET-first") { _ in "S3CRET-next" }
        let bearer = BearerAuth(tokens)
        let client = Self.client(bearer)
        for value in [tokens, bearer, client] as [Any] { Self.expectNoSecret(in: value) }
        #expect(try await tokens.refresh(after: 0) == "S3CRET-next")
        #expect(await tokens.token == "S3CRET-next")
        Self.expectNoSecret(in: tokens)
        Self.expectNoSecret(in: bearer)
        Self.expectNoSecret(in: client)
        #expect(String(describing: bearer) == "BearerAuth(TokenRefresher(token: <redacted>))")
    }

    @Test("DigestAuth shows its user name and never its password, also once it holds a challenge")
    func digest() async throws {
        let digest = DigestAuth(username: "ada", password: "S3CRET-digest")
        Self.expectNoSecret(in: digest)
        let stub = StubTransport()
        stub.on(
            .any,
            reply: .status(
                .unauthorized,
                headerFields: [
                    try HTTPField(name: .wwwAuthenticate, value: #"Digest realm="r", nonce="n1", qop="auth""#)
                ]
            ))
        let client = Client(
            baseURL: URL(string: "https://api.example.com/v1")!, transport: stub, interceptors: [digest], retry: .none)
        _ = try? await client.send(HTTPRequest(url: URL(string: "me")!))
        Self.expectNoSecret(in: digest)
        Self.expectNoSecret(in: client)
        #expect(String(describing: digest) == #"DigestAuth(username: "ada", password: <redacted>)"#)
    }

    @Test("a client identity, and a trust policy holding one, never show the private key")
    func trustPolicy() throws {
        let identity = try Self.identity()
        let policy = TrustPolicy(clientIdentity: identity)
        for value in [identity, policy] as [Any] {
            Self.expectNoSecret(in: value, secrets: ["S3CRET", "PRIVATE KEY"])
        }
        #expect(String(reflecting: identity) == "ClientIdentity(1 certificates, key redacted)")
        #expect(Mirror(reflecting: identity).children.map(\.label) == ["certificateChain", "privateKeyPEM"])
    }

    @Test("a client hides its base URL's password and secret query values and its credential header fields")
    func clientSettings() throws {
        let fields = try HTTPFields([
            "Authorization": "Bearer S3CRET-field", "X-Api-Key": "S3CRET-key", "Accept": "application/json",
        ])
        let client = Client(
            baseURL: URL(string: "https://ada:S3CRET-pw@api.example.com/v1?api_key=S3CRET-q&page=2")!,
            headerFields: fields, interceptors: [BasicAuth(username: "ada", password: "S3CRET-basic")], retry: .none)
        Self.expectNoSecret(in: client)
        let shown = String(describing: client)
        #expect(shown.contains("https://ada:***@api.example.com/v1?api_key=***&page=2"), "\(shown)")
        #expect(shown.contains("Accept: application/json") && shown.contains("Authorization: <redacted>"), "\(shown)")
        #expect(shown.contains(#"BasicAuth(username: "ada", password: <redacted>)"#), "\(shown)")
        #expect(shown.contains("transport: URLSessionTransport"), "\(shown)")
    }

    @Test("default header fields show their credential fields' values as <redacted>, alone and in a client")
    func defaultHeaderFields() throws {
        let headers = DefaultHeaderFields(["Authorization": "Bearer S3CRET-field", "Accept": "application/json"])
            .adding(try HTTPFieldName("X-Api-Key"), mode: .always) { _ in "S3CRET-computed" }
            .adding(["X-Session-Token": "S3CRET-token"])
            .adding(["Bad Name": "S3CRET-invalid"])
        Self.expectNoSecret(in: headers)
        Self.expectNoSecret(in: Self.client(headers))
        let shown = String(describing: headers)
        #expect(shown.contains("Accept: application/json") && shown.contains("Authorization: <redacted>"), "\(shown)")
        #expect(shown.contains("X-Session-Token: <redacted>") && shown.contains("computed: [X-Api-Key]"), "\(shown)")
    }

    @Test(
        "a client error's mirror hides the URL's secrets, the response's cookies, the body's tokens and the cause's URL"
    )
    func clientError() throws {
        let url = URL(string: "https://ada:S3CRET-pw@api.example.com/v1?access_token=S3CRET-q&page=2")!
        let response = HTTPResponse(
            status: .unauthorized,
            headerFields: try HTTPFields(["Set-Cookie": "session=S3CRET-cookie", "Content-Type": "application/json"]))
        let error = ClientError(
            .authenticationFailed, "the server rejected the credentials", request: HTTPRequest(url: url),
            response: response, body: Data(#"{"access_token":"S3CRET-body","error":"invalid_token"}"#.utf8),
            underlying: URLError(.userAuthenticationRequired, userInfo: [NSURLErrorFailingURLErrorKey: url]))
        Self.expectNoSecret(in: error)
        var dumped = ""
        dump(error, to: &dumped)
        for shown in [
            "https://ada:***@api.example.com/v1?access_token=***&page=2", "Set-Cookie: <redacted>",
            "Content-Type: application/json", #""error":"invalid_token""#, "authenticationFailed",
        ] {
            #expect(dumped.contains(shown), "\(shown) not in \(dumped)")
        }
    }
    static let proxyPassword = "S3CRET-proxy-pw"

    @Test("a proxy, its credentials and every proxy policy never show the proxy's password")
    func proxies() throws {
        let credentials = Proxy.Credentials(username: "ci", password: Self.proxyPassword)
        let proxy = Proxy(host: "proxy.internal", port: 3128, credentials: credentials)
        let socks = try Proxy(url: "socks5h://ci:\(Self.proxyPassword)@127.0.0.1:1080")
        let policies: [ProxyPolicy] = [
            .direct, .through(proxy), .through(socks, bypass: "localhost, 10.0.0.0/8"), .choosing { _ in proxy },
            .environment([
                "https_proxy": "http://ci:\(Self.proxyPassword)@proxy.internal:3128", "no_proxy": "localhost",
                "ALL_PROXY": "socks5h://ci:\(Self.proxyPassword)@127.0.0.1:1080",
            ]),
            // curl takes a proxy without a scheme, credentials and all.
            .environment(["http_proxy": "ci:\(Self.proxyPassword)@proxy.internal:3128"]),
        ]
        for value in [proxy, socks, credentials] as [Any] + policies.map({ $0 as Any }) {
            Self.expectNoSecret(in: value, secrets: [Self.proxyPassword])
        }
        #expect(String(describing: proxy) == "http://proxy.internal:3128")
        #expect(String(describing: credentials) == "<redacted>")
        #expect(String(describing: policies[5]).contains("http_proxy='<redacted>@proxy.internal:3128'"))
        #expect(Mirror(reflecting: proxy).children.map(\.label) == ["kind", "host", "port", "credentials"])
    }

    @Test("an error of each proxy code never shows the proxy's password, nor does the message of a refused proxy URL")
    func proxyErrors() throws {
        let proxy = Proxy(
            host: "127.0.0.1", port: 3128, credentials: .init(username: "ci", password: Self.proxyPassword))
        let request = HTTPRequest(url: URL(string: "https://origin.example/")!)
        var errors: [ClientError] = []
        for value in ["ftp://ci:\(Self.proxyPassword)@proxy:21", "http://ci:\(Self.proxyPassword)@proxy:0"] {
            do {
                _ = try Proxy(url: value)
            } catch {
                errors.append(error)
            }
        }
        do {
            _ = try ProxyPolicy.environment(["https_proxy": "gopher://ci:\(Self.proxyPassword)@proxy:70"]).proxy(
                for: request.url)
        } catch {
            errors.append(error)
        }
        do {
            _ = try URLSessionTransport.proxyDictionary(for: .through(proxy))
        } catch {
            errors.append(error)
        }
        for text in ["CONNECT tunnel failed, response 403", "CONNECT tunnel failed, response 407"] {
            let urlError = URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: text])
            errors.append(try #require(URLSessionTransport.proxyError(urlError, request: request, proxy: proxy)))
        }
        errors.append(
            URLSessionTransport.proxyRefused(
                HTTPResponse(status: try HTTPStatus(code: 407)), through: proxy, request: request))
        #expect(
            Set(errors.map(\.code)) == [
                .invalidRequest, .proxyUnsupported, .proxyConnectFailed, .proxyAuthenticationFailed,
            ])
        for error in errors {
            Self.expectNoSecret(in: error, secrets: [Self.proxyPassword])
            #expect(error.message.contains("proxy"), "\(error.message)")
        }
    }

    @Test("the proxied event, metrics and a transport response name the proxy without its credentials")
    func proxyObservability() {
        let proxy = Proxy(
            host: "proxy.internal", port: 3128, credentials: .init(username: "ci", password: Self.proxyPassword))
        var metrics = ClientMetrics(attempts: [], redirects: 0, duration: .zero, bytesSent: nil, bytesReceived: nil)
        metrics.proxy = proxy
        let url = URL(string: "https://origin.example/")!
        // An event made by hand with the credentials still shows none.
        let events = [
            ClientEvent(requestID: 1, elapsed: .zero, kind: .proxied(url, proxy: proxy, attempt: 1)),
            ClientEvent(requestID: 1, elapsed: .zero, kind: .finished(status: .ok, error: nil, metrics: metrics)),
        ]
        let response = TransportResponse(head: HTTPResponse(status: .ok), body: nil, proxy: proxy)
        for value in [metrics, response, response.proxy as Any] + events.map({ $0 as Any }) {
            Self.expectNoSecret(in: value, secrets: [Self.proxyPassword, "ci"])
        }
        #expect(
            events[0].description
                == "#1 through proxy http://proxy.internal:3128 to https://origin.example/ (attempt 1)")
    }

    @Test("Logging hides the password of a proxy URL in an error's message")
    func loggingHidesProxyPasswords() throws {
        let lines = Collector<String>()
        let logging = Logging(.headers) { lines.append($0) }
        let request = HTTPRequest(url: URL(string: "https://origin.example/")!)
        var context = InterceptorContext(request: request)
        let error = ClientError(
            .proxyConnectFailed, "the proxy http://ci:\(Self.proxyPassword)@proxy.internal:3128/ refused the tunnel",
            request: request)
        _ = try logging.decide(.failure(error), context: &context)
        let logged = lines.values.joined(separator: "\n")
        #expect(!logged.contains(Self.proxyPassword), "\(logged)")
        #expect(logged.contains("http://ci:***@proxy.internal:3128/"), "\(logged)")
    }
}
