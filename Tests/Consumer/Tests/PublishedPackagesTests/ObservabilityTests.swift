import Foundation
import HTTPClient
import HeronLogging
import HeronMetrics
import HeronTracing
import InMemoryLogging
import InMemoryTracing
import Logging
import MetricsTestKit
import Testing
import Tracing

@Suite("heron-observability, from its published repository")
struct ObservabilityTests {
    @Test("One call to httpbin is logged, traced and counted")
    func logTraceAndCount() async throws {
        var logHandler = InMemoryLogHandler()
        logHandler.logLevel = .debug
        let handler = logHandler
        let tracer = InMemoryTracer()
        let metrics = TestMetrics()
        let client = Client(
            baseURL: try Servers.httpbin(),
            interceptors: [
                LoggerInterceptor(logger: Logger(label: "consumer") { _ in handler }),
                TracingInterceptor(tracer: tracer),
            ],
            observers: [MetricsObserver(factory: metrics)])
        let response = try await client.send(.get("get?from=heron-observability"))
        #expect(response.status == .ok)

        #expect(handler.entries.map(\.level) == [.debug, .info])
        #expect(handler.entries.last?.metadata["http.status"] == "200")
        #expect(tracer.finishedSpans.map(\.operationName) == ["GET"])
        // An observer hears of the call's end after it returns.
        let deadline = ContinuousClock.now + .seconds(10)
        while metrics.counterTotal(label: "http_client_requests") == 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(metrics.counterTotal(label: "http_client_requests", dimensions: [("method", "GET")]) == 1)
    }
}
