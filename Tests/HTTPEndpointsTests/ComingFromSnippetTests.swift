import Foundation
import HTTPClientTesting
import HTTPEndpoints
import TestSupport
import Testing

// Each Heron cell of the "compiled rows" tables in Docs/ComingFromOtherLibraries.md, verbatim,
// compiled and run here over a stub transport; each row's two cells counted as
// SeedExampleLengthTests counts, and the tables' last column checked (and, with
// HERON_REGENERATE_DOCS=1, rewritten) from those counts.

extension EndpointCall<ComingFromSnippetTests.User> {
    /// Moya's `.createUser(firstName:lastName:)`, bound to its endpoint.
    static func createUser(firstName: String, lastName: String) -> Self {
        ComingFromSnippetTests.MyService.createUser.with(.init(firstName: firstName, lastName: lastName))
    }
}

extension EndpointCall<String> {
    /// Moya's `.zen`, bound to its endpoint.
    static var zen: Self { ComingFromSnippetTests.MyService.zen.with(variables: [:]) }
}

@Suite("Coming from Alamofire, Moya, Get and URLSession")
struct ComingFromSnippetTests {
    struct User: Codable, Sendable { var id: Int }
    struct DecodableType: Codable, Sendable { var url: String? }
    struct Login: Encodable, Sendable {
        var email: String
        var password: String
    }
    struct NewUser: Encodable, Sendable {
        var firstName: String
        var lastName: String
    }
    /// Moya's `MyService`, as an endpoint group.
    enum MyService: EndpointGroup {
        static let baseURL = URL(string: "https://api.myservice.com")!
        static let zen = Endpoint<Empty, String>(.get, "/zen")
        static let createUser = Endpoint<NewUser, User>(.post, "/users", body: .json)
    }

    /// One row of a compiled table: the library's cell, Heron's, and the counts column.
    struct Row {
        var library: String
        var original: String
        var heron: String
        var counts: String
        /// The counts column as the cells make it: `original → Heron`.
        var expectedCounts: String { "\(Self.count(original)) → \(Self.count(heron))" }

        /// The characters left once whitespace is removed, as SeedExampleLengthTests counts.
        static func count(_ text: String) -> Int { text.filter { !$0.isWhitespace }.count }
    }

    /// The rows of the compiled tables.
    static func rows(_ guide: String) -> [Row] {
        var rows: [Row] = []
        var library: String?
        for line in guide.components(separatedBy: "\n") {
            if line == "<!-- compiled rows -->" {
                library = ""
            } else if line == "<!-- end compiled rows -->" {
                library = nil
            } else if let current = library, line.hasPrefix("| ") {
                let columns = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                    .map { $0.trimmingCharacters(in: .whitespaces) }
                guard columns.count == 3 else { continue }
                if current.isEmpty, columns[1] == "Heron" {
                    library = columns[0]
                    continue
                }
                guard columns[0].hasPrefix("`"), columns[1].hasPrefix("`") else { continue }
                rows.append(
                    Row(
                        library: current, original: String(columns[0].dropFirst().dropLast()),
                        heron: String(columns[1].dropFirst().dropLast()), counts: columns[2]))
            }
        }
        return rows
    }

    @Test("every Heron cell of the tables appears verbatim in this file")
    func everyCellIsHere() throws {
        let tests = try SnippetSource.read("Tests/HTTPEndpointsTests/ComingFromSnippetTests.swift")
        let rows = Self.rows(try SnippetSource.read("Docs/ComingFromOtherLibraries.md"))
        #expect(rows.count == 21)
        #expect(Set(rows.map(\.library)) == ["Alamofire", "Moya", "Get", "URLSession"])
        // Compared without whitespace: the formatter wraps the longer cells over several lines here.
        let compact = tests.filter { !$0.isWhitespace }
        for row in rows {
            #expect(compact.contains(row.heron.filter { !$0.isWhitespace }), "not tested: \(row.heron)")
        }
    }

    @Test("no Heron cell is longer than its library's, and the counts column is the cells' count")
    func countedWhole() throws {
        let path = "Docs/ComingFromOtherLibraries.md"
        var guide = try SnippetSource.read(path)
        let rows = Self.rows(guide)
        var stale = 0
        for row in rows {
            #expect(
                Row.count(row.heron) <= Row.count(row.original),
                "\(row.library): \(row.expectedCounts): the Heron cell is longer: \(row.heron)")
            if row.counts != row.expectedCounts {
                stale += 1
                guide = guide.replacingOccurrences(
                    of: "`\(row.heron)` | \(row.counts) |", with: "`\(row.heron)` | \(row.expectedCounts) |")
            }
        }
        if stale > 0, ProcessInfo.processInfo.environment["HERON_REGENERATE_DOCS"] == "1" {
            try guide.write(
                to: SnippetSource.packageRoot.appendingPathComponent(path), atomically: true, encoding: .utf8)
        } else {
            #expect(stale == 0, "\(stale) stale counts in \(path): run with HERON_REGENERATE_DOCS=1 to rewrite them")
        }
        let original = rows.reduce(0) { $0 + Row.count($1.original) }
        let heron = rows.reduce(0) { $0 + Row.count($1.heron) }
        print("\(rows.count) rows: \(heron) characters of Heron against \(original)")
    }

    @Test("the cells run over a stub")
    func cellsRun() async throws {
        let stub = StubTransport(fallback: .status(.ok, body: Data(#"{"id":1,"url":"u"}"#.utf8)))
        stub.on(.path("/zen"), reply: .status(.ok, body: Data("Design for failure.".utf8)))
        let client = Client(transport: stub)
        let login = Login(email: "test@test.test", password: "testPassword")
        let headers = ["Authorization": "Basic VXNlcm5hbWU6UGFzc3dvcmQ=", "Accept": "application/json"]
        let user = "user"
        let password = "password"
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("heron-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("png")
        let fileURL = directory.appendingPathComponent("in")
        try Data("file".utf8).write(to: fileURL)
        let output = Locked<[String]>([])
        @Sendable func debugPrint(_ item: Any) { output.withLock { $0.append("\(item)") } }
        @Sendable func print(_ item: Any) { output.withLock { $0.append("\(item)") } }
        var printed: [String] { output.withLock { $0 } }

        // Alamofire
        debugPrint(try await client.get("https://httpbin.org/get", as: DecodableType.self))
        debugPrint(try await client.send(.post("https://httpbin.org/post").json(login)))
        debugPrint(try await client.send(.get("https://httpbin.org/get").query(["foo": "bar"])))
        debugPrint(
            try await client.send(.get("https://httpbin.org/headers").headers(headers), decoding: DecodableType.self))
        debugPrint(try await client.get("https://httpbin.org/get", as: Data.self))
        debugPrint(
            try await client.send(
                .get("https://httpbin.org/basic-auth/\(user)/\(password)").intercepted(
                    by: BasicAuth(username: user, password: password)), decoding: DecodableType.self))
        debugPrint(
            try await client.send(
                .post("https://httpbin.org/post").multipart { $0.append(name: "one", value: "one") },
                decoding: DecodableType.self))
        debugPrint(
            try await client.send(
                .post("https://httpbin.org/post").body(try HTTPBody(fileAt: fileURL)).uploadProgress {
                    print("Upload Progress: \($0.fraction)")
                }, decoding: DecodableType.self))
        debugPrint(try await client.download(.get("https://httpbin.org/image/png"), to: destination))
        debugPrint(try await client.send(.get("https://httpbin.org/get").retries(2), decoding: DecodableType.self))
        let sent = stub.requests
        #expect(sent.count == 10)
        #expect(sent[1].headerFields[.contentType] == "application/json")
        #expect(sent[2].url.query == "foo=bar")
        #expect(sent[3].headerFields[.accept] == "application/json")
        #expect(sent[5].headerFields[.authorization] == "Basic dXNlcjpwYXNzd29yZA==")
        #expect(sent[6].headerFields[.contentType]?.hasPrefix("multipart/form-data") == true)
        #expect(try Data(contentsOf: destination) == Data(#"{"id":1,"url":"u"}"#.utf8))
        #expect(printed.contains { $0.hasPrefix("Upload Progress: ") })

        // Moya
        do {
            let client = Client(for: MyService.self, transport: stub)
            debugPrint(try await client.call(.zen))
            debugPrint(try await client.call(.createUser(firstName: "James", lastName: "Potter")))
            #expect(printed.suffix(2) == ["Design for failure.", "User(id: 1)"])
            #expect(stub.requests.last?.url.absoluteString == "https://api.myservice.com/users")
        }
        do {
            let client = Client(for: MyService.self)
            #expect(client.baseURL == MyService.baseURL)
        }

        // Get
        do {
            let client = Client(baseURL: "https://api.github.com")
            #expect(client.baseURL?.host == "api.github.com")
        }
        do {
            let client = Client(baseURL: "https://api.github.com", transport: stub)
            let user: User = try await client.get("/user")
            try await client.send(.post("/user/emails").json(["alex@me.com"]))
            #expect(user.id == 1 && stub.requests.last?.url.absoluteString == "https://api.github.com/user/emails")
        }

        // URLSession
        do {
            let url = URL(string: "https://httpbin.org/anything")!
            let file = fileURL
            let user = User(id: 1)
            let response = try await client.send(HTTPRequest(url: url))
            let request = HTTPRequest(method: .post, url: url).json(user)
            let decoded = try await client.send(request, decoding: User.self)
            let uploaded = try await client.send(request.body(try HTTPBody(fileAt: file)))
            let stream = try await client.stream(HTTPRequest(url: url))
            var bytes = 0
            for try await chunk in stream.body { bytes += chunk.count }
            #expect(response.isSuccess && decoded.id == 1 && uploaded.isSuccess && bytes == 18)
            #expect(stub.requests.last(where: { $0.method == .post })?.body?.length == .known(4))
        }
    }
}
