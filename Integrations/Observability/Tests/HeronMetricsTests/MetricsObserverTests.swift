import Foundation
import HTTPClient
import HTTPClientTesting
import HeronMetrics
import Metrics
import MetricsTestKit
import Testing

@Suite("MetricsObserver")
struct MetricsObserverTests {
    static let url = URL(string: "https://api.example.com/items/42?page=2")!

    static func attempt(_ number: Int, status: HTTPStatus?) -> ClientError.Attempt {
        ClientError.Attempt(
            number: number, status: status, failure: status == nil ? "cannotConnect" : nil, duration: 0.01)
    }

    /// Feeds one call's `prepared` and `finished` events to `observer`.
    static func call(
        _ observer: MetricsObserver, id: UInt64 = 1, method: HTTPMethod = .get, status: HTTPStatus?,
        attempts: Int = 1, duration: Duration = .milliseconds(120), sent: Int64? = nil, received: Int64? = nil
    ) async {
        let request = HTTPRequest(method: method, url: url)
        await observer.receive(ClientEvent(requestID: id, elapsed: .zero, kind: .prepared(request, attempt: 1)))
        let metrics = ClientMetrics(
            attempts: (1...attempts).map { attempt($0, status: status) }, redirects: 0, duration: duration,
            bytesSent: sent, bytesReceived: received)
        let error = status == nil ? ClientError(.cannotConnect, "refused") : nil
        await observer.receive(
            ClientEvent(
                requestID: id, elapsed: duration, kind: .finished(status: status, error: error, metrics: metrics)))
    }

    static func dimensions(_ method: String = "GET", status: String) -> [(String, String)] {
        [("method", method), ("host", "api.example.com"), ("status_class", status)]
    }

    @Test("A finished call counts once, with its duration and bytes, by method, host and status class")
    func finishedCall() async throws {
        let metrics = TestMetrics()
        let observer = MetricsObserver(factory: metrics)
        await Self.call(observer, method: .post, status: .created, sent: 300, received: 1_200)

        let dimensions = Self.dimensions("POST", status: "2xx")
        #expect(try metrics.expectCounter("http_client_requests", dimensions).totalValue == 1)
        #expect(try metrics.expectTimer("http_client_request_duration", dimensions).values == [120_000_000])
        #expect(try metrics.expectCounter("http_client_request_body_bytes", dimensions).totalValue == 300)
        #expect(try metrics.expectCounter("http_client_response_body_bytes", dimensions).totalValue == 1_200)
        #expect(metrics.counters(label: "http_client_retries").isEmpty)
    }

    @Test("Retries count the attempts after the first")
    func retries() async throws {
        let metrics = TestMetrics()
        let observer = MetricsObserver(factory: metrics)
        await Self.call(observer, status: .ok, attempts: 3)

        #expect(try metrics.expectCounter("http_client_retries", Self.dimensions(status: "2xx")).totalValue == 2)
        #expect(try metrics.expectCounter("http_client_requests", Self.dimensions(status: "2xx")).totalValue == 1)
    }

    @Test(
        "The status class is the final status's hundreds, or error without a response",
        arguments: [(200, "2xx"), (304, "3xx"), (404, "4xx"), (503, "5xx"), (nil, "error")] as [(Int?, String)])
    func statusClass(code: Int?, expected: String) async throws {
        let metrics = TestMetrics()
        let observer = MetricsObserver(factory: metrics)
        await Self.call(observer, status: try code.map { try HTTPStatus(code: $0) })

        #expect(try metrics.expectCounter("http_client_requests", Self.dimensions(status: expected)).totalValue == 1)
    }

    @Test("Calls with the same dimensions add up; a call whose prepared event was lost counts under unknown")
    func aggregation() async throws {
        let metrics = TestMetrics()
        let observer = MetricsObserver(factory: metrics)
        await Self.call(observer, id: 1, status: .ok)
        await Self.call(observer, id: 2, status: .ok)
        let finished = ClientMetrics(attempts: [], redirects: 0, duration: .zero, bytesSent: nil, bytesReceived: nil)
        await observer.receive(
            ClientEvent(requestID: 3, elapsed: .zero, kind: .finished(status: .ok, error: nil, metrics: finished)))

        #expect(try metrics.expectCounter("http_client_requests", Self.dimensions(status: "2xx")).totalValue == 2)
        let unknown = [("method", "unknown"), ("host", "unknown"), ("status_class", "2xx")]
        #expect(try metrics.expectCounter("http_client_requests", unknown).totalValue == 1)
    }

    @Test("Custom labels name the metrics")
    func customLabels() async throws {
        let metrics = TestMetrics()
        let labels = MetricsObserver.Labels(requests: "api_calls", duration: "api_call_duration")
        let observer = MetricsObserver(labels: labels, factory: metrics)
        await Self.call(observer, status: .ok)

        #expect(try metrics.expectCounter("api_calls", Self.dimensions(status: "2xx")).totalValue == 1)
        #expect(try metrics.expectTimer("api_call_duration", Self.dimensions(status: "2xx")).values.count == 1)
        #expect(observer.labels == labels)
    }

    @Test("A client's calls reach the metrics through its observer, retries included")
    func throughClient() async throws {
        let metrics = TestMetrics()
        let observer = MetricsObserver(factory: metrics)
        let stub = StubTransport()
        stub.enqueue(.status(.serviceUnavailable), .status(.ok, body: Data("hello".utf8)))
        let client = Client(
            baseURL: URL(string: "https://api.example.com")!, transport: stub, observers: [observer],
            retry: [.status(), .attempts(max: 2)])
        _ = try await client.send(HTTPRequest(url: URL(string: "items")!))

        let dimensions = Self.dimensions(status: "2xx")
        let deadline = ContinuousClock.now + .seconds(10)
        while metrics.counterTotal(label: "http_client_requests") == 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(try metrics.expectCounter("http_client_requests", dimensions).totalValue == 1)
        #expect(try metrics.expectCounter("http_client_retries", dimensions).totalValue == 1)
        #expect(try metrics.expectCounter("http_client_response_body_bytes", dimensions).totalValue == 5)
    }
}
