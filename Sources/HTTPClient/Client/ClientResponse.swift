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
    /// The body as the transport returned it, for its trailer section.
    private var transportBody: HTTPBody?
    /// The values the call ran with (the client's, the call's laid over them), so that the
    /// layers above read the body with the client's settings (its decoder, its envelope).
    package private(set) var callValues: RequestValues?

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

    /// A response whose trailer section is that of `transportBody`, the body its transport
    /// returned.
    init(
        head: HTTPResponse, body: Body, request: HTTPRequest, metrics: ClientMetrics, transportBody: HTTPBody?,
        callValues: RequestValues?
    ) {
        self.init(head: head, body: body, request: request, metrics: metrics)
        self.transportBody = transportBody
        self.callValues = callValues
    }

    /// The trailer section (RFC 9110 §6.5) that followed the body, when the transport
    /// delivered one: known once the body has been read to its end (at once for
    /// ``Client/send(_:options:)`` and ``Client/download(_:to:options:)``, after the last
    /// chunk for ``Client/stream(_:options:)``); `nil` otherwise.
    ///
    /// Only the AsyncHTTPClient transport delivers trailers, with its `ResponseTrailers`
    /// trait; URLSession does not, and a response HTTPCache serves from storage has none. Trailer fields are never merged into ``headerFields``
    /// (RFC 9110 §6.5.1: a recipient must not merge them unless the field's definition
    /// allows it).
    public var trailerFields: HTTPFields? { transportBody?.trailerFields }

    /// This response with `transform` applied to its body; the head, request, metrics,
    /// trailer section and the call's settings stay.
    ///
    /// ```swift
    /// let response = try await client.send(HTTPRequest(url: URL(string: "users/42")!))
    /// let length = response.map { $0.count }
    /// print(length.status, length.body)  // 200 OK 0
    /// ```
    /// - Parameter transform: Makes the new body from the old.
    /// - Returns: The response with the new body.
    /// - Throws: What `transform` throws.
    public func map<NewBody: Sendable, Failure: Error>(
        _ transform: (Body) throws(Failure) -> NewBody
    ) throws(Failure) -> ClientResponse<NewBody> {
        ClientResponse<NewBody>(
            head: head, body: try transform(body), request: request, metrics: metrics, transportBody: transportBody,
            callValues: callValues)
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
