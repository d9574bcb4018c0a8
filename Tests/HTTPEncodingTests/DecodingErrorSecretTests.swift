import Foundation
import HTTPCore
import HTTPEncoding
import TestSupport
import Testing

/// A body that fails to decode is not repeated with its secrets in the error: the error's
/// value, description, reflection, dump and localized description hide secret-named members
/// as a body's description does, and still say what failed and where.
@Suite("Secrets in decoding errors")
struct DecodingErrorSecretTests {
    /// An OAuth token response (RFC 6749 §5.1) whose `expires_in` is not a number.
    static let tokenBody = Data(#"{"access_token":"SECRET123","token_type":"Bearer","expires_in":"soon"}"#.utf8)

    struct TokenResponse: Decodable {
        var accessToken: String
        var tokenType: String
        var expiresIn: Int

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case tokenType = "token_type"
            case expiresIn = "expires_in"
        }
    }

    /// Every way an error is turned into text, and the value and reason it keeps.
    static func renderings(of error: HTTPEncodingError) -> [String] {
        Renderings.of(error) + [error.value, error.reason]
    }

    static func expectNo(
        _ secret: String, in error: HTTPEncodingError?, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let error else {
            Issue.record("no error", sourceLocation: sourceLocation)
            return
        }
        for text in renderings(of: error) {
            #expect(!text.contains(secret), "\(secret) printed in: \(text)", sourceLocation: sourceLocation)
        }
    }

    @Test("a token response that fails to decode hides the token and names the coding path")
    func tokenResponse() throws {
        let json = HTTPResponse(status: .ok, headerFields: try HTTPFields(["Content-Type": "application/json"]))
        let error = #expect(throws: HTTPEncodingError.self) {
            try JSONResponseDecoder().decode(TokenResponse.self, from: Self.tokenBody, response: json)
        }
        Self.expectNo("SECRET123", in: error)
        #expect(error?.code == .jsonDecodingFailed)
        #expect(error?.keyPath == ["expires_in"])
        #expect(error?.description.contains("at expires_in") == true)
        #expect(error?.description.contains("Int") == true)
        // The rest of the body is still shown, the token as `***`.
        #expect(error?.value == #"{"access_token":"***","token_type":"Bearer","expires_in":"soon"}"#)
    }

    @Test("a body refused for its content type is shown without its secrets")
    func contentType() throws {
        let text = HTTPResponse(status: .ok, headerFields: try HTTPFields(["Content-Type": "text/plain"]))
        let form = Data("access_token=SECRET123&token_type=Bearer".utf8)
        let error = #expect(throws: HTTPEncodingError.self) {
            try JSONResponseDecoder().decode(TokenResponse.self, from: form, response: text)
        }
        Self.expectNo("SECRET123", in: error)
        #expect(error?.code == .unexpectedContentType)
        #expect(error?.reason.contains("access_token=***&token_type=Bearer") == true)
    }

    @Test("an element of a JSON stream that fails to decode hides the token")
    func streamElement() throws {
        let error = #expect(throws: HTTPEncodingError.self) {
            try JSONResponseDecoder().decode(
                [TokenResponse].self, from: Data("[".utf8) + Self.tokenBody + Data("]".utf8),
                response: HTTPResponse(status: .ok))
        }
        Self.expectNo("SECRET123", in: error)
        #expect(error?.keyPath == ["0", "expires_in"])
    }

    @Test("a form value under a secret name is not repeated in its decoding error")
    func formSecret() throws {
        struct Login: Decodable {
            var user: String
            var password: Int
        }
        let error = #expect(throws: HTTPEncodingError.self) {
            try FormDecoder().decode(Login.self, from: "user=ada&password=SECRET123")
        }
        Self.expectNo("SECRET123", in: error)
        #expect(error?.keyPath == ["password"])
        #expect(error?.value == "***")
        #expect(error?.description.contains("at password") == true)
    }

    @Test("a value under a name that is not secret is still shown")
    func formPlain() throws {
        struct Page: Decodable { var page: Int }
        let error = #expect(throws: HTTPEncodingError.self) { try FormDecoder().decode(Page.self, from: "page=two") }
        #expect(error?.value == "two")
    }
}
