import Foundation
import HTTPCore

/// A response the client returns: the head, the body in the form asked for, the request
/// as finally sent, and the metrics of the call.
///
/// `Body` is `Data` for ``Client/send(_:options:)``, `URL` for
/// ``Client/download(_:to:options:)`` and ``ResponseStream`` for ``Client/stream(_:options:)``.
///
/// ```swift
/// let response = try await client.send(HTTPRequest(url: URL(string: "users/42")!))
/// print(response.status, response.body.count, response.metrics.attempts.count)
/// ```
public struct ClientResponse<Body: Sendable>: Sendable {
    /// The status, header fields and final URL.
    public var head: HTTPResponse
    /// The body.
    public var body: Body
    /// The request as sent in the last attempt, after interceptors and redirects.
    public var request: HTTPRequest
    /// Timings, attempts and byte counts of the whole call.
    public var metrics: ClientMetrics

    /// Creates a response.
    /// - Parameters:
    ///   - head: The response head.
    ///   - body: The body.
    ///   - request: The request as finally sent.
    ///   - metrics: The call's metrics.
    public init(head: HTTPResponse, body: Body, request: HTTPRequest, metrics: ClientMetrics) {
        self.head = head
        self.body = body
        self.request = request
        self.metrics = metrics
    }

    /// The response status.
    public var status: HTTPStatus { head.status }
    /// The response header fields.
    public var headerFields: HTTPFields { head.headerFields }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { head.status.isSuccess }

    /// The `Content-Type`, parsed, when present and valid.
    public var contentType: MediaType? { head.contentType }
}

extension ClientResponse<Data> {
    /// The body as text in the charset of its `Content-Type`, UTF-8 when it names none.
    /// - Returns: The text.
    /// - Throws: `HTTPCoreError` when the bytes are not valid in that charset.
    public func text() throws(HTTPCoreError) -> String { try head.text(of: body) }
}
