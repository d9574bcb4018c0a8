import Foundation
import HTTPEncoding
import Testing

@Suite("Fluent request bodies and queries")
struct HTTPRequestEncodingTests {
    struct NewUser: Encodable {
        var name: String
        var admin: Bool
    }

    static func text(_ request: HTTPRequest) async throws -> String {
        String(decoding: try await #require(request.body).collect(upTo: 1 << 20), as: UTF8.self)
    }

    @Test("json(_:) sets the body with its Content-Type and length")
    func json() async throws {
        let request = HTTPRequest.post("users").json(NewUser(name: "Ada", admin: false))
        #expect(request.headerFields[.contentType] == "application/json")
        #expect(try await Self.text(request) == #"{"admin":false,"name":"Ada"}"#)
        #expect(request.body?.length == .known(28))
        let untyped = HTTPRequest.post("users").json(object: ["name": "Ada"])
        #expect(try await Self.text(untyped) == #"{"name":"Ada"}"#)
    }

    @Test("form(_:) and query(_:) use the encoder's style")
    func formAndQuery() async throws {
        let form = HTTPRequest.post("login").form(["user": "ada", "password": "a b&c"])
        #expect(form.headerFields[.contentType] == "application/x-www-form-urlencoded")
        #expect(try await Self.text(form) == "password=a+b%26c&user=ada")
        let style = FormEncoder(style: FormStyle(arrays: .noBrackets, bools: .literal))
        let query = HTTPRequest.get("search?page=2").query(
            ["q": "swift", "tags": ["a", "b"], "new": true], encoder: style)
        #expect(query.url.relativeString == "search?page=2&new=true&q=swift&tags=a&tags=b")
    }

    @Test("a value that cannot be encoded is kept as the request's error, not dropped or thrown at the call site")
    func unencodable() throws {
        struct Reading: Encodable { var value: Double }
        let request = HTTPRequest.post("readings").json(Reading(value: .nan)).header(.accept, "application/json")
        let error = try #require(request.pendingError as? HTTPEncodingError)
        #expect(error.code == .jsonEncodingFailed)
        #expect(request.body == nil)
        #expect(throws: HTTPEncodingError.self) { try request.validated() }
    }
}
