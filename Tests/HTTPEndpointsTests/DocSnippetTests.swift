import Foundation
import HTTPClient
import HTTPClientTesting
import HTTPCore
import HTTPEncoding
import HTTPEndpoints
import HTTPMultipart
import TestSupport
import Testing

// The snippets of Docs/HTTPEndpoints.md and Sources/HTTPEndpoints/HTTPEndpoints.docc, verbatim,
// run against the local httpbin of `scripts/test` (or a stub where the snippet says so), with
// `print` captured; `everyGuideSnippetIsHere` fails when a snippet there is not here.

struct Echo: Decodable, Sendable {
    var method: String
    var url: String
    var args: [String: String]
    var json: [String: String]?
}
struct Draft: Encodable, Sendable {
    var blog: String
    var title: String
}

enum Site {
    static let post = Endpoint<Empty, Echo>(.get, "/anything/posts/{id}")
    static let search = Endpoint<Empty, Echo>(.get, "/anything/posts{?q,page}")
    static let create = Endpoint<Draft, Echo>(.post, "/anything/blogs/{blog}/posts", body: .json)
}

enum Tuned {
    static let tuned = Endpoint<Empty, Echo>(.get, "/anything/tuned")
        .named("tuned")  // in errors
        .header(.acceptLanguage, "it-it")  // an invalid value fails every call, never sent
        .intercepted(by: Logging(.headers) { print($0) })  // prepare before the client's, decide after
        .timeout(.seconds(120))  // the head's wait, and each gap in the body
        .retriesNonIdempotent()  // the retry policies may re-send it
        .responseBodyLimit(1 << 20)
        .accepting(statuses: [200...299])
        .errorBody(ProblemDetails.self)
}

struct Rename: Encodable, Sendable {
    var name: String
}
enum Accounts: EndpointGroup {
    static let baseURL = URL(string: "https://api.example.com/v2")!
    static let headerFields: KeyValuePairs<HTTPFieldName, String> = [.acceptLanguage: "it-it"]
    static var defaults: EndpointDefaults {
        var defaults = EndpointDefaults()
        defaults.envelopeKeyPath = "data"  // every JSON answer is {"data": ...}
        return defaults
    }

    static let rename = Endpoint<Rename, Echo>(.patch, "/users/{id}", body: .json)
}
extension EndpointCall<Echo> {
    static func renameUser(id: Int, name: String) -> Self {
        Accounts.rename.with(Rename(name: name), variables: ["id": id])
    }
}

@Suite("Snippets of the HTTPEndpoints guide and catalog")
struct DocSnippetTests {
    @Test(
        "every ```swift snippet of the guide and the catalog appears verbatim in this file",
        arguments: ["Docs/HTTPEndpoints.md", "Sources/HTTPEndpoints/HTTPEndpoints.docc/HTTPEndpoints.md"])
    func everyGuideSnippetIsHere(document: String) throws {
        let tests = try SnippetSource.read("Tests/HTTPEndpointsTests/DocSnippetTests.swift")
        let blocks = SnippetSource.markdownBlocks(try SnippetSource.read(document))
        #expect(!blocks.isEmpty)
        for block in blocks {
            #expect(SnippetSource.contains(block, in: tests), "snippet of \(document) is not tested:\n\(block)")
        }
    }

    @Test("guide: declaring an API and calling it")
    func declaring() async throws {
        let baseURL = try TestServers.httpbin()
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let client = Client(baseURL: baseURL)
        let post = try await client.call(Site.post, variables: ["id": 42])
        print(post.method, post.url.hasSuffix("/anything/posts/42"))  // GET true
        let found = try await client.call(Site.search, variables: ["q": "swift http", "page": 2])
        print(found.args["q"] ?? "", found.args["page"] ?? "")  // swift http 2
        let created = try await client.call(Site.create, Draft(blog: "heron", title: "Hi"))
        print(created.url.hasSuffix("/blogs/heron/posts"), created.json ?? [:])  // true ["title": "Hi"]

        let response = try await client.response(for: Site.post, variables: ["id": 7])
        print(response.status, response.body.method)  // 200 OK GET

        #expect(
            printed == [
                "GET true", "swift http 2", #"true ["title": "Hi"]"#, "200 OK GET",
            ])
    }

    @Test("guide: an API declared once, called with bound calls (over a stub)")
    func declaredOnce() async throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let answer = Data(#"{"data":{"method":"PATCH","url":"u","args":{}}}"#.utf8)
        let stub = StubTransport(fallback: .status(.ok, body: answer))
        let accounts = Client(for: Accounts.self, transport: stub)
        let renamed = try await accounts.call(.renameUser(id: 1, name: "Ada"))
        print(renamed.method, stub.requests[0].url.path)  // PATCH /v2/users/1
        print(stub.requests[0].headerFields[.acceptLanguage] ?? "")  // it-it

        #expect(printed == ["PATCH /v2/users/1", "it-it"])
        #expect(stub.requests[0].method == .patch)
    }

    @Test("guide: URI templates and their errors")
    func templates() throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let template = try URITemplate("{/owner,repo}/issues{?state,labels*}{&page}")
        let path = try template.expand([
            "owner": "apple", "repo": "swift", "state": "open", "labels": ["bug", "good first"],
        ])
        print(path)  // /apple/swift/issues?state=open&labels=bug&labels=good%20first

        do {
            _ = try URITemplate("/users/{id")
        } catch {
            print(error.code, error.offset)  // unclosedExpression 7
        }

        let broken = Endpoint<Empty, Echo>(.get, "/users/{id")
        do { try broken.validate() } catch { print(error.code) }  // invalidTemplate

        #expect(
            printed == [
                "/apple/swift/issues?state=open&labels=bug&labels=good%20first", "unclosedExpression 7",
                "invalidTemplate",
            ])
    }

    @Test("guide: the table of operators holds for its example values")
    func operatorTable() throws {
        let values: [String: URITemplate.Value] = ["id": "a b/c", "tags": ["x", "y"]]
        let rows = [
            ("{id}", "a%20b%2Fc"), ("{+id}", "a%20b/c"), ("{#id}", "#a%20b/c"), ("{.tags}", ".x,y"),
            ("{/tags*}", "/x/y"), ("{;tags}", ";tags=x,y"), ("{?id,tags*}", "?id=a%20b%2Fc&tags=x&tags=y"),
            ("{&tags}", "&tags=x,y"),
        ]
        let guide = try SnippetSource.read("Docs/HTTPEndpoints.md")
        for (template, expected) in rows {
            #expect(try URITemplate(template).expand(values) == expected)
            #expect(guide.contains("| `\(template)` |") && guide.contains("| `\(expected)` |"))
        }
    }

    @Test("guide: sending a query in a chosen style, reading text, nothing and a key path")
    func sendingAndReading() async throws {
        let baseURL = try TestServers.httpbin()
        let client = Client(baseURL: baseURL)
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        struct Filter: Encodable, Sendable {
            var state: String
            var labels: [String]
            var mine: Bool
        }
        let issues = Endpoint<Filter, Echo>(
            .get, "/anything/issues", body: .query(FormEncoder(style: FormStyle(bools: .literal))))
        let echo = try await client.call(issues, Filter(state: "open", labels: ["bug"], mine: true))
        print(echo.args["labels[]"] ?? "", echo.args["mine"] ?? "")  // bug true

        let text = try await client.call(Endpoint<Empty, String>(.get, "/encoding/utf8"))
        print(text.contains("∮ E⋅da = Q"))  // true
        let nothing = try await client.call(Endpoint<Empty, Echo?>(.get, "/status/204"))
        print(nothing == nil)  // true
        let title = Endpoint<Draft, String>(.post, "/anything/items", response: .json(at: "json.title"))
        print(try await client.call(title, Draft(blog: "b", title: "t")))  // t

        #expect(printed == ["bug true", "true", "true", "t"])
    }

    @Test("guide: a rejected status with a declared error body that does not decode")
    func errors() async throws {
        let client = Client(baseURL: try TestServers.httpbin())
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let teapot = Endpoint<Empty, Echo>(.get, "/status/{code}").errorBody(ProblemDetails.self)
        do {
            _ = try await client.call(teapot, variables: ["code": 418])
        } catch let error as EndpointError {
            // httpbin's teapot is not problem+json: the status and body are kept instead.
            let problem = error.body(as: ProblemDetails.self)
            print(error.code, error.status?.code ?? 0, problem == nil)  // unacceptableStatus 418 true
        }
        #expect(printed == ["unacceptableStatus 418 true"])
    }

    @Test("guide: client-wide defaults and providers; an endpoint's settings")
    func defaults() async throws {
        let baseURL = try TestServers.httpbin()
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        var defaults = EndpointDefaults()
        defaults.jsonDecoder = JSONResponseDecoder {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            return decoder
        }
        defaults.provide("user") { "ada" }  // such as the signed-in user's id
        let api = Client(baseURL: baseURL, values: RequestValues(defaults))
        let drafts = Endpoint<Empty, Echo>(.get, "/anything/users/{user}/drafts")
        print(try await api.call(drafts).url.hasSuffix("/users/ada/drafts"))  // true
        print(try await api.call(drafts, variables: ["user": "bob"]).url.hasSuffix("/users/bob/drafts"))  // true

        #expect(printed == ["true", "true"])
        let tuned = try await api.response(for: Tuned.tuned)
        #expect(tuned.request.headerFields[.acceptLanguage] == "it-it")
        #expect(Tuned.tuned.name == "tuned" && Tuned.tuned.timeout == .seconds(120))
        #expect(Tuned.tuned.retriesNonIdempotent && Tuned.tuned.responseBodyLimit == 1 << 20)
    }

    @Test("guide: a multipart upload from a file and a download to a file, with progress")
    func uploadsAndDownloads() async throws {
        let client = Client(baseURL: try TestServers.httpbin())
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "heron-guide-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let imageFile = directory.appendingPathComponent("avatar.png")
        try Data(repeating: 0x89, count: 300_000).write(to: imageFile)
        let destination = directory.appendingPathComponent("bytes.bin")

        struct AvatarUpload: Encodable, Sendable {
            var id: Int
            var caption: String
            var image: MultipartFile
        }
        let upload = Endpoint<AvatarUpload, Echo>(.put, "/anything/users/{id}/avatar", body: .multipart)
        let avatar = AvatarUpload(id: 7, caption: "me", image: MultipartFile(fileAt: imageFile))
        let (updates, continuation) = AsyncStream.makeStream(of: TransferProgress.self)
        var options = RequestOptions()
        options.progress = .updates(continuation)
        async let echo = client.call(upload, avatar, options: options)
        var sent: TransferProgress?
        for await update in updates where update.direction == .upload { sent = update }
        print(try await echo.method, sent?.fractionCompleted ?? 0)  // PUT 1.0

        let bytes = Endpoint<Empty, URL>(.get, "/bytes/{count}")
        let saved = try await client.call(bytes, to: destination, variables: ["count": 4096])
        print(try FileManager.default.attributesOfItem(atPath: saved.path)[.size] ?? 0)  // 4096
        let temporary = try await client.call(bytes, variables: ["count": 16])  // yours to move or delete
        print(try Data(contentsOf: temporary).count)  // 16
        try FileManager.default.removeItem(at: temporary)

        #expect(printed == ["PUT 1.0", "4096", "16"])
    }

    @Test("guide: building a request and calling over a stub")
    func testing() async throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let request = try Site.create.makeRequest(Draft(blog: "heron", title: "Hi"))
        print(request, request.headerFields[.contentType] ?? "")  // POST /anything/blogs/heron/posts application/json
        let stub = StubTransport(fallback: .status(.ok, body: Data(#"{"method":"GET","url":"u","args":{}}"#.utf8)))
        let offline = Client(baseURL: URL(string: "https://api.example.com")!, transport: stub)
        print(try await offline.call(Site.post, variables: ["id": 1]).url)  // u

        #expect(printed == ["POST /anything/blogs/heron/posts application/json", "u"])
    }

    @Test("catalog: an API of users over a stub")
    func catalog() async throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        struct User: Codable, Sendable {
            var id: Int
            var name: String
        }
        struct Rename: Encodable, Sendable {
            var id: Int
            var name: String
        }

        enum Users {
            static let get = Endpoint<Empty, User>(.get, "/users/{id}")
            static let rename = Endpoint<Rename, User>(.patch, "/users/{id}", body: .json)
                .errorBody(ProblemDetails.self)
        }
        let stub = StubTransport(fallback: .status(.ok, body: Data(#"{"id":42,"name":"Ada"}"#.utf8)))
        let client = Client(baseURL: URL(string: "https://api.example.com/v2")!, transport: stub)
        let user = try await client.call(Users.get, variables: ["id": 42])
        let renamed = try await client.call(Users.rename, Rename(id: 42, name: "Ada"))
        print(user.name, renamed.id, stub.requests.map(\.url.path))  // Ada 42 ["/v2/users/42", "/v2/users/42"]

        #expect(printed == [#"Ada 42 ["/v2/users/42", "/v2/users/42"]"#])
        #expect(stub.recordedRequests.last?.body == Data(#"{"name":"Ada"}"#.utf8))
    }
}
