import Foundation
import HTTPCore
import HTTPEncoding
import Testing

@Suite("JSONResponseDecoder")
struct JSONResponseDecoderTests {
    struct Post: Decodable, Equatable {
        var id: Int
        var title: String
    }

    private func response(contentType: String?) throws -> HTTPResponse {
        guard let contentType else { return HTTPResponse(status: .ok) }
        return HTTPResponse(status: .ok, headerFields: try HTTPFields(["Content-Type": contentType]))
    }

    private let body = Data(#"{"id":7,"title":"Hi"}"#.utf8)

    @Test(
        "JSON and +json content types, or none, are decoded",
        arguments: [
            "application/json", "application/json; charset=utf-8", "application/problem+json",
            "application/vnd.api+json", nil,
        ])
    func decodes(contentType: String?) throws {
        let post = try JSONResponseDecoder().decode(Post.self, from: body, response: response(contentType: contentType))
        #expect(post == Post(id: 7, title: "Hi"))
    }

    @Test("another content type is refused showing the type and the start of the body")
    func wrongType() throws {
        let html = Data("<html><body>Bad gateway</body></html>".utf8)
        let error = #expect(throws: HTTPEncodingError.self) {
            try JSONResponseDecoder().decode(Post.self, from: html, response: response(contentType: "text/html"))
        }
        #expect(error?.code == .unexpectedContentType)
        #expect(error?.value == "text/html")
        #expect(error?.reason.contains("<html><body>Bad gateway") == true)
    }

    @Test("a missing key names the key path and shows the body")
    func keyNotFound() throws {
        let error = #expect(throws: HTTPEncodingError.self) {
            try JSONResponseDecoder().decode(
                [Post].self, from: Data(#"[{"id":1}]"#.utf8), response: response(contentType: nil))
        }
        #expect(error?.code == .jsonDecodingFailed)
        #expect(error?.keyPath.last == "title")
        #expect(error?.value == #"[{"id":1}]"#)
    }

    @Test("malformed JSON is a jsonDecodingFailed error, not a crash")
    func malformed() throws {
        let error = #expect(throws: HTTPEncodingError.self) {
            try JSONResponseDecoder().decode(
                Post.self, from: Data("{".utf8), response: response(contentType: "application/json"))
        }
        #expect(error?.code == .jsonDecodingFailed)
    }

    @Test("a configured JSONDecoder is used and chosen with static-member sugar")
    func sugar() throws {
        struct Created: Decodable, Equatable { var createdAt: Date }
        func decode<Value: Decodable>(
            _ type: Value.Type, with decoder: some ResponseDecoder, _ data: Data
        ) throws -> Value {
            try decoder.decode(type, from: data, response: HTTPResponse(status: .ok))
        }
        let data = Data(#"{"created_at":"2023-11-14T22:13:20Z"}"#.utf8)
        let makeDecoder: @Sendable () -> JSONDecoder = {
            let json = JSONDecoder()
            json.keyDecodingStrategy = .convertFromSnakeCase
            json.dateDecodingStrategy = .iso8601
            return json
        }
        let decoded = try decode(Created.self, with: .json(makeDecoder), data)
        #expect(decoded == Created(createdAt: Date(timeIntervalSince1970: 1_700_000_000)))
        #expect(try decode(Post.self, with: .json, body) == Post(id: 7, title: "Hi"))
    }
}
