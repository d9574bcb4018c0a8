import Foundation
import HTTPClient
import HTTPClientTesting
import HeronLogging
import InMemoryLogging
import Logging
import Testing

/// The HeronLogging example in `Docs/Integrations.md`, kept compiling and checked.
@Suite("The Integrations guide's HeronLogging example")
struct IntegrationsGuideTests {
    @Test("The guide's example runs and writes what it says, secrets hidden")
    func guideExample() async throws {
        var logHandler = InMemoryLogHandler()
        logHandler.logLevel = .trace
        let handler = logHandler
        let factory: @Sendable (String) -> any LogHandler = { _ in handler }

        // The guide's example, verbatim but for the logger's factory.
        var logger = Logger(label: "com.example.api", factory: factory)
        logger.logLevel = .debug
        let client = Client(
            baseURL: URL(string: "https://api.example.com")!,
            transport: StubTransport(fallback: .status(.ok)),  // URLSessionTransport() by default
            interceptors: [BearerAuth(token: "s3cret"), LoggerInterceptor(logger: logger, detail: .headers)])
        _ = try await client.send(HTTPRequest(url: URL(string: "items?api_key=k3y&page=2")!))

        let entries = handler.entries
        #expect(entries.map(\.level) == [.debug, .info])
        #expect(
            entries[0].message.description
                == "-> GET https://api.example.com/items?api_key=***&page=2 (attempt 1)\nAuthorization: <redacted>")
        #expect(entries[0].metadata["http.url"] == "https://api.example.com/items?api_key=***&page=2")
        let response = entries[1].message.description
        #expect(response.hasPrefix("<- 200 OK GET https://api.example.com/items?api_key=***&page=2 ("))
        #expect(entries[1].metadata["http.status"] == "200")
        #expect(entries[1].metadata["http.duration"] != nil)
    }
}
