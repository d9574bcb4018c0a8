import Foundation
import HTTPCore

/// Sends one HTTP request and returns the response head and body: the bottom of the
/// client's chain.
///
/// A transport sends exactly what it is given, once. It does not follow redirects,
/// retry, add authentication, validate statuses, buffer bodies or write them to files:
/// the client does all of that above it, once for every transport, so every transport
/// (URLSession, another HTTP library, a test double) behaves alike. A 3xx answer is
/// returned as it is.
///
/// Contract for implementers:
/// - `request.url` is absolute. Send `request.headerFields` as given, in order, and the
///   body `request.body` holds, if any: with `Content-Length` when its
///   `HTTPBody/length` is known, chunked otherwise. A body's `HTTPBody/source` says
///   when it is bytes in memory or a file, which a transport may hand to the platform
///   as such (a file upload the OS reads); any body can be read with
///   `HTTPBody/chunks(size:)`.
/// - Return once the response head has arrived, with the body as an `HTTPBody` read
///   once, as it arrives; `nil` when the response has none (a `HEAD` request, `204`,
///   `304`). Hold at most ``TransportOptions/responseBufferLimit`` unread bytes; stop the
///   network work when the body is cancelled or released unread. With
///   ``TransportOptions/awaitsWholeBody`` a transport may return once the body has
///   arrived instead.
/// - Report upload progress to ``TransportOptions/progress`` when the platform allows.
/// - Throw `CancellationError` when the calling task is cancelled (and stop the network
///   work promptly), and ``ClientError`` for every other failure, from `send` and from
///   the body's reads alike.
///
/// ```swift
/// struct Canned: ClientTransport {
///     func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
///         TransportResponse(head: HTTPResponse(status: .ok), body: HTTPBody("hi"))
///     }
/// }
/// ```
public protocol ClientTransport: Sendable {
    /// Sends `request` once and returns the response head and body.
    /// - Parameters:
    ///   - request: The request, with an absolute URL.
    ///   - options: Time limits, the most unread bytes to hold, and progress.
    /// - Returns: The response head, and its body as it arrives.
    /// - Throws: `CancellationError` when the task is cancelled; ``ClientError`` otherwise.
    func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse

    /// Whether this transport enforces ``TransportOptions/deadline`` itself; `false` unless
    /// a transport says otherwise.
    ///
    /// When `false`, the client runs each attempt in a task of its own and cancels it at the
    /// deadline. A transport that can stop its own work at a deadline saves that task.
    var enforcesDeadline: Bool { get }
}

extension ClientTransport {
    /// `false`: the client enforces deadlines for this transport.
    public var enforcesDeadline: Bool { false }
}

/// How a transport should carry out one send.
public struct TransportOptions: Sendable {
    /// The longest the transport may wait without receiving or sending a byte, if set.
    ///
    /// The client also enforces each attempt's whole timeout itself, so a transport that
    /// cannot honour this exactly (URLSession on Linux rounds it to whole seconds) may
    /// treat it as a hint.
    public var idleTimeout: Duration?
    /// The most response body bytes the transport may hold that the body's reader has not
    /// taken yet; past it the body fails with ``ClientError/Code/responseTooLarge``.
    ///
    /// A transport that can slow the server down (backpressure) may hold less; URLSession
    /// on Linux cannot, so this bounds its memory.
    public var responseBufferLimit: Int
    /// Called with upload progress, from any thread, in order.
    public var progress: (@Sendable (TransferProgress) -> Void)?
    /// When the response head must have arrived, if ever.
    ///
    /// A transport whose ``ClientTransport/enforcesDeadline`` is `true` fails with
    /// ``ClientError/Code/timedOut`` once it passes and stops the network work; other
    /// transports may ignore it, as the client then enforces it.
    public var deadline: ContinuousClock.Instant?
    /// Whether ``deadline`` also ends a body still arriving (its reads then fail with
    /// ``ClientError/Code/timedOut``); `false` leaves a body that has begun to arrive to
    /// its reader.
    public var deadlineCoversBody: Bool
    /// Whether the caller reads the whole body as soon as `send` returns (the client's
    /// buffered `send` does): a transport may then return only once the body has arrived or
    /// failed (holding at most ``responseBufferLimit`` bytes), which spares the caller a
    /// wake-up per chunk. `false` asks for the head as soon as it arrives.
    public var awaitsWholeBody: Bool

    /// Creates options.
    /// - Parameters:
    ///   - idleTimeout: The longest wait without progress, if any.
    ///   - responseBufferLimit: The most unread response bytes to hold; 16 MiB by default.
    ///   - progress: An upload progress callback, if any.
    ///   - deadline: When the response head must have arrived, if ever.
    ///   - deadlineCoversBody: Whether the deadline also ends the body; `false` by default.
    ///   - awaitsWholeBody: Whether `send` may return only once the body has arrived;
    ///     `false` by default.
    public init(
        idleTimeout: Duration? = nil, responseBufferLimit: Int = 16 * 1024 * 1024,
        progress: (@Sendable (TransferProgress) -> Void)? = nil, deadline: ContinuousClock.Instant? = nil,
        deadlineCoversBody: Bool = false, awaitsWholeBody: Bool = false
    ) {
        self.idleTimeout = idleTimeout
        self.responseBufferLimit = max(1, responseBufferLimit)
        self.progress = progress
        self.deadline = deadline
        self.deadlineCoversBody = deadlineCoversBody
        self.awaitsWholeBody = awaitsWholeBody
    }
}

/// What a transport returns: the response head and, as it arrives, its body.
public struct TransportResponse: Sendable {
    /// The status, header fields and final URL.
    public var head: HTTPResponse
    /// The body, read once as it arrives; `nil` when the response has none.
    public var body: HTTPBody?
    /// Request body bytes sent, when the transport counts them.
    public var bytesSent: Int64?
    /// How long the request waited before it was sent, such as in a ``HostLimiter``'s queue;
    /// the client adds it to ``ClientMetrics/queued`` and tells observers.
    public var waited: Duration

    /// Creates a response.
    /// - Parameters:
    ///   - head: The response head.
    ///   - body: The body, if the response has one.
    ///   - bytesSent: Request body bytes sent, if counted.
    ///   - waited: How long the request waited before it was sent; none by default.
    public init(head: HTTPResponse, body: HTTPBody?, bytesSent: Int64? = nil, waited: Duration = .zero) {
        self.head = head
        self.body = body
        self.bytesSent = bytesSent
        self.waited = waited
    }
}

extension HTTPResponse {
    /// Whether this response to `request` has a body: not for a `HEAD` request, `204` or
    /// `304` (RFC 9110 §6.4.1; a transport never returns `1xx`).
    package func hasBody(answering request: HTTPRequest) -> Bool {
        request.method != .head && status.code != 204 && status.code != 304
    }

    /// The body length `Content-Length` declares and the body has as delivered: `nil` for a
    /// `Content-Encoding` that transports decode (URLSession does), whose length counts the
    /// encoded bytes.
    package var decodedBodyLength: Int64? {
        guard let length = contentLength else { return nil }
        if let coding = headerFields[.contentEncoding], coding.lowercased() != "identity" { return nil }
        return length
    }
}
