import Foundation
import HTTPCore
import HTTPEncoding
import HTTPEndpoints
import HTTPMultipart
import Testing

/// Building requests from endpoints, without sending them.
@Suite("Endpoint requests")
struct EndpointRequestTests {
    struct NewPost: Encodable, Sendable {
        var blog: String
        var title: String
        var tags: [String]
    }

    struct Search: Encodable, Sendable {
        var q: String
        var page: Int
        var draft: Bool
        var owner: String?
    }

    struct Post: Codable, Sendable, Equatable {
        var id: Int
        var title: String
    }

    static func bodyText(_ request: HTTPRequest) async throws -> String {
        let body = try #require(request.body)
        return String(decoding: try await body.collect(upTo: 1 << 20), as: UTF8.self)
    }

    @Test("a property the path consumed is not sent again in the JSON body")
    func consumedPropertyLeavesBody() async throws {
        let create = Endpoint<NewPost, Post>(.post, "/blogs/{blog}/posts", body: .json)
        let request = try create.makeRequest(NewPost(blog: "heron", title: "Hi", tags: ["a"]))
        #expect(request.method == .post)
        #expect(request.url.relativeString == "/blogs/heron/posts")
        #expect(try await Self.bodyText(request) == #"{"tags":["a"],"title":"Hi"}"#)
        #expect(request.headerFields[.contentType] == "application/json")
        #expect(request.headerFields[.accept] == "application/json")
    }

    @Test("a query endpoint writes the properties the template left, in the encoder's style")
    func queryEncoding() throws {
        var style = FormStyle()
        style.bools = .literal
        let search = Endpoint<Search, [Post]>(.get, "/users/{owner}/posts", body: .query(FormEncoder(style: style)))
        let request = try search.makeRequest(Search(q: "a b&c", page: 2, draft: true, owner: "ada"))
        #expect(request.url.relativeString == "/users/ada/posts?draft=true&page=2&q=a%20b%26c")
        #expect(request.body == nil)
    }

    @Test("a query is appended after the template's own query, before its fragment")
    func queryAfterTemplateQuery() throws {
        let search = Endpoint<Search, Empty>(.get, "/search{?q}{#frag}", body: .query)
        let request = try search.makeRequest(
            Search(q: "x", page: 1, draft: false, owner: nil), variables: ["frag": "top"])
        #expect(request.url.relativeString == "/search?q=x&draft=0&page=1#top")
    }

    @Test("GET with an Encodable value sends a query by default, POST sends JSON")
    func automaticEncoding() async throws {
        struct Filter: Encodable, Sendable { var state: String }
        let list = Endpoint<Filter, Empty>(.get, "/issues")
        #expect(try list.makeRequest(Filter(state: "open")).url.relativeString == "/issues?state=open")
        let make = Endpoint<Filter, Empty>(.post, "/issues")
        let request = try make.makeRequest(Filter(state: "open"))
        #expect(try await Self.bodyText(request) == #"{"state":"open"}"#)
        #expect(request.url.relativeString == "/issues")
    }

    @Test("call-time variables win over the request value's properties")
    func explicitVariablesWin() async throws {
        let create = Endpoint<NewPost, Post>(.post, "/blogs/{blog}/posts", body: .json)
        let request = try create.makeRequest(NewPost(blog: "value", title: "T", tags: []), variables: ["blog": "call"])
        #expect(request.url.relativeString == "/blogs/call/posts")
        // The template names the property, so it is not sent though the call gave the variable.
        #expect(try await Self.bodyText(request) == #"{"tags":[],"title":"T"}"#)
    }

    @Test("lists and associative arrays from the value and the call expand as RFC 6570 says")
    func compositeVariables() throws {
        struct Query: Encodable, Sendable {
            var labels: [String]
            var filter: [String: String]
        }
        let endpoint = Endpoint<Query, Empty>(.get, "/issues{?labels*}{&filter*}", body: .query)
        let request = try endpoint.makeRequest(Query(labels: ["bug", "ui x"], filter: ["z": "1", "a": "2"]))
        // A dictionary's pairs are sorted, so the same value always gives the same URL.
        #expect(request.url.relativeString == "/issues?labels=bug&labels=ui%20x&a=2&z=1")

        let ordered = Endpoint<Empty, Empty>(.get, "/x{?keys*}")
        let explicit = try ordered.makeRequest(
            Empty(), variables: ["keys": URITemplate.Value.associative([("z", "1"), ("a", "2")])])
        #expect(explicit.url.relativeString == "/x?z=1&a=2")
    }

    @Test("scalars of every common type become template strings")
    func scalarVariables() throws {
        let endpoint = Endpoint<Empty, Empty>(.get, "/v{/a,b,c,d,e}")
        let id = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        let request = try endpoint.makeRequest(
            Empty(), variables: ["a": 42, "b": 2.5, "c": true, "d": id, "e": Date(timeIntervalSince1970: 0)])
        #expect(
            request.url.relativeString == "/v/42/2.5/true/E621E1F8-C36C-495A-93FC-0C247A3E6E5F/1970-01-01T00%3A00%3A00Z"
        )
    }

    @Test("a path variable's slash, query and fragment characters are encoded, never structural")
    func hostilePathVariables() throws {
        let user = Endpoint<Empty, Empty>(.get, "/users/{id}/profile")
        for (value, expected) in [
            ("../admin", "/users/..%2Fadmin/profile"), ("a/b", "/users/a%2Fb/profile"),
            ("x?admin=1", "/users/x%3Fadmin%3D1/profile"), ("x#y", "/users/x%23y/profile"),
            ("%2F", "/users/%252F/profile"), ("a\r\nb", "/users/a%0D%0Ab/profile"),
        ] {
            let request = try user.makeRequest(Empty(), variables: ["id": value])
            #expect(request.url.relativeString == expected)
            #expect(request.url.path(percentEncoded: true).split(separator: "/").count == 3)
            #expect(request.url.query == nil)
        }
    }

    @Test("a path variable of . or .. is refused, since it would move the request", arguments: [".", ".."])
    func dotSegmentsRefused(value: String) throws {
        let user = Endpoint<Empty, Empty>(.get, "/users/{id}/profile")
        let error = #expect(throws: EndpointError.self) { try user.makeRequest(Empty(), variables: ["id": value]) }
        #expect(error?.code == .invalidVariable)
        #expect(error?.variable == "id")
        let segments = Endpoint<Empty, Empty>(.get, "/files{/path*}")
        let listError = #expect(throws: EndpointError.self) {
            try segments.makeRequest(Empty(), variables: ["path": ["a", value]])
        }
        #expect(listError?.code == .invalidVariable)
    }

    @Test("a missing or empty path variable is an error before anything is sent; a query variable may be missing")
    func missingVariables() throws {
        let user = Endpoint<Empty, Empty>(.get, "/users/{id}{?fields}")
        let missing = #expect(throws: EndpointError.self) { try user.makeRequest(Empty()) }
        #expect(missing?.code == .missingVariable)
        #expect(missing?.variable == "id")
        #expect(missing?.description.contains("\"id\"") == true)
        let empty = #expect(throws: EndpointError.self) { try user.makeRequest(Empty(), variables: ["id": ""]) }
        #expect(empty?.code == .missingVariable)
        let nilValue: Int? = nil
        #expect(throws: EndpointError.self) { try user.makeRequest(Empty(), variables: ["id": nilValue]) }
        #expect(try user.makeRequest(Empty(), variables: ["id": 7]).url.relativeString == "/users/7")
    }

    @Test("a value with no template form is refused, naming the variable")
    func unsupportedShape() throws {
        let endpoint = Endpoint<Empty, Empty>(.get, "/x{?grid}")
        let error = #expect(throws: EndpointError.self) {
            try endpoint.makeRequest(Empty(), variables: ["grid": [[1, 2], [3]]])
        }
        #expect(error?.code == .invalidVariable)
        #expect(error?.variable == "grid")
        let prefix = Endpoint<Empty, Empty>(.get, "/x{/tags:2}")
        let prefixError = #expect(throws: EndpointError.self) {
            try prefix.makeRequest(Empty(), variables: ["tags": ["a", "b"]])
        }
        #expect(prefixError?.code == .invalidVariable)
    }

    @Test("an invalid template fails every call with its offset, and validate() reports it")
    func invalidTemplate() throws {
        let broken = Endpoint<Empty, Empty>(.get, "/users/{id")
        #expect(broken.template == nil)
        let error = #expect(throws: EndpointError.self) { try broken.validate() }
        #expect(error?.code == .invalidTemplate)
        #expect((error?.underlying as? URITemplateError)?.offset == 7)
        #expect(throws: EndpointError.self) { try broken.makeRequest(Empty(), variables: ["id": 1]) }
    }

    @Test("a header value with CR or LF is never sent: the endpoint fails with a typed error")
    func invalidHeader() throws {
        let endpoint = Endpoint<Empty, Empty>(.get, "/x").header(.acceptLanguage, "it\r\nX-Evil: 1")
        let error = #expect(throws: EndpointError.self) { try endpoint.makeRequest(Empty()) }
        #expect(error?.code == .invalidHeaderField)
        let badName = Endpoint<Empty, Empty>(.get, "/x").header("Bad Name", "v")
        #expect(throws: EndpointError.self) { try badName.validate() }
        let good = Endpoint<Empty, Empty>(.get, "/x").header(.acceptLanguage, "it-it").header("X-Api-Version", "2")
        let request = try good.makeRequest(Empty())
        #expect(request.headerFields[.acceptLanguage] == "it-it")
        #expect(request.headerFields[try HTTPFieldName("x-api-version")] == "2")
    }

    @Test("form and multipart bodies carry their content types; multipart streams its file parts")
    func formAndMultipart() async throws {
        struct Login: Encodable, Sendable {
            var user: String
            var password: String
        }
        let login = Endpoint<Login, Empty>(.post, "/login", body: .form)
        let request = try login.makeRequest(Login(user: "ada", password: "a b&c"))
        #expect(request.headerFields[.contentType] == "application/x-www-form-urlencoded")
        #expect(try await Self.bodyText(request) == "password=a+b%26c&user=ada")

        struct Upload: Encodable, Sendable {
            var id: Int
            var caption: String
            var file: MultipartFile
        }
        let upload = Endpoint<Upload, Empty>(.put, "/users/{id}/avatar", body: .multipart)
        let file = MultipartFile(
            data: Data("PNG".utf8), filename: "a.png", contentType: try MediaType(type: "image", subtype: "png"))
        let multipart = try upload.makeRequest(Upload(id: 3, caption: "me", file: file))
        #expect(multipart.url.relativeString == "/users/3/avatar")
        let type = try MediaType(parsing: try #require(multipart.headerFields[.contentType]))
        #expect(type.essence == "multipart/form-data")
        let text = try await Self.bodyText(multipart)
        #expect(text.contains("name=\"caption\""))
        #expect(text.contains("filename=\"a.png\""))
        #expect(!text.contains("name=\"id\""))
        #expect(text.contains(try #require(type.parameters.first { $0.name == "boundary" }?.value)))
    }

    @Test("a raw body is sent as it is, with the declared content type")
    func rawBody() async throws {
        let put = Endpoint<HTTPBody, Empty>(.put, "/blobs/{name}", body: .raw(contentType: .octetStream))
        let request = try put.makeRequest(HTTPBody("bytes"), variables: ["name": "b1"])
        #expect(request.headerFields[.contentType] == "application/octet-stream")
        #expect(try await Self.bodyText(request) == "bytes")
    }

    @Test("an absolute template is used as it is")
    func absoluteTemplate() throws {
        let endpoint = Endpoint<Empty, Data>(.get, "https://cdn.example.com{/path*}")
        let request = try endpoint.makeRequest(Empty(), variables: ["path": ["img", "a b.png"]])
        #expect(request.url.absoluteString == "https://cdn.example.com/img/a%20b.png")
    }
}
