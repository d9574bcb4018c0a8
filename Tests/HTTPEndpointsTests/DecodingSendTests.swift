import HTTPClientTesting
import HTTPEndpoints
import Testing

/// Everyday calls: fluent requests through decoding sends, over a stub transport.
@Suite("Decoding sends")
struct DecodingSendTests {
    struct User: Codable, Sendable, Equatable {
        var id: Int
        var name: String
    }

    static func client(_ stub: StubTransport, values: RequestValues = RequestValues()) -> Client {
        Client(baseURL: URL(string: "https://api.example.com/v2")!, transport: stub, retry: .none, values: values)
    }

    @Test("get(_:as:) and post(_:json:as:) read JSON in one line")
    func shortcuts() async throws {
        let stub = StubTransport(fallback: .status(.ok, body: Data(#"{"id":1,"name":"Ada"}"#.utf8)))
        let client = Self.client(stub)
        let user = try await client.get("users/1", as: User.self)
        let made = try await client.post("users", json: User(id: 0, name: "Ada"), as: User.self)
        #expect(user == User(id: 1, name: "Ada") && made == user)
        #expect(
            stub.requests.map { "\($0.method) \($0.url.absoluteString)" } == [
                "GET https://api.example.com/v2/users/1", "POST https://api.example.com/v2/users",
            ])
        #expect(stub.requests[1].headerFields[.contentType] == "application/json")
        #expect(stub.recordedRequests[1].body == Data(#"{"id":0,"name":"Ada"}"#.utf8))
    }

    @Test("a 404 never reaches the decoder: it throws with the whole body")
    func notFound() async throws {
        let body = String(repeating: "x", count: 5_000)
        let stub = StubTransport(fallback: .status(.notFound, body: Data(body.utf8)))
        let error = await #expect(throws: EndpointError.self) {
            _ = try await Self.client(stub).get("users/9", as: User.self)
        }
        #expect(error?.code == .unacceptableStatus)
        #expect(error?.status == .notFound)
        #expect(error?.body?.count == 5_000)
    }

    @Test("Optional and Empty results take a 204; an envelope is read at a key path")
    func optionalEmptyEnvelope() async throws {
        let stub = StubTransport()
        stub.enqueue(
            .status(.noContent), .status(.noContent),
            .status(.ok, body: Data(#"{"data":{"items":[{"id":2,"name":"b"}]}}"#.utf8)))
        let client = Self.client(stub)
        #expect(try await client.get("users/1", as: User?.self) == nil)
        try await client.delete("users/1")
        #expect(
            try await client.send(.get("users"), decoding: [User].self, at: "data.items") == [User(id: 2, name: "b")])
    }

    @Test("the client's default decoder and encoder serve every decoding send")
    func defaults() async throws {
        var defaults = EndpointDefaults()
        defaults.jsonDecoder = JSONResponseDecoder {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            return decoder
        }
        defaults.jsonEncoder = JSONBodyEncoder {
            let encoder = JSONEncoder()
            encoder.keyEncodingStrategy = .convertToSnakeCase
            encoder.outputFormatting = [.sortedKeys]
            return encoder
        }
        struct Profile: Codable, Sendable { var displayName: String }
        let stub = StubTransport(fallback: .status(.ok, body: Data(#"{"display_name":"Ada"}"#.utf8)))
        let profile = try await Self.client(stub, values: RequestValues(defaults))
            .put("me", json: Profile(displayName: "Ada L"), as: Profile.self)
        #expect(profile.displayName == "Ada")
        #expect(stub.recordedRequests.first?.body == Data(#"{"display_name":"Ada L"}"#.utf8))
    }

    @Test("a request built with an error is never sent; the client throws it as invalidRequest")
    func pendingErrorNotSent() async throws {
        let stub = StubTransport(fallback: .status(.ok))
        let error = await #expect(throws: ClientError.self) {
            _ = try await Self.client(stub).send(.get("users").header(.accept, "a\r\nb"))
        }
        #expect(error?.code == .invalidRequest)
        #expect((error?.underlying as? HTTPCoreError)?.code == .invalidFieldValue)
        #expect(stub.requests.isEmpty)
    }

    @Test("per-request timeout, retries and interceptors override the client's")
    func requestOptions() async throws {
        let stub = StubTransport()
        stub.enqueue(.status(.serviceUnavailable), .status(.serviceUnavailable), .status(.ok))
        let log = Log()
        let response = try await Self.client(stub).send(
            .get("flaky").retries(2).timeout(.seconds(120)).intercepted(by: Tagging(name: "request", log: log)))
        #expect(response.status == .ok)
        #expect(stub.requests.count == 3)
        #expect(await log.entries.first == "prepare request")
        let limited = StubTransport(fallback: .status(.ok, body: Data(count: 100)))
        let error = await #expect(throws: ClientError.self) {
            _ = try await Self.client(limited).send(.get("big").responseBodyLimit(10))
        }
        #expect(error?.code == .responseTooLarge)
    }

    @Test("a response converts to text in its charset, to a typed value and to untyped JSON")
    func responseConveniences() async throws {
        let stub = StubTransport(
            fallback: .status(
                .ok, headerFields: [try HTTPField(name: .contentType, value: "application/json; charset=utf-8")],
                body: Data(#"{"id":3,"name":"é"}"#.utf8)))
        let response = try await Self.client(stub).send(.get("users/3"))
        #expect(response.isSuccess)
        #expect(try response.text() == #"{"id":3,"name":"é"}"#)
        #expect(try response.body(as: User.self) == User(id: 3, name: "é"))
        #expect((try response.json() as? [String: Any])?["name"] as? String == "é")
        #expect(response.contentType?.essence == "application/json")
    }
}

@Suite("A deadline for the whole call")
struct CallDeadlineTests {
    @Test("the deadline bounds every attempt and wait: a sub-second deadline ends retries in progress")
    func deadlineEndsRetries() async throws {
        let stub = StubTransport(fallback: .status(.serviceUnavailable, delay: .milliseconds(50)))
        let client = Client(
            baseURL: URL(string: "https://api.example.com")!, transport: stub,
            retry: [.status([503], max: 1000), .attempts(max: 1000), .backoff(.constant(0.05), jitter: .none)])
        let clock = ContinuousClock()
        let start = clock.now
        let error = await #expect(throws: ClientError.self) {
            _ = try await client.send(.get("slow").deadline(.milliseconds(450)))
        }
        let elapsed = clock.now - start
        #expect(error?.code == .timedOut)
        // The deadline, not the retry policies (a thousand retries allowed), ended the call,
        // at it or just before it when the next backoff and attempt could not fit; the upper
        // bound only guards against a hang on a starved machine.
        #expect(error?.message.contains("deadline") == true)
        #expect(elapsed >= .milliseconds(350) && elapsed < .seconds(30))
        #expect(stub.requests.count >= 1 && stub.requests.count < 100)
    }

    @Test("a call that ends before its deadline returns its response")
    func deadlineNotReached() async throws {
        let stub = StubTransport(fallback: .status(.ok))
        let client = Client(baseURL: URL(string: "https://api.example.com")!, transport: stub)
        #expect(try await client.send(.get("fast").deadline(.seconds(5))).status == .ok)
    }
}

@Suite("Small conveniences found while rewriting other libraries' examples")
struct RewriteConvenienceTests {
    @Test("an error's body decodes as any of the types an API sends")
    func decodeErrorBody() async throws {
        struct Message: Decodable, Sendable { var message: String }
        struct Code: Decodable, Sendable { var code: Int }
        let stub = StubTransport(fallback: .status(.badRequest, body: Data(#"{"code":42}"#.utf8)))
        let client = Client(baseURL: URL(string: "https://api.example.com")!, transport: stub, retry: .none)
        let error = await #expect(throws: EndpointError.self) { _ = try await client.get("x", as: Empty.self) }
        #expect(error?.body(as: Message.self) == nil)
        #expect(error?.body(as: Code.self)?.code == 42)
    }

    @Test("an encoded multipart form is a body with its content type; template values take integer literals")
    func formBodyAndIntegerLiterals() async throws {
        var form = MultipartForm(boundary: try MultipartBoundary("b0undary"))
        form.append(name: "a", value: "1")
        let request = HTTPRequest.post("upload").body(try await form.encodedInMemory())
        #expect(request.headerFields[.contentType] == "multipart/form-data; boundary=b0undary")
        #expect(try URITemplate("/page/{n}").expand(["n": 15]) == "/page/15")
    }
}

@Suite("Gaps closed after the rewrites")
struct RewriteGapTests {
    struct Lookup: Encodable, Sendable {
        var id: Int
        var secret: String
    }

    struct Upload: Encodable, Sendable {
        var note: String
    }

    @Test("variablesOnly sends nothing but the template's variables")
    func variablesOnly() throws {
        let endpoint = Endpoint<Lookup, Empty>(.get, "/users/{id}", body: .variablesOnly)
        let request = try endpoint.makeRequest(Lookup(id: 3, secret: "s"))
        #expect(request.url.relativeString == "/users/3")
        #expect(request.body == nil)
    }

    @Test("the client's multipart encoder serves .multipart endpoints; a request takes an Encodable multipart body")
    func multipartDefaults() async throws {
        var defaults = EndpointDefaults()
        defaults.multipartEncoder = MultipartFormEncoder(makeBoundary: { try! MultipartBoundary("fixed-boundary") })
        let endpoint = Endpoint<Upload, Empty>(.post, "/notes", body: .multipart)
        let request = try endpoint.makeRequest(Upload(note: "n"), defaults: defaults)
        #expect(request.headerFields[.contentType] == "multipart/form-data; boundary=fixed-boundary")
        let fluent = HTTPRequest.post("notes").multipart(Upload(note: "n"))
        #expect(fluent.headerFields[.contentType]?.hasPrefix("multipart/form-data; boundary=") == true)
        let text = String(decoding: try await #require(fluent.body).collect(upTo: 10_000), as: UTF8.self)
        #expect(text.contains("name=\"note\""))
    }

    @Test("RequestOptions take a progress callback in their initializer")
    func progressOption() async throws {
        let stub = StubTransport(fallback: .status(.ok, body: Data(count: 10)))
        let client = Client(baseURL: URL(string: "https://api.example.com")!, transport: stub)
        let seen = Seen()
        _ = try await client.send(.get("x"), options: RequestOptions(progress: .callback { seen.add($0.completed) }))
        #expect(seen.values.last == 10)
    }

    final class Seen: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [Int64] = []
        var values: [Int64] { lock.withLock { stored } }
        func add(_ value: Int64) { lock.withLock { stored.append(value) } }
    }
}

@Suite("Everyday calls after review")
struct EverydayReviewTests {
    struct User: Decodable, Sendable {}

    @Test("a decoding send's error hides the URL's password and secret query values")
    func decodingSendRedacts() async throws {
        let stub = StubTransport(fallback: .status(.notFound))
        let client = Client(baseURL: URL(string: "https://bob:PASSW0RD@api.example.com/v2")!, transport: stub)
        let error = await #expect(throws: EndpointError.self) {
            _ = try await client.get("users/1?api_key=SUPERSECRET", as: User.self)
        }
        let text = error?.description ?? ""
        #expect(!text.contains("SUPERSECRET") && !text.contains("PASSW0RD"), "\(text)")
        #expect(text.contains("api_key=***"))
    }

    @Test("cancelling a call with a deadline throws the client's cancelled error, as without one")
    func cancelWithDeadline() async throws {
        let stub = StubTransport(fallback: .status(.ok, delay: .seconds(10)))
        let client = Client(baseURL: URL(string: "https://api.example.com")!, transport: stub, retry: .none)
        let task = Task { try await client.send(.get("slow").deadline(.seconds(10))) }
        try await Task.sleep(for: .milliseconds(100))
        task.cancel()
        let error = await #expect(throws: ClientError.self) { _ = try await task.value }
        #expect(error?.code == .cancelled)
    }

    @Test("an absurd retry count is clamped, never an overflow trap")
    func hugeRetries() async throws {
        let stub = StubTransport(fallback: .status(.ok))
        let client = Client(baseURL: URL(string: "https://api.example.com")!, transport: stub)
        #expect(try await client.send(.get("x").retries(.max)).status == .ok)
    }

    @Test("URL text with characters a URL cannot hold is an error, not silently percent-encoded")
    func strictURLText() throws {
        for text in ["users/a b", "%zz", "https://x.com/a?q=%"] {
            let error = try #require(HTTPRequest.get(text).pendingError as? HTTPCoreError, "\(text)")
            #expect(error.code == .invalidURL)
        }
        #expect(HTTPRequest.get("users/a%20b?q=%25").pendingError == nil)
    }
}
