import Foundation
import HTTPClientTesting
import HTTPEndpoints
import TestSupport
import Testing

/// An endpoint whose response does not decode throws an error that says what failed and
/// where, without repeating the tokens of the body it failed on: not in its body, not in its
/// cause, however the error is printed.
@Suite("Secrets in endpoint decoding failures")
struct DecodingFailureSecretTests {
    /// An OAuth token response (RFC 6749 §5.1) whose `expires_in` is not a number.
    static let tokenBody = Data(
        #"{"access_token":"SECRET123","refresh_token":"SECRET456","token_type":"Bearer","expires_in":"soon"}"#.utf8)

    struct TokenResponse: Decodable, Sendable {
        var accessToken: String
        var refreshToken: String
        var tokenType: String
        var expiresIn: Int

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case refreshToken = "refresh_token"
            case tokenType = "token_type"
            case expiresIn = "expires_in"
        }
    }

    static func client(_ body: Data) throws -> Client {
        let json = try HTTPField(name: .contentType, value: "application/json")
        let stub = StubTransport(fallback: .status(.ok, headerFields: [json], body: body))
        return Client(baseURL: URL(string: "https://auth.example.com")!, transport: stub, retry: .none)
    }

    static func expectNoToken(in error: (any Error)?, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let error else {
            Issue.record("no error", sourceLocation: sourceLocation)
            return
        }
        for text in Renderings.of(error) {
            for secret in ["SECRET123", "SECRET456"] {
                #expect(!text.contains(secret), "\(secret) printed in: \(text)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test("an endpoint's token response that fails to decode hides its tokens in body and cause, naming the path")
    func endpoint() async throws {
        let token = Endpoint<Empty, TokenResponse>(.post, "/oauth/token")
        let error = await #expect(throws: EndpointError.self) {
            _ = try await Self.client(Self.tokenBody).call(token)
        }
        Self.expectNoToken(in: error)
        #expect(error?.code == .decodingFailed)
        #expect(error?.codingPath == ["expires_in"])
        let shown = error?.description ?? ""
        #expect(shown.contains("at: expires_in") && shown.contains("TokenResponse"), "\(shown)")
        #expect(shown.contains(#""access_token":"***""#), "\(shown)")
        #expect(shown.contains("cause: jsonDecodingFailed at expires_in"), "\(shown)")
    }

    @Test("a decoding send and a response decoded afterwards hide the tokens too")
    func decodingSend() async throws {
        let client = try Self.client(Self.tokenBody)
        let sent = await #expect(throws: EndpointError.self) {
            _ = try await client.post("oauth/token", json: ["grant_type": "client_credentials"], as: TokenResponse.self)
        }
        Self.expectNoToken(in: sent)
        let response = try await client.send(.post("oauth/token"))
        let decoded = #expect(throws: HTTPEncodingError.self) { _ = try response.decoded(as: TokenResponse.self) }
        Self.expectNoToken(in: decoded)
        #expect(decoded?.keyPath == ["expires_in"])
    }

    @Test("an endpoint error's mirror hides the URL's secrets, the response's cookies and the body's tokens")
    func errorMirror() async throws {
        let stub = StubTransport(
            fallback: .status(
                .badRequest, headerFields: [try HTTPField(name: .setCookie, value: "session=SECRET123")],
                body: Data(#"{"error":"invalid_grant","refresh_token":"SECRET456"}"#.utf8)))
        let client = Client(baseURL: URL(string: "https://auth.example.com")!, transport: stub, retry: .none)
        let token = Endpoint<Empty, TokenResponse>(.post, "/oauth/token{?client_secret,scope}")
        let error = await #expect(throws: EndpointError.self) {
            _ = try await client.call(token, variables: ["client_secret": "SECRET123", "scope": "read"])
        }
        Self.expectNoToken(in: error)
        var dumped = ""
        dump(error, to: &dumped)
        for shown in ["client_secret=***&scope=read", "Set-Cookie: <redacted>", #""error":"invalid_grant""#] {
            #expect(dumped.contains(shown), "\(shown) not in \(dumped)")
        }
    }
}
