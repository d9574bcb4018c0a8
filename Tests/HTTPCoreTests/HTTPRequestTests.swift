import Foundation
import HTTPCore
import Testing

@Suite("HTTPRequest")
struct HTTPRequestTests {
    @Test("defaults to GET with no fields and no body")
    func defaults() throws {
        let request = HTTPRequest(url: try #require(URL(string: "https://example.com/")))
        #expect(request.method == .get)
        #expect(request.headerFields.isEmpty)
        #expect(request.body == nil)
        #expect(request.description == "GET https://example.com/")
    }

    @Test(
        "splits the URL into scheme, authority, path and query",
        arguments: [
            ("https://example.com", "https", "example.com", "/", nil),
            ("https://example.com:8443/a/b?x=1&y=2", "https", "example.com:8443", "/a/b", "x=1&y=2"),
            ("http://user:secret@example.com:81/p", "http", "example.com:81", "/p", nil),
            ("http://[::1]:8080/v1/items", "http", "[::1]:8080", "/v1/items", nil),
            ("http://[2001:db8::1]/", "http", "[2001:db8::1]", "/", nil),
            ("https://example.com/a%20b/c%2Fd?q=a%20b&r=%26", "https", "example.com", "/a%20b/c%2Fd", "q=a%20b&r=%26"),
            ("https://example.com/search?", "https", "example.com", "/search", ""),
            ("https://example.com/#fragment", "https", "example.com", "/", nil),
        ] as [(String, String, String, String, String?)])
    func components(url: String, scheme: String, authority: String, path: String, query: String?) throws {
        let request = HTTPRequest(url: try #require(URL(string: url)))
        #expect(request.scheme == scheme)
        #expect(request.authority == authority)
        #expect(request.path == path)
        #expect(request.query == query)
    }

    @Test("a relative URL has no scheme or authority")
    func relativeURL() throws {
        let request = HTTPRequest(method: .delete, url: try #require(URL(string: "items/42?force=1")))
        #expect(request.scheme == nil)
        #expect(request.authority == nil)
        #expect(request.path == "items/42")
        #expect(request.query == "force=1")
        #expect(request.description == "DELETE items/42?force=1")
    }

    @Test("the description hides a password in the URL")
    func descriptionHidesPassword() throws {
        let request = HTTPRequest(url: try #require(URL(string: "https://user:hunter2@example.com/a?b=1")))
        #expect(request.description == "GET https://user:***@example.com/a?b=1")
        let noPassword = HTTPRequest(url: try #require(URL(string: "https://user@example.com/")))
        #expect(noPassword.description == "GET https://user@example.com/")
    }

    @Test("holds fields and a body, and copies independently")
    func valueSemantics() async throws {
        var original = HTTPRequest(
            method: .post, url: try #require(URL(string: "https://example.com/items")),
            headerFields: try HTTPFields(["Content-Type": "application/json"]), body: HTTPBody("{}"))
        let copy = original
        try original.headerFields.set(.contentType, "text/plain")
        original.method = .put
        original.body = nil
        #expect(copy.method == .post)
        #expect(copy.headerFields[.contentType] == "application/json")
        #expect(try await copy.body?.collect(upTo: 2) == Data("{}".utf8))
        #expect(original.headerFields[.contentType] == "text/plain")
    }
}

@Suite("HTTPResponse")
struct HTTPResponseTests {
    @Test("holds status, fields and the final URL")
    func holdsParts() throws {
        let url = try #require(URL(string: "https://example.com/final"))
        let response = HTTPResponse(status: .created, headerFields: try HTTPFields(["Location": "/items/1"]), url: url)
        #expect(response.status == .created)
        #expect(response.headerFields[.location] == "/items/1")
        #expect(response.url == url)
        #expect(response.description == "201 Created")
        #expect(HTTPResponse(status: .ok).url == nil)
    }

    @Test("parses Content-Type, or nil when malformed or absent")
    func contentType() throws {
        let json = HTTPResponse(status: .ok, headerFields: try HTTPFields(["content-type": "Application/JSON"]))
        #expect(json.contentType == .json)
        let bad = HTTPResponse(status: .ok, headerFields: try HTTPFields(["Content-Type": "not a type"]))
        #expect(bad.contentType == nil)
        #expect(HTTPResponse(status: .ok).contentType == nil)
    }

    @Test(
        "reads Content-Length only when it is digits (RFC 9110 §8.6)",
        arguments: [
            (["0"], 0),
            (["1234"], 1234),
            (["9223372036854775807"], Int64.max),
            (["5, 5"], 5),
            (["5", "5"], 5),
            (["5", "6"], nil),
            (["5, 6"], nil),
            (["+5"], nil),
            (["-1"], nil),
            (["1 2"], nil),
            (["0x10"], nil),
            (["1.0"], nil),
            (["9223372036854775808"], nil),
            ([""], nil),
            (["5,"], nil),
            ([], nil),
        ] as [([String], Int64?)])
    func contentLength(values: [String], expected: Int64?) throws {
        var fields = HTTPFields()
        for value in values { try fields.append(name: .contentLength, value: value) }
        #expect(HTTPResponse(status: .ok, headerFields: fields).contentLength == expected)
    }

    @Test("equality compares status, fields and URL")
    func equality() throws {
        let fields = try HTTPFields(["A": "1"])
        #expect(HTTPResponse(status: .ok, headerFields: fields) == HTTPResponse(status: .ok, headerFields: fields))
        #expect(HTTPResponse(status: .ok, headerFields: fields) != HTTPResponse(status: .ok))
        #expect(HTTPResponse(status: .ok) != HTTPResponse(status: .noContent))
    }
}
