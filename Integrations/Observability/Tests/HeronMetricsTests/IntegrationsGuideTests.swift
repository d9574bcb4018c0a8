import Foundation
import HTTPClient
import HTTPClientTesting
import HeronMetrics
import Metrics
import MetricsTestKit
import Testing

/// The HeronMetrics example in `Docs/Integrations.md`, kept compiling and checked.
@Suite("The Integrations guide's HeronMetrics example")
struct IntegrationsGuideTests {
    @Test("The guide's example runs and records what it says")
    func guideExample() async throws {
        let testMetrics = TestMetrics()
        // The guide's example, verbatim but for the factory (MetricsSystem.factory by default).
        let metrics = MetricsObserver(factory: testMetrics)
        let client = Client(
            baseURL: URL(string: "https://api.example.com")!,
            transport: StubTransport(fallback: .status(.ok)),  // URLSessionTransport() by default
            observers: [metrics])
        _ = try await client.send(HTTPRequest(url: URL(string: "items/42")!))

        let deadline = ContinuousClock.now + .seconds(10)
        while testMetrics.counterTotal(label: "http_client_requests") == 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        let dimensions = [("method", "GET"), ("host", "api.example.com"), ("status_class", "2xx")]
        #expect(try testMetrics.expectCounter("http_client_requests", dimensions).totalValue == 1)
        #expect(try testMetrics.expectTimer("http_client_request_duration", dimensions).values.count == 1)
    }
}
