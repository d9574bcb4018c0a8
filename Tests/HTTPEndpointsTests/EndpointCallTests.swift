import Foundation
import HTTPClient
import HTTPClientTesting
import HTTPCore
import HTTPEncoding
import HTTPEndpoints
import Testing

/// Calling endpoints through a client over a stub transport: what is read, what fails, and
/// how the endpoint's settings reach the client.
@Suite("Endpoint calls")
struct EndpointCallTests {
    struct User: Codable, Sendable, Equatable {
        var id: Int
        var name: String
    }

    static let base = URL(string: "https://api.example.com/v2")!

    @Test("an absolute template to another host gets none of the client's credentials; the base URL's own do")
    func absoluteTemplateKeepsCredentialsHome() async throws {
        let stub = StubTransport(fallback: .status(.ok, body: Data("{}".utf8)))
        let client = Self.client(stub, interceptors: [BearerAuth(token: "secret")])
        _ = try await client.call(Endpoint<Empty, Empty>(.get, "https://other.example/hook/{id}"), variables: ["id": 1])
        _ = try await client.call(Endpoint<Empty, Empty>(.get, "/users/{id}"), variables: ["id": 1])
        #expect(stub.requests.map(\.url.host) == ["other.example", "api.example.com"])
        #expect(stub.requests.map { $0.headerFields[.authorization] } == [nil, "Bearer secret"])
    }

    static func client(
        _ stub: StubTransport, values: RequestValues = RequestValues(), interceptors: [any Interceptor] = [],
        retry: RetryStack = .none
    ) -> Client {
        Client(baseURL: base, transport: stub, interceptors: interceptors, retry: retry, values: values)
    }

    static func json(
        _ text: String, status: HTTPStatus = .ok, type: String = "application/json"
    )
        -> StubTransport.Reply
    {
        .status(status, headerFields: [try! HTTPField(name: .contentType, value: type)], body: Data(text.utf8))
    }

    @Test("a Decodable response is read as JSON, resolved against the base URL's path")
    func decodesJSON() async throws {
        let stub = StubTransport(fallback: Self.json(#"{"id":7,"name":"Ada"}"#))
        let user = try await Self.client(stub).call(Endpoint<Empty, User>(.get, "/users/{id}"), variables: ["id": 7])
        #expect(user == User(id: 7, name: "Ada"))
        #expect(stub.requests.first?.url.absoluteString == "https://api.example.com/v2/users/7")
        #expect(stub.requests.first?.headerFields[.accept] == "application/json")
    }

    @Test("an Optional response is nil on 204 and on an empty body; Empty reads nothing")
    func optionalAndEmpty() async throws {
        let stub = StubTransport()
        stub.enqueue(.status(.noContent), .status(.ok), .status(.ok, body: Data("ignored".utf8)))
        let client = Self.client(stub)
        #expect(try await client.call(Endpoint<Empty, User?>(.get, "/users/1")) == nil)
        #expect(try await client.call(Endpoint<Empty, User?>(.get, "/users/1")) == nil)
        #expect(try await client.call(Endpoint<Empty, Empty>(.delete, "/users/1")) == Empty())
    }

    @Test("a non-Optional response to an empty body fails, saying how to accept one")
    func emptyBodyForRequiredValue() async throws {
        let stub = StubTransport(fallback: .status(.noContent))
        let error = await #expect(throws: EndpointError.self) {
            _ = try await Self.client(stub).call(Endpoint<Empty, User>(.get, "/users/1"))
        }
        #expect(error?.code == .decodingFailed)
        #expect(error?.description.contains("Optional") == true)
    }

    @Test("a value at a key path is read without an envelope type")
    func keyPath() async throws {
        let stub = StubTransport(fallback: Self.json(#"{"data":{"items":[{"id":1,"name":"a"}]},"page":1}"#))
        let users = try await Self.client(stub).call(
            Endpoint<Empty, [User]>(.get, "/users", response: .json(at: "data.items")))
        #expect(users == [User(id: 1, name: "a")])
    }

    @Test("a decoding failure names the endpoint, status, coding path and body prefix")
    func decodingFailure() async throws {
        let stub = StubTransport(fallback: Self.json(#"{"data":{"items":[{"id":"x","name":"a"}]}}"#))
        let endpoint = Endpoint<Empty, [User]>(.get, "/users", response: .json(at: "data.items")).named("listUsers")
        let error = await #expect(throws: EndpointError.self) { _ = try await Self.client(stub).call(endpoint) }
        #expect(error?.code == .decodingFailed)
        #expect(error?.endpoint == "listUsers")
        #expect(error?.status == .ok)
        #expect(error?.codingPath == ["data", "items", "0", "id"])
        let text = error?.description ?? ""
        #expect(text.contains("listUsers") && text.contains("200") && text.contains(#"{"data""#))
    }

    @Test("a non-2xx response never reaches the decoder: a declared problem+json body is thrown typed")
    func problemDetails() async throws {
        let problem = #"{"type":"https://example.com/out-of-credit","title":"Out of credit","status":403,"balance":30}"#
        let stub = StubTransport(fallback: Self.json(problem, status: .forbidden, type: "application/problem+json"))
        let endpoint = Endpoint<Empty, User>(.get, "/users/{id}").errorBody(ProblemDetails.self)
        let error = await #expect(throws: EndpointError.self) {
            _ = try await Self.client(stub).call(endpoint, variables: ["id": 1])
        }
        #expect(error?.code == .errorResponse)
        #expect(error?.status == .forbidden)
        let details = try #require(error?.body(as: ProblemDetails.self))
        #expect(details.title == "Out of credit")
        #expect(details.type == "https://example.com/out-of-credit")
        #expect(details.extensions["balance"] == "30")
        #expect(error?.response?.headerFields[.contentType] == "application/problem+json")
    }

    @Test("a non-2xx response without a declared error body fails with the status and the body")
    func unacceptableStatus() async throws {
        let stub = StubTransport(fallback: .status(.notFound, body: Data("<html>no such user</html>".utf8)))
        let error = await #expect(throws: EndpointError.self) {
            _ = try await Self.client(stub).call(Endpoint<Empty, User>(.get, "/users/9"))
        }
        #expect(error?.code == .unacceptableStatus)
        #expect(error?.status == .notFound)
        #expect(error?.body == Data("<html>no such user</html>".utf8))
        #expect(error?.url?.absoluteString == "https://api.example.com/v2/users/9")
    }

    @Test("accepted statuses can be widened per endpoint")
    func acceptingStatuses() async throws {
        let stub = StubTransport(fallback: .status(.notModified))
        let endpoint = Endpoint<Empty, Data>(.get, "/feed").accepting(statuses: [200...299, 304...304])
        #expect(try await Self.client(stub).call(endpoint).isEmpty)
    }

    @Test("a String response honours the charset, UTF-8 when absent")
    func stringCharset() async throws {
        let stub = StubTransport()
        stub.enqueue(
            .status(
                .ok, headerFields: [try HTTPField(name: .contentType, value: "text/plain; charset=iso-8859-1")],
                body: Data([0x63, 0x61, 0x66, 0xE9])),
            .status(.ok, body: Data("café".utf8)),
            .status(.ok, headerFields: [try HTTPField(name: .contentType, value: "text/plain; charset=klingon")]))
        let client = Self.client(stub)
        let text = Endpoint<Empty, String>(.get, "/text")
        #expect(try await client.call(text) == "café")
        #expect(try await client.call(text) == "café")
        let error = await #expect(throws: EndpointError.self) { _ = try await client.call(text) }
        #expect(error?.code == .decodingFailed)
    }

    @Test("providers fill variables per call; a call's variables win over them, they over the value")
    func providers() async throws {
        struct Draft: Encodable, Sendable {
            var user: String
            var title: String
        }
        let counter = Counter()
        var defaults = EndpointDefaults()
        defaults.provide("user") { "provided-\(await counter.next())" }
        let stub = StubTransport(fallback: .status(.ok))
        let client = Self.client(stub, values: RequestValues(defaults))
        let create = Endpoint<Draft, Empty>(.post, "/users/{user}/drafts", body: .json)
        try await client.call(create, Draft(user: "value", title: "T"))
        try await client.call(create, Draft(user: "value", title: "T"), variables: ["user": "call"])
        try await client.call(Endpoint<Empty, Empty>(.get, "/health"))
        #expect(
            stub.requests.map(\.url.path) == ["/v2/users/provided-1/drafts", "/v2/users/call/drafts", "/v2/health"])
        // The provider ran only for the call that needed it.
        #expect(await counter.value == 1)
        #expect(stub.recordedRequests.first?.body == Data(#"{"title":"T"}"#.utf8))
    }

    @Test("the client's default decoder reads every JSON endpoint")
    func defaultDecoder() async throws {
        var defaults = EndpointDefaults()
        defaults.jsonDecoder = JSONResponseDecoder {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            return decoder
        }
        struct Profile: Decodable, Sendable { var displayName: String }
        let stub = StubTransport(fallback: Self.json(#"{"display_name":"Ada"}"#))
        let profile = try await Self.client(stub, values: RequestValues(defaults))
            .call(Endpoint<Empty, Profile>(.get, "/me"))
        #expect(profile.displayName == "Ada")
    }

    @Test("an endpoint's interceptors run before the client's in prepare, after them in decide")
    func endpointInterceptors() async throws {
        let log = Log()
        let stub = StubTransport(fallback: .status(.ok))
        let client = Self.client(stub, interceptors: [Tagging(name: "client", log: log)])
        let endpoint = Endpoint<Empty, Empty>(.get, "/x").intercepted(by: Tagging(name: "endpoint", log: log))
        try await client.call(endpoint)
        #expect(await log.entries == ["prepare endpoint", "prepare client", "decide client", "decide endpoint"])
        #expect(stub.requests.first?.headerFields[try HTTPFieldName("X-Tag")] == "endpoint, client")
    }

    @Test("a POST endpoint opted in to retries is retried; without it, it is not")
    func retryOptIn() async throws {
        let stub = StubTransport()
        stub.enqueue(.status(.serviceUnavailable), .status(.ok), .status(.serviceUnavailable), .status(.ok))
        let client = Self.client(stub, retry: [.status([503], max: 2)])
        let plain = Endpoint<Empty, Empty>(.post, "/jobs")
        try await client.call(plain.retriesNonIdempotent())
        #expect(stub.requests.count == 2)
        let error = await #expect(throws: EndpointError.self) { try await client.call(plain) }
        #expect(error?.code == .unacceptableStatus)
        #expect(stub.requests.count == 3)
    }

    @Test("an endpoint's body limit applies unless the call sets its own")
    func responseBodyLimit() async throws {
        let stub = StubTransport(fallback: .status(.ok, body: Data(count: 2048)))
        let endpoint = Endpoint<Empty, Data>(.get, "/blob").responseBodyLimit(1024)
        let error = await #expect(throws: ClientError.self) { _ = try await Self.client(stub).call(endpoint) }
        #expect(error?.code == .responseTooLarge)
        let data = try await Self.client(stub).call(endpoint, options: RequestOptions(responseBodyLimit: 4096))
        #expect(data.count == 2048)
    }

    @Test("the variant with the response head returns the status, fields and metrics with the value")
    func responseVariant() async throws {
        let stub = StubTransport(fallback: Self.json(#"{"id":1,"name":"a"}"#, status: .created))
        let response = try await Self.client(stub).response(for: Endpoint<Empty, User>(.post, "/users"))
        #expect(response.status == .created)
        #expect(response.body == User(id: 1, name: "a"))
        #expect(response.headerFields[.contentType] == "application/json")
        #expect(response.metrics.attempts.count == 1)
    }

    @Test("a stream response returns the bytes as they arrive")
    func streamResponse() async throws {
        let payload = Data((0..<100_000).map { UInt8($0 % 251) })
        let stub = StubTransport(fallback: .status(.ok, body: payload))
        let stream = try await Self.client(stub).call(Endpoint<Empty, ResponseStream>(.get, "/feed"))
        var received = Data()
        for try await chunk in stream { received.append(chunk) }
        #expect(received == payload)
    }

    @Test("a file endpoint without a destination downloads to a new temporary file the caller owns")
    func temporaryDownload() async throws {
        let stub = StubTransport(fallback: .status(.ok, body: Data("file body".utf8)))
        let url = try await Self.client(stub).call(Endpoint<Empty, URL>(.get, "/f", response: .file))
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(try Data(contentsOf: url) == Data("file body".utf8))
    }

    @Test("a rejected download leaves an existing destination file untouched")
    func rejectedDownloadKeepsExistingFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("heron-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("report.pdf")
        try Data("old".utf8).write(to: destination)
        let stub = StubTransport(fallback: .status(.notFound, body: Data("missing".utf8)))
        let error = await #expect(throws: EndpointError.self) {
            _ = try await Self.client(stub).call(
                Endpoint<Empty, URL>(.get, "/f", response: .file), to: destination)
        }
        #expect(error?.body == Data("missing".utf8))
        #expect(try Data(contentsOf: destination) == Data("old".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["report.pdf"])
    }

    @Test("a failing provider or an invalid template fails the call before anything is sent")
    func failuresBeforeSending() async throws {
        struct Offline: Error {}
        var defaults = EndpointDefaults()
        defaults.provide("user") { () async throws -> String in throw Offline() }
        let stub = StubTransport(fallback: .status(.ok))
        let client = Self.client(stub, values: RequestValues(defaults))
        await #expect(throws: Offline.self) { try await client.call(Endpoint<Empty, Empty>(.get, "/u/{user}")) }
        await #expect(throws: EndpointError.self) { try await client.call(Endpoint<Empty, Empty>(.get, "/u/{user")) }
        #expect(stub.requests.isEmpty)
    }
}

/// Counts calls.
actor Counter {
    private(set) var value = 0

    func next() -> Int {
        value += 1
        return value
    }
}

/// Records interceptor steps.
actor Log {
    private(set) var entries: [String] = []

    func add(_ entry: String) { entries.append(entry) }
}

/// An interceptor that logs its steps and appends its name to `X-Tag`.
struct Tagging: Interceptor {
    let name: String
    let log: Log

    func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) async throws {
        await log.add("prepare \(name)")
        let tag = try HTTPFieldName("X-Tag")
        try request.headerFields.set(tag, [request.headerFields[tag], name].compactMap { $0 }.joined(separator: ", "))
    }

    func decide(_ outcome: AttemptOutcome, context: inout InterceptorContext) async throws -> InterceptorDecision {
        await log.add("decide \(name)")
        return .proceed
    }
}
