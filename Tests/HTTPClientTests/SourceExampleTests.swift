import Foundation
import HTTPClientTesting
import HTTPCore
import TestSupport
import Testing

@testable import HTTPClient

// Each test holds, verbatim, the ```swift example of one documentation comment of
// Sources/HTTPClient and runs it (against the local servers of `scripts/test` where it sends
// a request), with `print` captured. `everySourceExampleIsHere` fails when an example is
// missing from this file.

@Suite("Examples in the HTTPClient documentation comments")
struct SourceExampleTests {
    @Test("every ```swift example of Sources/HTTPClient appears verbatim in this file")
    func everySourceExampleIsHere() throws {
        let (count, untested) = try SnippetSource.untestedDocCommentExamples(
            under: "Sources/HTTPClient", testedIn: ["Tests/HTTPClientTests/SourceExampleTests.swift"],
            skipping: { $0.contains("URLSession") })
        for (file, block) in untested {
            Issue.record("example in \(file) is not tested:\n\(block.joined(separator: "\n"))")
        }
        #expect(count >= 20)
    }

    /// A client on a stub that answers 200 to everything.
    static func stubClient() -> Client {
        Client(baseURL: URL(string: "https://api.example.com/v2")!, transport: StubTransport(fallback: .status(.ok)))
    }

    @Test("ClientError")
    func clientError() async throws {
        let baseURL = try TestServers.httpbin()
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let client = Client(baseURL: baseURL, retry: [.status([503], max: 1)])
        do {
            _ = try await client.send(HTTPRequest(url: URL(string: "status/503")!))
        } catch let error as ClientError where error.code == .tooManyRetries {
            print(error.attempts.count, error.response?.status.code ?? 0)  // 2 503
        }

        #expect(printed == ["2 503"])
    }

    @Test("ClientObserver")
    func clientObserver() async throws {
        actor SentCounter: ClientObserver {
            private(set) var sent = 0

            func receive(_ event: ClientEvent) async {
                if case .sent = event.kind { sent += 1 }
            }
        }

        let counter = SentCounter()
        let stub = StubTransport(fallback: .status(.ok))
        let client = Client(baseURL: URL(string: "https://api.example.com")!, transport: stub, observers: [counter])
        _ = try await client.send(HTTPRequest(url: URL(string: "x")!))
        for _ in 0..<200 where await counter.sent == 0 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(await counter.sent == 1)
    }

    @Test("EventObserver")
    func eventObserver() async throws {
        let baseURL = try TestServers.httpbin()
        let printed = Collector<String>()
        @Sendable func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let printer = EventObserver { event in print(event) }
        let client = Client(baseURL: baseURL, observers: [printer])
        _ = try await client.send(HTTPRequest(url: URL(string: "get")!))
        // #1 prepared GET http://…/get (attempt 1), then sent, received, finished

        for _ in 0..<200 where printed.count < 4 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(printed.values.first == "#1 prepared GET \(baseURL.absoluteString)/get (attempt 1)")
        #expect(printed.values.count == 4)
        #expect(printed.values.last?.hasPrefix("#1 finished 200 OK") == true)
    }

    @Test("BasicAuth")
    func basicAuth() async throws {
        let baseURL = try TestServers.httpbin()
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let client = Client(baseURL: baseURL, interceptors: [BasicAuth(username: "ada", password: "secret")])
        let response = try await client.send(HTTPRequest(url: URL(string: "basic-auth/ada/secret")!))
        print(response.status)  // 200 OK

        #expect(printed == ["200 OK"])
    }

    /// Sends ten bytes with an ETag, the first time cut after four; a `Range` request gets the rest.
    struct CutOnceTransport: ClientTransport {
        func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
            let content = Data("0123456789".utf8)
            if let range = request.headerFields[.range], range == "bytes=4-", request.headerFields[.ifRange] == "\"v1\""
            {
                let head = HTTPResponse(
                    status: .partialContent,
                    headerFields: try HTTPFields([
                        "ETag": "\"v1\"", "Content-Range": "bytes 4-9/10", "Content-Length": "6",
                    ]))
                return TransportResponse(head: head, body: HTTPBody(content.dropFirst(4)))
            }
            let head = HTTPResponse(
                status: .ok, headerFields: try HTTPFields(["ETag": "\"v1\"", "Content-Length": "10"]))
            let cut = AsyncThrowingStream<Data, any Error> { continuation in
                continuation.yield(content.prefix(4))
                continuation.finish(throwing: ClientError(.connectionLost, "cut"))
            }
            return TransportResponse(head: head, body: HTTPBody(stream: cut, length: .known(10)))
        }
    }

    @Test("ResumableDownload")
    func resumableDownload() async throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("heron-example-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("big.iso")
        let client = Client(
            baseURL: URL(string: "https://downloads.example")!, transport: CutOnceTransport(), retry: .none)

        var options = RequestOptions()
        options.keepsPartialDownload = true
        do {
            _ = try await client.download(.get("big.iso"), to: destination, options: options)
        } catch let error as ClientError {
            guard let resumable = error.resumableDownload else { throw error }
            let saved = try JSONEncoder().encode(resumable)  // keep it across a restart
            let again = try JSONDecoder().decode(ResumableDownload.self, from: saved)
            let response = try await client.download(resuming: again)
            print(response.status)  // 206 Partial Content
        }

        #expect(printed == ["206 Partial Content"])
        #expect(try Data(contentsOf: destination) == Data("0123456789".utf8))
    }

    @Test("TrustPolicy")
    func trustPolicy() throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let policy = TrustPolicy(pins: [
            try TrustPolicy.Pin("**.example.com", sha256: ["KioqKioqKioqKioqKioqKioqKioqKioqKioqKioqKio="])
        ])
        print(policy.pins(for: "api.example.com").count)  // 1

        #expect(printed == ["1"])
    }

    @Test("DigestAuth")
    func digestAuth() async throws {
        let baseURL = try TestServers.httpbin()
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let client = Client(baseURL: baseURL, interceptors: [DigestAuth(username: "ada", password: "secret")])
        let response = try await client.send(HTTPRequest(url: URL(string: "digest-auth/auth/ada/secret/SHA-256")!))
        print(response.status)  // 200 OK

        #expect(printed == ["200 OK"])
    }

    @Test("TokenRefresher")
    func tokenRefresher() async throws {
        let baseURL = try TestServers.faultServer()
        struct AuthService: Sendable {
            func refreshAccessToken() async throws -> String { "fresh-from-service" }
        }
        let authService = AuthService()
        let storedToken = "expired"

        let tokens = TokenRefresher(token: storedToken) { rejected in
            try await authService.refreshAccessToken()
        }
        let client = Client(baseURL: baseURL, interceptors: [BearerAuth(tokens)])

        let response = try await client.send(HTTPRequest(url: URL(string: "token-protected")!))
        #expect(response.status == .ok)
        #expect(await tokens.token == "fresh-from-service")
    }

    @Test("BearerAuth")
    func bearerAuth() async throws {
        let baseURL = try TestServers.faultServer()
        @Sendable func fetchToken() async throws -> String { "fresh-1" }
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let tokens = TokenRefresher(token: "stale") { _ in try await fetchToken() }
        let client = Client(baseURL: baseURL, interceptors: [BearerAuth(tokens)])
        let response = try await client.send(HTTPRequest(url: URL(string: "token-protected")!))
        print(response.status, response.metrics.attempts.count)  // 200 OK 2

        #expect(printed == ["200 OK 2"])
    }

    @Test("RetryStack")
    func retryStack() {
        let client = Client(
            baseURL: URL(string: "https://api.example.com")!,
            retry: [.transportErrors(max: 3), .status([429, 503]), .backoff(.exponential(base: 0.5, cap: 30))]
        )

        #expect(
            client.retry.policies == [
                .transportErrors(max: 3), .status([429, 503]), .backoff(.exponential(base: 0.5, cap: 30)),
            ])
    }

    @Test("RetryStack.endingWithLastOutcome")
    func endingWithLastOutcome() {
        let client = Client(retry: RetryStack.default.endingWithLastOutcome())

        #expect(client.retry.whenExhausted == .lastOutcome)
        #expect(client.retry.policies == RetryStack.default.policies)
    }

    @Test("RetryPolicy")
    func retryPolicy() {
        let retry: RetryStack = [
            .transportErrors(max: 3),
            .status([429, 503], honorRetryAfter: true),
            .attempts(max: 4),
            .backoff(.exponential(base: 0.5, cap: 30), jitter: .full),
        ]

        #expect(retry.policies.count == 4)
        #expect(retry.policies[2] == .attempts(max: 4))
    }

    @Test("Backoff")
    func backoff() {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let backoff = Backoff.exponential(base: 0.5, cap: 30)
        print(backoff.delay(forRetry: 1), backoff.delay(forRetry: 4))  // 0.5 4.0

        #expect(printed == ["0.5 4.0"])
    }

    @Test("RequestOptions")
    func requestOptions() async throws {
        let client = Self.stubClient()
        let request = HTTPRequest(method: .post, url: URL(string: "payments")!, body: HTTPBody("{}"))
        let printed = Collector<String>()
        @Sendable func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        var options = RequestOptions(timeout: .seconds(5))
        options.retriesNonIdempotent = true  // this POST carries an idempotency key
        options.progress = .callback { print($0) }
        let response = try await client.send(request, options: options)

        #expect(response.status == .ok)
        #expect(printed.values.contains("upload 2/2"))
    }

    @Test("ProgressDestination")
    func progressUpdates() async throws {
        let stub = StubTransport(fallback: .status(.ok, body: Data(count: 10)))
        let client = Client(baseURL: URL(string: "https://api.example.com")!, transport: stub)
        let request = HTTPRequest(url: URL(string: "file")!)
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("heron-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: destination) }
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let (updates, continuation) = AsyncStream.makeStream(of: TransferProgress.self)
        var options = RequestOptions()
        options.progress = .updates(continuation)
        async let file = client.download(request, to: destination, options: options)
        for await update in updates { print(update.fractionCompleted ?? 0) }
        _ = try await file

        // The stub declares no length: the fraction is known only at the end.
        #expect(printed == ["0.0", "1.0"])
    }

    @Test("Client")
    func client() async throws {
        let baseURL = try TestServers.httpbin()
        let printed = Collector<String>()
        @Sendable func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let client = Client(
            baseURL: baseURL,  // such as https://api.example.com/v2
            interceptors: [BearerAuth(token: "secret"), Logging(.headers) { print($0) }],
            retry: [.transportErrors(max: 3), .status([429, 503]), .backoff(.exponential(base: 0.5, cap: 30))]
        )
        let response = try await client.send(HTTPRequest(url: URL(string: "bearer")!))
        print(response.status)  // 200 OK

        #expect(printed.values.last == "200 OK")
        #expect(printed.values.first?.contains("Authorization: <redacted>") == true)
    }

    @Test("ClientResponse")
    func clientResponse() async throws {
        let client = Self.stubClient()
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let response = try await client.send(HTTPRequest(url: URL(string: "users/42")!))
        print(response.status, response.body.count, response.metrics.attempts.count)

        #expect(printed == ["200 OK 0 1"])
    }

    @Test("ClosureInterceptor")
    func closureInterceptor() async throws {
        let httpbin = try TestServers.httpbin()
        let printed = Locked<[String]>([])
        @Sendable func print(_ items: Any...) {
            printed.withLock { $0.append(items.map { "\($0)" }.joined(separator: " ")) }
        }

        let client = Client(
            baseURL: httpbin,
            interceptors: [
                .prepare { request in request = request.header("X-Trace", "heron-1") },
                .decide { outcome, context in print(outcome, "after attempt", context.attempt) },
            ])
        _ = try await client.send(.get("get"))  // 200 OK after attempt 1

        #expect(printed.withLock { $0 } == ["200 OK after attempt 1"])
    }

    @Test("HTTPRequest.uploadProgress")
    func uploadProgress() async throws {
        let client = Client(baseURL: try TestServers.httpbin())
        let printed = Locked<[String]>([])
        @Sendable func print(_ items: Any...) {
            printed.withLock { $0.append(items.map { "\($0)" }.joined(separator: " ")) }
        }

        let response = try await client.send(
            .post("post").body(HTTPBody(Data(count: 1 << 20))).uploadProgress { print($0.fraction) })
        print(response.status)  // 200 OK, after fractions up to 1.0

        let lines = printed.withLock { $0 }
        #expect(lines.suffix(2) == ["1.0", "200 OK"])
        #expect(lines.dropLast().allSatisfy { Double($0).map { (0...1).contains($0) } ?? false })
    }

    @Test("Client.download to a temporary file")
    func downloadTemporary() async throws {
        let client = Client(baseURL: try TestServers.httpbin())
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let response = try await client.download(.get("bytes/1024"))
        print(response.body.path.hasPrefix(FileManager.default.temporaryDirectory.path))  // true
        try FileManager.default.removeItem(at: response.body)

        #expect(printed == ["true"])
    }

    @Test("ClientResponse.map")
    func clientResponseMap() async throws {
        let client = Self.stubClient()
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let response = try await client.send(HTTPRequest(url: URL(string: "users/42")!))
        let length = response.map { $0.count }
        print(length.status, length.body)  // 200 OK 0

        #expect(printed == ["200 OK 0"])
    }

    @Test("RequestValueKey")
    func requestValueKey() {
        enum TraceID: RequestValueKey {
            typealias Value = String
        }
        var options = RequestOptions()
        options.values[TraceID.self] = "4bf92f35"

        #expect(options.values[TraceID.self] == "4bf92f35")
    }

    @Test("RequestValues")
    func requestValues() {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        enum Attempted: RequestValueKey { typealias Value = Bool }
        var values = RequestValues()
        values[Attempted.self] = true
        print(values[Attempted.self] ?? false)  // true

        #expect(printed == ["true"])
    }

    @Test("ClientTransport")
    func clientTransport() async throws {
        struct Canned: ClientTransport {
            func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
                TransportResponse(head: HTTPResponse(status: .ok), body: HTTPBody("hi"))
            }
        }

        let client = Client(baseURL: URL(string: "https://api.example.com")!, transport: Canned())
        #expect(try await client.send(HTTPRequest(url: URL(string: "x")!)).body == Data("hi".utf8))
    }

    @Test("TransportLimits")
    func transportLimits() async throws {
        struct Relay: ClientTransport {
            let base: any ClientTransport
            var enforcedLimits: TransportLimits { base.enforcedLimits }
            func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
                try await base.send(request, options: options)
            }
        }

        let relay = Relay(base: URLSessionTransport())
        #expect(relay.enforcedLimits == .all)
        #expect(Relay(base: StubTransport()).enforcedLimits.isEmpty)
    }

    @Test("DefaultHeaderFields")
    func defaultHeaderFields() async throws {
        let baseURL = try TestServers.httpbin()

        let headers = DefaultHeaderFields(["Accept": "application/json", "X-Api-Version": "2"])
            .adding(try HTTPFieldName("X-Trace-ID"), mode: .always) { _ in UUID().uuidString }
        let client = Client(baseURL: baseURL, interceptors: [headers])

        let response = try await client.send(HTTPRequest(url: URL(string: "headers")!))
        let json = try JSONSerialization.jsonObject(with: response.body) as? [String: [String: String]]
        #expect(json?["headers"]?["Accept"] == "application/json")
        #expect(json?["headers"]?["X-Api-Version"] == "2")
        #expect(json?["headers"]?["X-Trace-Id"]?.count == 36)
    }

    @Test("ResponseValidation")
    func responseValidation() async throws {
        let baseURL = try TestServers.httpbin()
        let printed = Collector<String>()
        @Sendable func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let validation = ResponseValidation(statuses: [200...299, 304...304], contentTypes: [.json])
        let client = Client(baseURL: baseURL, interceptors: [validation, Logging(.line) { print($0) }])
        _ = try? await client.send(HTTPRequest(url: URL(string: "html")!))
        // -> GET http://…/html (attempt 1)
        // <- 200 OK GET http://…/html (0.004 s), then validationFailed: text/html is not acceptable

        #expect(printed.values.count == 2)
        #expect(printed.values.last?.hasPrefix("<- 200 OK GET \(baseURL.absoluteString)/html") == true)
        let error = await #expect(throws: ClientError.self) {
            _ = try await client.send(HTTPRequest(url: URL(string: "html")!))
        }
        #expect(error?.code == .validationFailed)
    }

    @Test("Interceptor")
    func interceptor() async throws {
        struct UserAgent: Interceptor {
            func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) async throws {
                try request.headerFields.set(.userAgent, "Heron/1.0")
            }
        }

        let stub = StubTransport(fallback: .status(.ok))
        let client = Client(
            baseURL: URL(string: "https://api.example.com")!, transport: stub, interceptors: [UserAgent()])
        _ = try await client.send(HTTPRequest(url: URL(string: "x")!))
        #expect(stub.requests.first?.headerFields[.userAgent] == "Heron/1.0")
    }

    @Test("SynchronousInterceptor")
    func synchronousInterceptor() async throws {
        struct Trace: SynchronousInterceptor {
            func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) throws {
                request = request.header("X-Trace", "heron-\(context.attempt)")
            }

            func decide(_ outcome: AttemptOutcome, context: inout InterceptorContext) throws -> InterceptorDecision {
                .proceed
            }
        }

        let stub = StubTransport(fallback: .status(.ok))
        let client = Client(transport: stub, interceptors: [Trace()])
        _ = try await client.send(.get("https://api.example.com/x"))
        #expect(stub.requests.first?.headerFields["X-Trace"] == "heron-1")
        #expect(client.chain.runsInline)
    }

    @Test("Logging")
    func logging() async throws {
        let baseURL = try TestServers.httpbin()
        let printed = Collector<String>()
        @Sendable func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let logging = Logging(.headers) { line in print(line) }
        let client = Client(baseURL: baseURL, interceptors: [BearerAuth(token: "t"), logging])
        _ = try await client.send(HTTPRequest(url: URL(string: "get")!))
        // -> GET http://…/get (attempt 1)
        // Authorization: <redacted>

        let request = try #require(printed.values.first).components(separatedBy: "\n")
        #expect(request.first == "-> GET \(baseURL.absoluteString)/get (attempt 1)")
        #expect(request.contains("Authorization: <redacted>"))
    }

    @Test("HTTPRequest.curlCommand")
    func curlCommand() {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        var request = HTTPRequest(method: .post, url: URL(string: "https://example.com/notes")!)
        request.body = HTTPBody("it's")
        print(request.curlCommand())
        // curl -X 'POST' 'https://example.com/notes' --data-raw 'it'\''s'

        #expect(printed == [#"curl -X 'POST' 'https://example.com/notes' --data-raw 'it'\''s'"#])
    }

    @Test("per-request settings and URLRequest conversion")
    func requestSettingsAndURLRequest() async throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        let stub = StubTransport()
        stub.enqueue(.status(.serviceUnavailable), .status(.ok))
        let client = Client(baseURL: URL(string: "https://api.example.com")!, transport: stub, retry: .none)

        let response = try await client.send(.get("report").timeout(.seconds(120)).retries(5))
        #expect(response.status == .ok && stub.requests.count == 2)

        let urlRequest = try URLRequest(HTTPRequest.post("https://example.com/items").header(.accept, "text/plain"))
        print(urlRequest.httpMethod ?? "", urlRequest.value(forHTTPHeaderField: "Accept") ?? "")  // POST text/plain
        #expect(printed == ["POST text/plain"])
    }

    @Test("HTTPRequest.idleTimeout")
    func idleTimeout() async throws {
        let client = Client(baseURL: try TestServers.faultServer())

        let response = try await client.stream(.get("logs/tail").idleTimeout(.seconds(15)))

        // The fault server has no such route: the stream is its 404 body, read within the limit.
        #expect(response.status == .notFound)
        var received = 0
        for try await chunk in response.body { received += chunk.count }
        #expect(received > 0)
    }

    @Test("IdempotencyKey")
    func idempotencyKey() async throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        let baseURL = try TestServers.httpbin().appending(path: "anything")

        let client = Client(baseURL: baseURL, interceptors: [IdempotencyKey()])
        let response = try await client.send(.post("payments").body(HTTPBody("{}"), contentType: .json))
        print(response.request.headerFields[.idempotencyKey] != nil)  // true

        #expect(printed == ["true"])
        #expect(response.status == .ok)
    }

    @Test("HostLimiter")
    func hostLimiter() async throws {
        let baseURL = try TestServers.httpbin()

        let limited = HostLimiter(
            wrapping: URLSessionTransport(), maxConcurrentPerHost: 4,
            rate: HostLimiter.Rate(requests: 10, per: .seconds(1), burst: 5), pausesOnTooManyRequests: true)
        let client = Client(baseURL: baseURL, transport: limited)

        #expect(try await client.send(.get("get")).status == .ok)
    }

    @Test("CoalescingTransport")
    func coalescingTransport() async throws {
        let baseURL = try TestServers.httpbin().appending(path: "anything")

        let client = Client(baseURL: baseURL, transport: CoalescingTransport(wrapping: URLSessionTransport()))
        async let first = client.send(.get("config"))
        async let second = client.send(.get("config"))  // the same request, sent once
        _ = try await (first, second)
    }

    @Test("Proxy")
    func proxy() throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let proxy = Proxy(host: "proxy.internal", port: 3128, credentials: .init(username: "ci", password: "s3cret"))
        print(proxy)  // http://proxy.internal:3128
        let socks = try Proxy(url: "socks5h://127.0.0.1:1080")
        print(socks.kind)  // socks5

        #expect(printed == ["http://proxy.internal:3128", "socks5"])
        #expect(proxy.credentials?.password == "s3cret")
    }

    @Test("ProxyBypass")
    func proxyBypass() {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let bypass = ProxyBypass("localhost, .internal.example, 10.0.0.0/8")
        print(bypass.matches(URL(string: "http://db.internal.example/")!))  // true
        print(bypass.matches(URL(string: "https://example.com/")!))  // false

        #expect(printed == ["true", "false"])
    }

    @Test("ProxyPolicy")
    func proxyPolicy() throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let proxy = Proxy(host: "127.0.0.1", port: 3128)
        let policy = ProxyPolicy.through(proxy, bypass: "localhost, .internal.example")
        print(try policy.proxy(for: URL(string: "https://example.com/")!) as Any)  // Optional(http://127.0.0.1:3128)
        print(try policy.proxy(for: URL(string: "http://db.internal.example/")!) as Any)  // nil

        #expect(printed == ["Optional(http://127.0.0.1:3128)", "nil"])
    }
}
