import Foundation
import HTTPClient
import HTTPClientTesting
import HTTPCore
import HTTPEncoding
import HTTPEndpoints
import TestSupport
import Testing

// Each test holds, verbatim, the ```swift examples of the documentation comments of
// Sources/HTTPEndpoints and runs them over a stub transport, with `print` captured.
// `everySourceExampleIsHere` fails when an example is missing from this file.

struct MemberUpdate: Encodable, Sendable { var name: String }
struct Member: Decodable, Sendable { var name: String }
enum Members: EndpointGroup {
    static let baseURL = URL(string: "https://api.example.com/v2")!
    static let update = Endpoint<MemberUpdate, Member>(.patch, "/members/{id}", body: .json)
}
extension EndpointCall<Member> {
    static func updateMember(id: Int, name: String) -> Self {
        Members.update.with(MemberUpdate(name: name), variables: ["id": id])
    }
}

/// The EndpointGroup example, compiled only: it would call GitHub.
private func gitHubExample(token: String) async throws {
    struct User: Decodable, Sendable { var login: String }
    enum GitHub: EndpointGroup {
        static let baseURL = URL(string: "https://api.github.com")!
        static let headerFields: KeyValuePairs<HTTPFieldName, String> = [.accept: "application/vnd.github+json"]
        static var defaults: EndpointDefaults {
            var defaults = EndpointDefaults()
            defaults.jsonDecoder = JSONResponseDecoder {
                let decoder = JSONDecoder()
                decoder.keyDecodingStrategy = .convertFromSnakeCase
                return decoder
            }
            return defaults
        }

        static let user = Endpoint<Empty, User>(.get, "/users/{login}")
    }

    let client = Client(for: GitHub.self, interceptors: [BearerAuth(token: token)])
    let user = try await client.call(GitHub.user, variables: ["login": "octocat"])
    _ = user
}

@Suite("Examples in the HTTPEndpoints documentation comments")
struct SourceExampleTests {
    @Test("every ```swift example of Sources/HTTPEndpoints appears verbatim in this file")
    func everySourceExampleIsHere() throws {
        let tests = try SnippetSource.read("Tests/HTTPEndpointsTests/SourceExampleTests.swift")
        let root = SnippetSource.packageRoot.appendingPathComponent("Sources/HTTPEndpoints")
        let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
        var count = 0
        for file in files.sorted() where file.hasSuffix(".swift") {
            for block in SnippetSource.docCommentBlocks(try SnippetSource.read("Sources/HTTPEndpoints/\(file)")) {
                count += 1
                #expect(SnippetSource.contains(block, in: tests), "example in \(file) is not tested:\n\(block)")
            }
        }
        #expect(count >= 15)
    }

    static func stubClient(_ body: String, status: HTTPStatus = .ok, fields: HTTPFields = []) -> (Client, StubTransport)
    {
        let stub = StubTransport(fallback: .status(status, headerFields: fields, body: Data(body.utf8)))
        return (Client(baseURL: URL(string: "https://api.example.com/v2")!, transport: stub), stub)
    }

    @Test("Endpoint, Client.call, Client.response(for:) and makeRequest")
    func endpointAndCalls() async throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        let (client, stub) = Self.stubClient(
            #"{"id":42,"title":"Hi"}"#, status: .created,
            fields: [try HTTPField(name: .location, value: "/posts/42")])
        stub.on(.path("/v2/posts").and(.method(.get)), reply: .status(.ok, body: Data(#"[{"id":1,"title":"a"}]"#.utf8)))

        struct Post: Codable, Sendable {
            var id: Int
            var title: String
        }
        struct NewPost: Encodable, Sendable { var title: String }

        enum Blog {
            static let post = Endpoint<Empty, Post>(.get, "/posts/{id}")
            static let search = Endpoint<Empty, [Post]>(.get, "/posts{?q,tags*,page}")
            static let create = Endpoint<NewPost, Post>(.post, "/posts", body: .json)
                .header(.acceptLanguage, "en")
                .errorBody(ProblemDetails.self)
        }

        let post = try await client.call(Blog.post, variables: ["id": 42])
        let found = try await client.call(Blog.search, variables: ["q": "swift", "tags": ["http", "nio"]])
        let created = try await client.call(Blog.create, NewPost(title: "Hi"))
        #expect(post.id == 42 && created.title == "Hi" && found.count == 1)
        do {
            let created = try await client.call(Blog.create, NewPost(title: "Hi"))
            #expect(created.id == 42)
        }
        do {
            let post = try await client.call(Blog.post, variables: ["id": 42])
            #expect(post.id == 42)
        }
        let response = try await client.response(for: Blog.create, NewPost(title: "Hi"))
        print(response.status, response.headerFields[.location] ?? "", response.body.id)
        let request = try Blog.create.makeRequest(NewPost(title: "Hi"))
        print(request)  // POST /posts

        #expect(printed == ["201 Created /posts/42 42", "POST /posts"])
        #expect(
            stub.requests.map(\.url.absoluteString).prefix(2) == [
                "https://api.example.com/v2/posts/42",
                "https://api.example.com/v2/posts?q=swift&tags=http&tags=nio",
            ])
        #expect(stub.recordedRequests[2].body == Data(#"{"title":"Hi"}"#.utf8))
        #expect(stub.requests[2].headerFields[.acceptLanguage] == "en")
    }

    @Test("Empty, RequestEncoding, ResponseDecoding and ProblemDetails")
    func encodingsAndDecodings() async throws {
        let (client, stub) = Self.stubClient("")
        struct User: Decodable, Sendable {}
        struct Item: Decodable, Sendable {}
        struct Post: Decodable, Sendable {}

        let ping = Endpoint<Empty, Empty>(.get, "/status/{code}")
        try await client.call(ping, variables: ["code": 204])

        enum Blog {
            struct NewPost: Encodable {
                var blog: String
                var title: String
            }
            // POST /blogs/heron/posts with the body {"title":"Hi"}
            static let create = Endpoint<NewPost, Post>(.post, "/blogs/{blog}/posts", body: .json)
        }
        enum API {
            static let user = Endpoint<Empty, User>(.get, "/users/{id}")  // JSON, chosen for Decodable
            static let items = Endpoint<Empty, [Item]>(.get, "/items", response: .json(at: "data.items"))
            static let avatar = Endpoint<Empty, URL>(.get, "/users/{id}/avatar")  // a file, chosen for URL
        }
        enum Problems {
            static let user = Endpoint<Empty, User>(.get, "/users/{id}").errorBody(ProblemDetails.self)
        }

        #expect(stub.requests.map(\.url.path) == ["/v2/status/204"])
        let request = try Blog.create.makeRequest(Blog.NewPost(blog: "heron", title: "Hi"))
        #expect(request.url.relativeString == "/blogs/heron/posts")
        #expect(try await request.body?.collect(upTo: 100) == Data(#"{"title":"Hi"}"#.utf8))
        #expect(API.user.templateText == "/users/{id}" && API.items.method == .get && API.avatar.template != nil)
        #expect(Problems.user.name == "GET /users/{id}")
    }

    @Test("EndpointError and EndpointDefaults")
    func errorsAndDefaults() async throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        struct User: Decodable, Sendable {}
        enum API {
            static let user = Endpoint<Empty, User>(.get, "/users/{id}").errorBody(ProblemDetails.self)
        }
        do {
            let (client, _) = Self.stubClient(
                #"{"title":"No such user","status":404}"#, status: .notFound,
                fields: [try HTTPField(name: .contentType, value: "application/problem+json")])
            do {
                _ = try await client.call(API.user, variables: ["id": 0])
            } catch let error as EndpointError where error.code == .errorResponse {
                print(error.status ?? 0, error.body(as: ProblemDetails.self)?.title ?? "")
            }
        }
        #expect(printed == ["404 Not Found No such user"])

        actor Session { var userID = 7 }
        let session = Session()
        let baseURL = URL(string: "https://api.example.com")!
        var defaults = EndpointDefaults()
        defaults.jsonDecoder = JSONResponseDecoder {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            return decoder
        }
        defaults.provide("user") { await session.userID }  // fills {user} in every template
        let client = Client(baseURL: baseURL, values: RequestValues(defaults))
        let request = try Endpoint<Empty, Empty>(.get, "/users/{user}").makeRequest(
            Empty(), variables: ["user": await session.userID])
        #expect(request.url.relativeString == "/users/7")
        #expect(client.values.endpointDefaults.providedVariables == ["user"])
    }

    @Test("URITemplate, its values and its errors")
    func uriTemplates() throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let issues = try URITemplate("/repos{/owner,repo}/issues{?state,labels*,page}")
        let path = try issues.expand([
            "owner": "apple",
            "repo": "swift",
            "state": "open",
            "labels": ["bug", "good first issue"],
        ])
        // "/repos/apple/swift/issues?state=open&labels=bug&labels=good%20first%20issue"
        #expect(path == "/repos/apple/swift/issues?state=open&labels=bug&labels=good%20first%20issue")

        do {
            let template = try URITemplate("/users/{id}{?fields*}")
            let path = try template.expand(["id": "42", "fields": ["name", "email"]])
            // "/users/42?fields=name&fields=email"
            #expect(path == "/users/42?fields=name&fields=email")
        }
        do {
            let template = try URITemplate("/repos{/owner,repo}")
            let path = try template.expand { name in name == "owner" ? "apple" : "swift" }
            // "/repos/apple/swift"
            #expect(path == "/repos/apple/swift")
        }
        let values: [String: URITemplate.Value] = [
            "owner": "apple",  // .string
            "labels": ["bug", "help wanted"],  // .list
            "sort": ["field": "created", "dir": "desc"],  // .associative, in this order
        ]
        #expect(try URITemplate("{?sort*}").expand(values) == "?field=created&dir=desc")

        do {
            _ = try URITemplate("/users/{id")
        } catch {
            print(error)  // invalid URI template "/users/{id" at offset 7: unclosed expression: ...
            print(error.code == .unclosedExpression, error.offset)  // true 7
        }
        #expect(printed.count == 2)
        #expect(
            printed.first?.hasPrefix(#"invalid URI template "/users/{id" at offset 7: unclosed expression"#) == true)
        #expect(printed.last == "true 7")
    }

    @Test("inferred get, decoded(as:), a group's client and a bound call")
    func secondRound() async throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        struct User: Decodable, Sendable { var name: String }
        struct Product: Decodable, Sendable { var name: String }
        let (client, stub) = Self.stubClient(
            #"{"name":"Ada"}"#, fields: [try HTTPField(name: .contentType, value: "application/json")])
        stub.on(.path("/v2/products"), reply: .status(.ok, body: Data(#"[{"name":"tea"}]"#.utf8)))
        do {
            let user = try await client.get("users/42", as: User.self)
            let products: [Product] = try await client.get("products")
            #expect(user.name == "Ada" && products.map(\.name) == ["tea"])
        }
        do {
            let response = try await client.send(.get("users/42"))
            let user = try response.decoded(as: User.self)
            print(user.status, user.body.name)
        }
        do {
            let transport = stub
            let client = Client(for: Members.self, transport: transport)
            let member = try await client.call(.updateMember(id: 1, name: "Ada"))
            #expect(member.name == "Ada")
        }
        #expect(printed == ["200 OK Ada"])
        #expect(stub.requests.last?.method == .patch && stub.requests.last?.url.path == "/v2/members/1")
    }

    @Test("decoding sends")
    func decodingSends() async throws {
        struct User: Codable, Sendable { var id: Int }
        struct NewUser: Encodable, Sendable { var name: String }
        let (client, stub) = Self.stubClient(#"{"id":42}"#)
        do {
            let user = try await client.send(.get("users/42"), decoding: User.self)
            #expect(user.id == 42)
        }
        do {
            let user = try await client.get("users/42", as: User.self)
            #expect(user.id == 42)
        }
        let made = try await client.post("users", json: NewUser(name: "Ada"), as: User.self)
        #expect(made.id == 42 && stub.requests.count == 3)
    }

    @Test("EventStream, EventReconnection, JSONStream, Client.events and Client.jsonStream")
    func eventStreams() async throws {
        var printed: [String] = []
        func print(_ items: Any..., terminator: String = "\n") {
            printed.append(items.map { "\($0)" }.joined(separator: " ") + terminator)
        }
        let events = try HTTPFields(["Content-Type": "text/event-stream"])
        let stub = StubTransport()
        let client = Client(baseURL: URL(string: "https://api.example.com/v2")!, transport: stub)

        let reconnecting = EventReconnection(delay: .seconds(1), maximumAttempts: 10)
        #expect(reconnecting.maximumAttempts == 10)

        stub.enqueue(
            .status(.ok, headerFields: events, body: Data("retry: 10\nevent: tick\nid: 1\ndata: a\n\n".utf8)),
            .status(.noContent))
        let ticks = try await client.events(.get("ticks"), reconnection: .standard)
        for try await event in ticks where event.type == "tick" { print(event.id, event.data) }
        #expect(printed == ["1 a\n"])
        #expect(stub.requests.last?.headerFields[.lastEventID] == "1")

        printed = []
        let chat = Data("data: {\"text\":\"Hel\"}\n\ndata: {\"text\":\"lo\"}\n\ndata: [DONE]\n\n".utf8)
        stub.enqueue(.status(.ok, headerFields: events, body: chat), .status(.ok, headerFields: events, body: chat))
        do {
            struct Delta: Decodable, Sendable { var text: String }
            let deltas = try await client.events(.get("chat/stream"), as: Delta.self, where: { $0.data != "[DONE]" })
            for try await event in deltas {
                print(event.data.text, terminator: "")
            }
        }
        do {
            struct Delta: Decodable, Sendable { var text: String }
            let deltas = try await client.events(.get("chat/stream"), as: Delta.self, where: { $0.data != "[DONE]" })
            var count = 0
            for try await _ in deltas { count += 1 }
            #expect(count == 2)
        }
        #expect(printed.joined() == "Hello")

        printed = []
        stub.enqueue(
            .status(
                .ok, headerFields: try HTTPFields(["Content-Type": "application/x-ndjson"]),
                body: Data("{\"level\":\"info\",\"message\":\"up\"}\n".utf8)))
        struct LogLine: Decodable, Sendable {
            var level: String
            var message: String
        }
        for try await line in try await client.jsonStream(.get("logs/tail"), as: LogLine.self) {
            print(line.level, line.message)
        }
        #expect(printed == ["info up\n"])

        struct Tick: Decodable, Sendable { var n: Int }
        enum Feed {
            static let ticks = Endpoint<Empty, EventStream<Tick>>(
                .get, "/ticks", response: .events(reconnection: .standard))
            static let logs = Endpoint<Empty, JSONStream<LogLine>>(.get, "/logs/tail")
        }
        stub.enqueue(
            .status(.ok, headerFields: events, body: Data("retry: 5\ndata: {\"n\":1}\n\n".utf8)), .status(.noContent),
            .status(.ok, headerFields: try HTTPFields(["Content-Type": "application/jsonl"]), body: Data()))
        var numbers: [Int] = []
        for try await tick in try await client.call(Feed.ticks) { numbers.append(tick.data.n) }
        #expect(numbers == [1])
        var lines = 0
        for try await _ in try await client.call(Feed.logs) { lines += 1 }
        #expect(lines == 0)
        #expect(stub.requests.last?.url.path == "/v2/logs/tail")
    }
}
