import Foundation
import HTTPClient
import HTTPClientTesting
import HTTPCore
import HTTPEndpoints
import TestSupport
import Testing

// The README's HTTPEndpoints example, verbatim (scripts/check-readme type-checks it on its
// own), run here over a stub transport.

private struct Post: Codable, Sendable {
    var id: Int
    var title: String
}
private struct NewPost: Encodable, Sendable { var title: String }

private enum Blog {
    static let post = Endpoint<Empty, Post>(.get, "/posts/{id}")  // RFC 6570 templates
    static let search = Endpoint<Empty, [Post]>(.get, "/posts{?q,tags*,page}")
    static let create = Endpoint<NewPost, Post>(.post, "/posts", body: .json).errorBody(ProblemDetails.self)
}

private func blog(client: Client) async throws {
    let post = try await client.call(Blog.post, variables: ["id": 42])  // GET /v2/posts/42, JSON decoded
    let found = try await client.call(Blog.search, variables: ["q": "swift", "tags": ["http", "nio"]])
    let created = try await client.call(Blog.create, NewPost(title: "Hi"))  // POST, application/json
    print(post.title, found.count, created.id)
}

@Suite("The README's HTTPEndpoints example")
struct ReadmeExampleTests {
    @Test("the example appears verbatim in this file")
    func exampleIsHere() throws {
        let readme = try SnippetSource.read("README.md")
        let section = try #require(readme.range(of: "**HTTPEndpoints** (compiles today)"))
        let block = try #require(SnippetSource.markdownBlocks(String(readme[section.upperBound...])).first)
        let tests = try SnippetSource.read("Tests/HTTPEndpointsTests/ReadmeExampleTests.swift")
        // `private` keeps this file's types apart from the other tests' types of the same names.
        #expect(SnippetSource.contains(block, in: tests.replacingOccurrences(of: "private ", with: "")))
    }

    @Test("the example runs: the requests it sends and the values it reads")
    func exampleRuns() async throws {
        let stub = StubTransport()
        stub.on(.path("/v2/posts/42"), reply: .status(.ok, body: Data(#"{"id":42,"title":"Hello"}"#.utf8)))
        stub.on(.method(.get), reply: .status(.ok, body: Data(#"[{"id":1,"title":"a"},{"id":2,"title":"b"}]"#.utf8)))
        stub.on(.method(.post), reply: .status(.created, body: Data(#"{"id":43,"title":"Hi"}"#.utf8)))
        try await blog(client: Client(baseURL: URL(string: "https://api.example.com/v2")!, transport: stub))
        #expect(
            stub.requests.map { "\($0.method) \($0.url.absoluteString)" } == [
                "GET https://api.example.com/v2/posts/42",
                "GET https://api.example.com/v2/posts?q=swift&tags=http&tags=nio",
                "POST https://api.example.com/v2/posts",
            ])
        #expect(stub.recordedRequests.last?.body == Data(#"{"title":"Hi"}"#.utf8))
        #expect(stub.requests.last?.headerFields[.contentType] == "application/json")
    }
}
