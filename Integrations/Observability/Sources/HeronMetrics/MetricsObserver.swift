import Foundation
import HTTPClient
import Metrics

/// Feeds every finished call of a client to swift-metrics: how many, how long, how many
/// bytes and how many retries, by method, host and status class.
///
/// When a call ends (its ``HTTPClient/ClientEvent/Kind/finished(status:error:metrics:)``
/// event), the observer records, under the names of ``Labels``:
///
/// | Label (default) | Kind | Value |
/// |---|---|---|
/// | `http_client_requests` | `Counter` | 1 per call |
/// | `http_client_request_duration` | `Timer` | the call's duration, retries and waits included |
/// | `http_client_request_body_bytes` | `Counter` | request body bytes sent, when the transport counts them |
/// | `http_client_response_body_bytes` | `Counter` | response body bytes received, when known |
/// | `http_client_retries` | `Counter` | attempts after the first, when there were any |
///
/// Each carries three dimensions:
///
/// - `method`: the request method, `GET`.
/// - `host`: the URL's host, `api.example.com`; a URL's path and query never become a
///   dimension, so the number of series stays bounded.
/// - `status_class`: `1xx`, `2xx`, `3xx`, `4xx` or `5xx` for the final status, or `error`
///   when the call ended without a response.
///
/// The method and host come from the call's first `prepared` event, which the observer keeps
/// until the call finishes; a call whose `prepared` event was dropped (see
/// ``HTTPClient/ClientEvent/eventsDroppedBefore``) is counted under `unknown`. Request numbers
/// are unique per client only: give each client its own observer.
///
/// ```swift
/// let metrics = MetricsObserver()  // MetricsSystem.factory, as bootstrapped
/// let client = Client(baseURL: URL(string: "https://api.example.com")!, observers: [metrics])
/// ```
public actor MetricsObserver: ClientObserver {
    /// The labels of the metrics recorded.
    public struct Labels: Sendable, Hashable {
        /// The counter of calls; `http_client_requests` by default.
        public var requests: String
        /// The timer of call durations; `http_client_request_duration` by default.
        public var duration: String
        /// The counter of request body bytes; `http_client_request_body_bytes` by default.
        public var bytesSent: String
        /// The counter of response body bytes; `http_client_response_body_bytes` by default.
        public var bytesReceived: String
        /// The counter of retries; `http_client_retries` by default.
        public var retries: String

        /// Creates labels.
        /// - Parameters:
        ///   - requests: The counter of calls.
        ///   - duration: The timer of call durations.
        ///   - bytesSent: The counter of request body bytes.
        ///   - bytesReceived: The counter of response body bytes.
        ///   - retries: The counter of retries.
        public init(
            requests: String = "http_client_requests", duration: String = "http_client_request_duration",
            bytesSent: String = "http_client_request_body_bytes",
            bytesReceived: String = "http_client_response_body_bytes", retries: String = "http_client_retries"
        ) {
            self.requests = requests
            self.duration = duration
            self.bytesSent = bytesSent
            self.bytesReceived = bytesReceived
            self.retries = retries
        }

        /// The labels listed on ``MetricsObserver``.
        public static let `default` = Labels()
    }

    /// The labels of the metrics recorded.
    public nonisolated let labels: Labels
    private let factory: any MetricsFactory
    /// The method and host of each call that has started and not finished, by request number.
    private var started: [UInt64: (method: String, host: String)] = [:]

    /// Creates an observer.
    /// - Parameters:
    ///   - labels: The labels of the metrics; ``Labels/default`` by default.
    ///   - factory: Where the metrics go; the bootstrapped `MetricsSystem.factory` by default.
    public init(labels: Labels = .default, factory: any MetricsFactory = MetricsSystem.factory) {
        self.labels = labels
        self.factory = factory
    }

    /// Keeps a call's method and host when it starts, and records its metrics when it ends.
    /// - Parameter event: What happened.
    public func receive(_ event: ClientEvent) async {
        switch event.kind {
        case .prepared(let request, _):
            if started[event.requestID] == nil {
                started[event.requestID] = (request.method.rawValue, request.url.host ?? "unknown")
            }
        case .finished(let status, _, let metrics):
            let call = started.removeValue(forKey: event.requestID) ?? ("unknown", "unknown")
            let status = Self.statusClass(status)
            record(metrics, dimensions: [("method", call.method), ("host", call.host), ("status_class", status)])
        default:
            break
        }
    }

    /// Records one finished call.
    private func record(_ metrics: ClientMetrics, dimensions: [(String, String)]) {
        Counter(label: labels.requests, dimensions: dimensions, factory: factory).increment()
        let (seconds, attoseconds) = metrics.duration.components
        Metrics.Timer(label: labels.duration, dimensions: dimensions, factory: factory)
            .recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        if let sent = metrics.bytesSent, sent > 0 {
            Counter(label: labels.bytesSent, dimensions: dimensions, factory: factory).increment(by: sent)
        }
        if let received = metrics.bytesReceived, received > 0 {
            Counter(label: labels.bytesReceived, dimensions: dimensions, factory: factory).increment(by: received)
        }
        if metrics.attempts.count > 1 {
            Counter(label: labels.retries, dimensions: dimensions, factory: factory)
                .increment(by: metrics.attempts.count - 1)
        }
    }

    /// `2xx` for a 2xx status, and so on; `error` for none.
    static func statusClass(_ status: HTTPStatus?) -> String {
        guard let status else { return "error" }
        return "\(status.code / 100)xx"
    }
}
