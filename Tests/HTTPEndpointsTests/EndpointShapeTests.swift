import Foundation
import HTTPClient
import HTTPClientTesting
import HTTPCore
import HTTPEncoding
import HTTPEndpoints
import Testing

/// What a variable cannot do to a request, and the edge cases a review found.
@Suite("Endpoint request shape and edge cases")
struct EndpointShapeTests {
    struct Patch: Encodable, Sendable {
        var id: Int
        var name: String
    }

    @Test("an empty list element cannot turn a relative path into //host")
    func emptyElementsRefused() throws {
        let issues = Endpoint<Empty, Empty>(.get, "{/owner,repo}/issues")
        let error = #expect(throws: EndpointError.self) {
            try issues.makeRequest(Empty(), variables: ["owner": [""], "repo": "evil.example"])
        }
        #expect(error?.code == .missingVariable)
        #expect(error?.variable == "owner")
        let segments = Endpoint<Empty, Empty>(.get, "{/path*}")
        #expect(throws: EndpointError.self) {
            try segments.makeRequest(Empty(), variables: ["path": ["", "evil.example", "x"]])
        }
    }

    @Test("a relative template never expands to a scheme or a host, even through {+var}")
    func relativeStaysRelative() throws {
        let endpoint = Endpoint<Empty, Empty>(.get, "{+next}")
        for next in ["//evil.example/x", "https://evil.example/x", "javascript:alert(1)"] {
            let error = #expect(throws: EndpointError.self) {
                try endpoint.makeRequest(Empty(), variables: ["next": next])
            }
            #expect(error?.code == .invalidVariable)
        }
        #expect(try endpoint.makeRequest(Empty(), variables: ["next": "/a/b?c=d:e"]).url.relativeString == "/a/b?c=d:e")
    }

    @Test("dot segments are refused through prefixes, labels and reserved expansion too")
    func dotSegmentsEverywhere() throws {
        let cases: [(String, String, String)] = [
            ("/users/{id:2}/profile", "id", "..admin"), ("/files/{.ext}", "ext", "."),
            ("/a{+rest}", "rest", "/../admin"),
        ]
        for (template, name, value) in cases {
            let error = #expect(throws: EndpointError.self) {
                try Endpoint<Empty, Empty>(.get, template).makeRequest(Empty(), variables: [name: value])
            }
            #expect(error?.code == .invalidVariable)
        }
        // A template's own dot segment is the author's choice.
        let up = Endpoint<Empty, Empty>(.get, "/a/../b/{id}")
        #expect(try up.makeRequest(Empty(), variables: ["id": 1]).url.relativeString == "/a/../b/1")
    }

    @Test(
        "percent-encoded dot segments are refused too, for every operator that lets % through",
        arguments: ["/%2e%2e/admin", "/.%2E/admin", "/%2E./x", "/%2e/x", "/a/%2e%2e"])
    func encodedDotSegments(rest: String) throws {
        let error = #expect(throws: EndpointError.self) {
            try Endpoint<Empty, Empty>(.get, "/files{+rest}").makeRequest(Empty(), variables: ["rest": rest])
        }
        #expect(error?.code == .invalidVariable)
        // A fragment is no part of the path a server sees.
        let fragment = try Endpoint<Empty, Empty>(.get, "/files{#rest}").makeRequest(Empty(), variables: ["rest": rest])
        #expect(fragment.url.relativeString == "/files#\(rest)")
    }

    @Test("a value may hold dots and escapes that are no dot segment")
    func encodedDotsThatAreNoSegment() throws {
        let endpoint = Endpoint<Empty, Empty>(.get, "/files{+rest}")
        for rest in ["/%2e%2e%2e/x", "/a%2e/b", "/%2f%2e/x", "/%41%2E%2Ex/y", "/.../x"] {
            #expect(try endpoint.makeRequest(Empty(), variables: ["rest": rest]).url.relativeString == "/files\(rest)")
        }
    }

    @Test(
        "an absolute template's own text fixes its scheme, host and port; {+var} cannot move them",
        arguments: [".evil.example/x", "@evil.example/", ":8443/x", "evil/x", "%40evil.example/"])
    func absoluteOriginIsFixed(path: String) throws {
        let cdn = Endpoint<Empty, Empty>(.get, "https://cdn.example.com{+path}")
        let error = #expect(throws: EndpointError.self) {
            try cdn.makeRequest(Empty(), variables: ["path": path])
        }
        #expect(error?.code == .invalidVariable)
    }

    @Test("an absolute template keeps working for paths, queries and a host its author made a variable")
    func absoluteTemplatesStillExpand() throws {
        let cdn = Endpoint<Empty, Empty>(.get, "https://cdn.example.com{+path}")
        #expect(
            try cdn.makeRequest(Empty(), variables: ["path": "/img/a.png"]).url.absoluteString
                == "https://cdn.example.com/img/a.png")
        #expect(
            try cdn.makeRequest(Empty(), variables: ["path": "?v=2"]).url.absoluteString
                == "https://cdn.example.com?v=2")
        let closed = Endpoint<Empty, Empty>(.get, "https://cdn.example.com/{+path}")
        #expect(
            try closed.makeRequest(Empty(), variables: ["path": "@x/y"]).url.absoluteString
                == "https://cdn.example.com/@x/y")
        let chosen = Endpoint<Empty, Empty>(.get, "https://{host}/v1")
        #expect(
            try chosen.makeRequest(Empty(), variables: ["host": "eu.example.com"]).url.absoluteString
                == "https://eu.example.com/v1")
    }

    @Test(
        "hostile path and query values (slash, ?, #, %, CR LF, NUL, ..) stay inside their segment or query value",
        arguments: ["a/b", "x?admin=1", "x#frag", "100%", "a\r\nHost: evil.example", "a\u{0}b", "../admin", "a b&c=d"])
    func hostileValuesKeepTheShape(value: String) throws {
        let endpoint = Endpoint<Empty, Empty>(.get, "/users/{id}/posts{?q}")
        let url = try endpoint.makeRequest(Empty(), variables: ["id": value, "q": value]).url
        let components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        // Exactly three segments, the middle one the value, percent-decoded back.
        #expect(components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: false).count == 4)
        #expect(components.path == "/users/\(value)/posts")
        #expect(components.queryItems?.count == 1)
        #expect(components.queryItems?.first?.name == "q")
        #expect(components.queryItems?.first?.value == value)
        #expect(components.fragment == nil)
        // Nothing a header or a request line could be split on is left bare.
        let bare: Set<UInt32> = [0x0D, 0x0A, 0x00, 0x20]
        #expect(!url.relativeString.unicodeScalars.contains { bare.contains($0.value) })
    }

    @Test("a call-time variable the template does not use does not stop the value's properties from filling it")
    func extraVariables() async throws {
        let endpoint = Endpoint<Patch, Empty>(.put, "/items/{id}", body: .json)
        let request = try endpoint.makeRequest(Patch(id: 7, name: "a"), variables: ["trace": 1])
        #expect(request.url.relativeString == "/items/7")
        #expect(try await request.body?.collect(upTo: 100) == Data(#"{"name":"a"}"#.utf8))
    }

    @Test("a simple variable after the template's literal ? is a query value: it may be empty")
    func literalQueryVariables() throws {
        let search = Endpoint<Empty, Empty>(.get, "/search?q={q}&page={page}")
        #expect(
            try search.makeRequest(Empty(), variables: ["q": "", "page": 1]).url.relativeString == "/search?q=&page=1")
        // Each use is judged where it stands: the same name in the path is still required.
        let both = Endpoint<Empty, Empty>(.get, "/users/{id}?ref={id}")
        let error = #expect(throws: EndpointError.self) { try both.makeRequest(Empty(), variables: ["id": ""]) }
        #expect(error?.code == .missingVariable)
    }

    @Test("a dictionary whose keys are not strings is refused, not flattened into a list")
    func nonStringKeys() throws {
        enum Color: String, Codable, Sendable { case red, green }
        let endpoint = Endpoint<Empty, Empty>(.get, "/x{?m*}")
        let error = #expect(throws: EndpointError.self) {
            try endpoint.makeRequest(Empty(), variables: ["m": [Color.red: "1", .green: "2"]])
        }
        #expect(error?.code == .invalidVariable)
    }

    @Test("a declared Content-Type stays; a multipart body's own always wins")
    func declaredContentType() async throws {
        let png = Endpoint<Data, Empty>(.post, "/upload").header(.contentType, "image/png")
        #expect(try png.makeRequest(Data([1])).headerFields[.contentType] == "image/png")
        let patch = Endpoint<Patch, Empty>(.patch, "/items/{id}", body: .json)
            .header(.contentType, "application/merge-patch+json")
        #expect(
            try patch.makeRequest(Patch(id: 1, name: "a")).headerFields[.contentType] == "application/merge-patch+json")
        struct Form: Encodable, Sendable { var note: String }
        let multipart = Endpoint<Form, Empty>(.post, "/forms", body: .multipart).header(.contentType, "text/plain")
        let type = try #require(try multipart.makeRequest(Form(note: "n")).headerFields[.contentType])
        #expect(type.hasPrefix("multipart/form-data; boundary="))
    }

    @Test("a problem+json extension member of any size is kept as text, never trapping")
    func hugeProblemNumbers() throws {
        let body = Data(#"{"title":"bad","limit":1e300,"count":12,"ratio":0.5,"ok":true}"#.utf8)
        let details = try JSONDecoder().decode(ProblemDetails.self, from: body)
        #expect(details.extensions["limit"] == String(1e300))
        #expect(details.extensions["count"] == "12")
        #expect(details.extensions["ratio"] == "0.5")
        #expect(details.extensions["ok"] == "true")
    }

    @Test("a successful download replaces an existing file at the destination")
    func downloadReplacesExistingFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("heron-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("out.bin")
        try Data("old".utf8).write(to: destination)
        let stub = StubTransport(fallback: .status(.ok, body: Data("new".utf8)))
        let client = Client(baseURL: URL(string: "https://api.example.com")!, transport: stub)
        try await client.call(Endpoint<Empty, URL>(.get, "/f", response: .file), to: destination)
        #expect(try Data(contentsOf: destination) == Data("new".utf8))
        try Data("old".utf8).write(to: destination)
        _ = try await client.download(HTTPRequest(url: URL(string: "f")!), to: destination)
        #expect(try Data(contentsOf: destination) == Data("new".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out.bin"])
    }

    @Test("a destination given for an endpoint whose response is not .file is refused, not ignored")
    func destinationNeedsAFileEndpoint() async throws {
        let stub = StubTransport(fallback: .status(.ok, body: Data(#""https://cdn.example/x""#.utf8)))
        let client = Client(baseURL: URL(string: "https://api.example.com")!, transport: stub)
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("heron-\(UUID().uuidString)")
        let error = await #expect(throws: EndpointError.self) {
            try await client.call(Endpoint<Empty, URL>(.get, "/file", response: .json), to: destination)
        }
        #expect(error?.code == .invalidCall)
        #expect(stub.requests.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }
}
