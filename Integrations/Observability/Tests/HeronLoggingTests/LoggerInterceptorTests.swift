import Foundation
import HTTPClient
import HTTPClientTesting
import HeronLogging
import InMemoryLogging
import Logging
import Testing

@Suite("LoggerInterceptor")
struct LoggerInterceptorTests {
    /// A logger writing every level to an in-memory handler, and that handler.
    static func logger(level: Logger.Level = .trace) -> (Logger, InMemoryLogHandler) {
        var logHandler = InMemoryLogHandler()
        logHandler.logLevel = level
        let handler = logHandler
        return (Logger(label: "test") { _ in handler }, handler)
    }

    static func client(
        _ stub: StubTransport, _ interceptor: LoggerInterceptor, retry: RetryStack = .none
    ) -> Client {
        Client(
            baseURL: URL(string: "https://api.example.com")!, transport: stub, interceptors: [interceptor],
            retry: retry)
    }

    @Test("A request is written at debug and its response at info, with method, URL, attempt, status and duration")
    func requestAndResponse() async throws {
        let (logger, handler) = Self.logger()
        let client = Self.client(StubTransport(fallback: .status(.ok)), LoggerInterceptor(logger: logger))
        _ = try await client.send(HTTPRequest(url: URL(string: "items?page=2")!))

        let entries = handler.entries
        #expect(entries.map(\.level) == [.debug, .info])
        #expect(entries[0].message.description == "-> GET https://api.example.com/items?page=2 (attempt 1)")
        #expect(entries[1].message.description.hasPrefix("<- 200 OK GET https://api.example.com/items?page=2 ("))
        for entry in entries {
            #expect(entry.metadata["http.method"] == "GET")
            #expect(entry.metadata["http.url"] == "https://api.example.com/items?page=2")
            #expect(entry.metadata["http.attempt"] == "1")
        }
        #expect(entries[1].metadata["http.status"] == "200")
        let duration = try #require(entries[1].metadata["http.duration"]?.description)
        #expect(Double(duration) != nil)
    }

    @Test("A 5xx response is written at warning, a 4xx one at info")
    func serverErrorIsWarning() async throws {
        let (logger, handler) = Self.logger()
        let stub = StubTransport()
        stub.enqueue(.status(.serviceUnavailable), .status(.notFound))
        let client = Self.client(stub, LoggerInterceptor(logger: logger))
        _ = try await client.send(HTTPRequest(url: URL(string: "a")!))
        _ = try await client.send(HTTPRequest(url: URL(string: "b")!))

        #expect(handler.entries.map(\.level) == [.debug, .warning, .debug, .info])
        #expect(handler.entries[1].metadata["http.status"] == "503")
    }

    @Test("An attempt that fails without a response is written at error, with the error code")
    func transportFailureIsError() async throws {
        let (logger, handler) = Self.logger()
        let stub = StubTransport(fallback: .failure(ClientError(.cannotConnect, "refused")))
        let client = Self.client(stub, LoggerInterceptor(logger: logger))
        await #expect(throws: ClientError.self) { _ = try await client.send(HTTPRequest(url: URL(string: "a")!)) }

        let failure = try #require(handler.entries.last)
        #expect(failure.level == .error)
        #expect(failure.metadata["http.error"] == "cannotConnect")
        #expect(failure.message.description.hasPrefix("<- failed cannotConnect GET https://api.example.com/a"))
    }

    @Test("Each attempt of a retried call is written with its number")
    func attemptsAreNumbered() async throws {
        let (logger, handler) = Self.logger()
        let stub = StubTransport()
        stub.enqueue(.status(.serviceUnavailable), .status(.ok))
        let client = Self.client(stub, LoggerInterceptor(logger: logger), retry: [.status(), .attempts(max: 2)])
        _ = try await client.send(HTTPRequest(url: URL(string: "a")!))

        #expect(handler.entries.map { $0.metadata["http.attempt"] } == ["1", "1", "2", "2"])
        #expect(handler.entries.map(\.level) == [.debug, .warning, .debug, .info])
    }

    @Test("No credential, URL password or secret query value reaches a message or the metadata")
    func redaction() async throws {
        let (logger, handler) = Self.logger()
        let interceptor = LoggerInterceptor(
            logger: logger, detail: .headers, redacting: [try HTTPFieldName("X-Api-Key")],
            secretQueryNames: ["session"])
        let stub = StubTransport(
            fallback: .status(.ok, headerFields: try HTTPFields(["Set-Cookie": "sid=cookie-secret"])))
        let client = Client(transport: stub, interceptors: [BearerAuth(token: "bearer-secret"), interceptor])
        var request = HTTPRequest(
            url: URL(
                string: "https://alice:pass-secret@api.example.com/x?token=token-secret&session=session-secret&page=2")!
        )
        try request.headerFields.append(name: .cookie, value: "c=cookie-secret")
        try request.headerFields.append(name: try HTTPFieldName("X-Api-Key"), value: "key-secret")
        _ = try await client.send(request)

        let entries = handler.entries
        #expect(entries.count == 2)
        let written = entries.map { entry in
            ([entry.message.description] + entry.metadata.values.map(\.description)).joined(separator: "\n")
        }.joined(separator: "\n")
        for secret in ["bearer-secret", "pass-secret", "token-secret", "session-secret", "cookie-secret", "key-secret"]
        {
            #expect(!written.contains(secret), "\(secret) was written")
        }
        #expect(written.contains("Authorization: <redacted>"))
        #expect(entries[0].metadata["http.url"] == "https://alice:***@api.example.com/x?token=***&session=***&page=2")
    }

    @Test("Records the logger's level leaves out are not written")
    func loggerLevelFilters() async throws {
        let (logger, handler) = Self.logger(level: .warning)
        let stub = StubTransport()
        stub.enqueue(.status(.ok), .status(.badGateway))
        let client = Self.client(stub, LoggerInterceptor(logger: logger))
        _ = try await client.send(HTTPRequest(url: URL(string: "a")!))
        _ = try await client.send(HTTPRequest(url: URL(string: "b")!))

        #expect(handler.entries.map(\.level) == [.warning])
        #expect(handler.entries.first?.metadata["http.status"] == "502")
    }

    @Test("Custom levels replace the defaults, and the logger's own metadata is kept")
    func customLevels() async throws {
        var (logger, handler) = Self.logger()
        logger[metadataKey: "service"] = "checkout"
        let levels = LoggerInterceptor.Levels(request: .trace, response: .notice)
        let client = Self.client(
            StubTransport(fallback: .status(.ok)), LoggerInterceptor(logger: logger, levels: levels))
        _ = try await client.send(HTTPRequest(url: URL(string: "a")!))

        #expect(handler.entries.map(\.level) == [.trace, .notice])
        #expect(handler.entries.allSatisfy { $0.metadata["service"] == "checkout" })
    }
}
