import HTTPClientTesting
import HTTPEndpoints
import TestSupport
import Testing

// The snippets of Docs/GettingStarted.md, Docs/HTTPClientTesting.md and Docs/RetriesAndAuthentication.md,
// verbatim, run against the local servers (or stubs, as the guides say) with `print` captured.

@Suite("Snippets of the getting started, testing and retries guides")
struct GuidesSnippetTests {
    @Test(
        "every ```swift snippet of the guides appears verbatim in this file",
        arguments: ["Docs/GettingStarted.md", "Docs/HTTPClientTesting.md", "Docs/RetriesAndAuthentication.md"])
    func everySnippetIsHere(document: String) throws {
        let tests = try SnippetSource.read("Tests/HTTPEndpointsTests/GuidesSnippetTests.swift")
        let blocks = SnippetSource.markdownBlocks(try SnippetSource.read(document))
        #expect(!blocks.isEmpty)
        for block in blocks {
            #expect(SnippetSource.contains(block, in: tests), "snippet of \(document) is not tested:\n\(block)")
        }
    }

    @Test("getting started: a first call and a first endpoint")
    func gettingStarted() async throws {
        let baseURL = try TestServers.httpbin()
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        struct Slideshow: Decodable, Sendable {
            var title: String
        }

        let client = Client(baseURL: baseURL)
        let show = try await client.send(.get("json"), decoding: Slideshow.self, at: "slideshow")
        print(show.title)  // Sample Slide Show

        struct Echo: Decodable, Sendable {
            var url: String
        }
        enum Users {
            static let profile = Endpoint<Empty, Echo>(.get, "/anything/users/{id}/profile")
        }
        let profile = try await client.call(Users.profile, variables: ["id": 42])
        print(profile.url.hasSuffix("/users/42/profile"))  // true

        #expect(printed == ["Sample Slide Show", "true"])
    }

    @Test("testing: recording a session as HAR and replaying it without a server")
    func testingHAR() async throws {
        let baseURL = try TestServers.httpbin()
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let recorder = HARRecorder(wrapping: URLSessionTransport(), redacting: [try HTTPFieldName("X-Api-Key")])
        let live = Client(baseURL: baseURL, transport: recorder)
        let shown = try await live.send(.get("json"))
        let harFile = FileManager.default.temporaryDirectory.appendingPathComponent("heron-guide.har")
        try recorder.write(to: harFile)

        // Later, with no server: the same requests get the recorded answers.
        let offline = Client(baseURL: baseURL, transport: try HARReplayTransport(contentsOf: harFile))
        let again = try await offline.send(.get("json"))
        print(again.status, again.body == shown.body)  // 200 OK true
        do {
            _ = try await offline.send(.get("xml"))
        } catch let error as ClientError where error.code == .noRecordedResponse {
            print(error.message)  // no recorded response for GET …/xml; the nearest recorded request is GET …/json
        }

        #expect(printed.count == 2)
        #expect(printed.first == "200 OK true")
        #expect(
            printed.last
                == "no recorded response for GET \(baseURL)/xml; the nearest recorded request is GET \(baseURL)/json")
    }

    @Test("testing: scripted replies, simulated failures, endpoints without a client")
    func testing() async throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        struct User: Codable, Sendable, Equatable {
            var id: Int
            var name: String
        }
        let stub = StubTransport()
        stub.on(.path("/v2/users/7"), reply: .status(.ok, body: Data(#"{"id":7,"name":"Ada"}"#.utf8)))
        stub.on(.method(.post), reply: .status(.created, body: Data(#"{"id":8,"name":"Bo"}"#.utf8)))
        let client = Client(baseURL: URL(string: "https://api.example.com/v2")!, transport: stub)

        let user = try await client.get("users/7", as: User.self)
        let made = try await client.post("users", json: User(id: 0, name: "Bo"), as: User.self)
        print(user.name, made.id)  // Ada 8
        print(stub.requests.map(\.url.path))  // ["/v2/users/7", "/v2/users"]
        print(String(decoding: stub.recordedRequests[1].body ?? Data(), as: UTF8.self))  // {"id":0,"name":"Bo"}

        let flaky = StubTransport()
        flaky.enqueue(
            .failure(ClientError(.connectionLost, "the connection was reset")),
            .status(.serviceUnavailable, headerFields: [try HTTPField(name: .retryAfter, value: "0")]),
            .status(.ok, body: Data(#"{"id":1,"name":"A"}"#.utf8)))
        let retrying = Client(baseURL: URL(string: "https://api.example.com")!, transport: flaky)
        let recovered = try await retrying.get("users/1", as: User.self)
        print(recovered.id, flaky.requests.count)  // 1 3

        let slow = StubTransport(fallback: .status(.ok, delay: .seconds(5)))
        let impatient = Client(baseURL: URL(string: "https://api.example.com")!, transport: slow, retry: .none)
        do {
            _ = try await impatient.send(.get("report").timeout(.milliseconds(50)))
        } catch let error as ClientError {
            print(error.code)  // timedOut
        }

        struct Rename: Encodable, Sendable {
            var id: Int
            var name: String
        }
        let rename = Endpoint<Rename, User>(.patch, "/users/{id}", body: .json)
        let request = try rename.makeRequest(Rename(id: 7, name: "Ada L"))
        print(request, request.headerFields[.contentType] ?? "")  // PATCH /users/7 application/json
        try rename.validate()  // the template parses and the declared fields are valid

        #expect(
            printed == [
                "Ada 8", #"["/v2/users/7", "/v2/users"]"#, #"{"id":0,"name":"Bo"}"#, "1 3", "timedOut",
                "PATCH /users/7 application/json",
            ])
    }

    @Test("retries and authentication: what a user sees")
    func retriesAndAuthentication() async throws {
        let baseURL = try TestServers.httpbin()
        let faultServer = try TestServers.faultServer()
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let client = Client(
            baseURL: baseURL,
            retry: [.transportErrors(max: 3), .status([503], max: 2), .backoff(.constant(0.01), jitter: .none)])
        do {
            _ = try await client.send(.get("status/503"))
        } catch let error as ClientError {
            print(error.code, error.attempts.map { $0.status?.code ?? 0 })  // tooManyRetries [503, 503, 503]
        }
        let once = try await client.send(.get("status/503").retries(0))
        print(once.status.code, once.metrics.attempts.count)  // 503 1

        let tokens = TokenRefresher(token: "expired") { rejected in "fresh-\(rejected ?? "none")" }
        let fault = Client(baseURL: faultServer, interceptors: [BearerAuth(tokens)])
        let response = try await fault.send(.get("token-protected"))
        print(response.status.code, response.metrics.attempts.count, await tokens.token ?? "")  // 200 2 fresh-expired

        #expect(printed == ["tooManyRetries [503, 503, 503]", "503 1", "200 2 fresh-expired"])
    }

    @Test("retries and authentication: Digest, challenged then answered ahead of time")
    func digest() async throws {
        let httpbin = try TestServers.httpbin()
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let digest = Client(baseURL: httpbin, interceptors: [DigestAuth(username: "user", password: "passwd")])
        let first = try await digest.send(.get("digest-auth/auth/user/passwd/SHA-256"))
        let second = try await digest.send(.get("digest-auth/auth/user/passwd/SHA-256"))
        print(first.metrics.attempts.count, second.metrics.attempts.count)  // 2 1

        #expect(printed == ["2 1"])
    }
}
