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
}
