import HTTPClientTesting
import HTTPEndpoints
import TestSupport
import Testing

// Each Heron cell of the "compiled rows" tables in Docs/ComingFromOtherLibraries.md, verbatim,
// compiled and run here over a stub transport.

extension EndpointCall<ComingFromSnippetTests.User> {
    /// The Moya row's bound call: `client.call(.user(id: 1))`.
    static func user(id: Int) -> Self { ComingFromSnippetTests.API.user.with(variables: ["id": id]) }
}

@Suite("Coming from Alamofire, Moya, Get and URLSession")
struct ComingFromSnippetTests {
    struct User: Codable, Sendable { var id: Int }
    struct Search: Encodable, Sendable { var q: String }
    struct Avatar: Encodable, Sendable {
        var id: Int
        var image: MultipartFile
    }
    enum API {
        static let user = Endpoint<Empty, User>(.get, "/users/{id}")
    }

    /// The Heron cells of the compiled tables.
    static func cells() throws -> [String] {
        let guide = try SnippetSource.read("Docs/ComingFromOtherLibraries.md")
        var cells: [String] = []
        var inside = false
        for line in guide.components(separatedBy: "\n") {
            if line == "<!-- compiled rows -->" {
                inside = true
            } else if line == "<!-- end compiled rows -->" {
                inside = false
            } else if inside, line.hasPrefix("| `") || line.hasPrefix("| ") {
                let columns = line.split(separator: "|", omittingEmptySubsequences: false)
                guard columns.count >= 3, let last = columns.dropLast().last else { continue }
                let cell = last.trimmingCharacters(in: .whitespaces)
                guard cell.hasPrefix("`"), cell.hasSuffix("`"), !cell.hasPrefix("---") else { continue }
                cells.append(String(cell.dropFirst().dropLast()))
            }
        }
        return cells
    }

    @Test("every Heron cell of the tables appears verbatim in this file")
    func everyCellIsHere() throws {
        let tests = try SnippetSource.read("Tests/HTTPEndpointsTests/ComingFromSnippetTests.swift")
        let cells = try Self.cells()
        #expect(cells.count == 28)
        for cell in cells { #expect(SnippetSource.contains([cell], in: tests), "not tested: \(cell)") }
    }

    @Test("the cells run over a stub")
    func cellsRun() async throws {
        let stub = StubTransport(fallback: .status(.ok, body: Data(#"{"id":1}"#.utf8)))
        stub.on(.path("/v2/users").and(.method(.get)), reply: .status(.ok, body: Data(#"[{"id":1}]"#.utf8)))
        let baseURL = URL(string: "https://api.example.com/v2")!
        let client = Client(baseURL: baseURL, transport: stub)
        let user = User(id: 1)
        let data = Data("file".utf8)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("heron-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("out")
        let file = directory.appendingPathComponent("in")
        try data.write(to: file)

        // Alamofire
        let fetched: User = try await client.get("users/1")
        let made = try await client.post("users", json: user, as: User.self)
        let page: [User] = try await client.get("users", query: ["page": 2])
        let localized = try await client.send(.get("users/1").header(.acceptLanguage, "it"))
        let checked: User = try await client.get("users/1")  // non-2xx throws EndpointError
        let upload = try await client.send(.post("upload").multipart { try $0.append(name: "file", data: data) })
        let saved = try await client.download(.get("report.pdf"), to: destination)
        let intercepted = Client(baseURL: baseURL, interceptors: [BearerAuth(token: "t")])
        let retrying = Client(baseURL: baseURL, retry: RetryStack.default.endingWithLastOutcome())
        let tracked = try await client.send(.post("upload").json(user).progress { print($0) })
        #expect(fetched.id == 1 && made.id == 1 && page.count == 1 && localized.isSuccess && checked.id == 1)
        #expect(upload.isSuccess && saved.body == destination && tracked.isSuccess)
        #expect(intercepted.interceptors.count == 1 && retrying.retry.whenExhausted == .lastOutcome)

        // Moya
        let users = Endpoint<Empty, [User]>(.get, "/users{?page}")
        let one = try await client.call(.user(id: 1))
        let create = Endpoint<User, User>(.post, "/users", body: .json)
        let search = Endpoint<Search, [User]>(.get, "/users", body: .query)
        let avatar = Endpoint<Avatar, Empty>(.put, "/users/{id}/avatar", body: .multipart)
        let plugged = Endpoint<Empty, User>(.get, "/me").intercepted(by: Logging(.line) { print($0) })
        let stubbed = Client(baseURL: baseURL, transport: StubTransport(fallback: .status(.ok)))
        let listed = try await client.call(users, variables: ["page": 1])
        let created = try await client.call(create, user)
        let found = try await client.call(search, Search(q: "a"))
        #expect(listed.count == 1 && one.id == 1 && created.id == 1 && found.count == 1)
        try await client.call(avatar, Avatar(id: 1, image: MultipartFile(data: data, filename: "a.png")))
        let me1 = try await client.call(plugged)
        #expect(me1.id == 1 && stubbed.interceptors.isEmpty)

        // Get
        let api = Client(baseURL: baseURL)
        let me: User = try await client.get("user")
        let posted = try await client.post("users", json: user, as: User.self)
        let agent = DefaultHeaderFields(try HTTPFields([.userAgent: "app"]))
        let downloaded = try await client.download(.get("file"), to: destination)
        _ = try await Client(baseURL: baseURL, transport: stub, interceptors: [agent]).send(.get("agent"))
        #expect(stub.requests.last?.headerFields[.userAgent] == "app")
        #expect(api.baseURL == baseURL && me.id == 1 && posted.id == 1)
        #expect(downloaded.body == destination)

        // URLSession
        let request = HTTPRequest.post("users").header(.accept, "application/json")
        let body = HTTPRequest.post("users").json(user)
        let decoded = try await client.send(request, decoding: User.self)
        let uploaded = try await client.send(.put("blob").body(try HTTPBody(fileAt: file)))
        let stream = try await client.stream(.get("events"))
        let converted = try URLRequest(.get("https://example.com/users"))
        #expect(body.headerFields[.contentType] == "application/json" && decoded.id == 1 && uploaded.isSuccess)
        var bytes = 0
        for try await chunk in stream.body { bytes += chunk.count }
        #expect(bytes == 8 && converted.httpMethod == "GET")
    }
}
