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

    /// The limits of ``TransportOptions`` this transport enforces itself; none unless a
    /// transport says otherwise.
    ///
    /// The client reads it once, when it is made. It enforces every limit a call needs that
    /// is missing here itself, in a task of its own per attempt (the head's deadline, the
    /// whole body's) and a timer on each wait for a body chunk (the idle timeout): a
    /// transport that can stop its own work at its limits saves that task.
    var enforcedLimits: TransportLimits { get }
}

extension ClientTransport {
    /// None: the client enforces every limit for this transport.
    public var enforcedLimits: TransportLimits { [] }
}

/// Limits of ``TransportOptions`` that a ``ClientTransport`` enforces itself
/// (``ClientTransport/enforcedLimits``), failing with ``ClientError/Code/timedOut`` and
/// stopping the network work.
///
/// ```swift
/// struct Relay: ClientTransport {
///     let base: any ClientTransport
///     var enforcedLimits: TransportLimits { base.enforcedLimits }
///     func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
///         try await base.send(request, options: options)
///     }
/// }
/// ```
public struct TransportLimits: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: UInt8

    /// Creates limits from their raw bits.
    /// - Parameter rawValue: The bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// ``TransportOptions/deadline``: the response head arrives by then or `send` fails.
    public static let headDeadline = TransportLimits(rawValue: 1 << 0)
    /// ``TransportOptions/idleTimeout``: a wait for bytes longer than it fails `send` or the
    /// body's read; a reader that is slow to take the body is not waiting for bytes.
    public static let idleTimeout = TransportLimits(rawValue: 1 << 1)
    /// ``TransportOptions/bodyDeadline``: the whole body arrives by then or its read fails.
    public static let bodyDeadline = TransportLimits(rawValue: 1 << 2)
    /// Cancelling the task that awaits `send`, or the body's reader, stops the network work
    /// at once, however far it has got.
    public static let cancellation = TransportLimits(rawValue: 1 << 3)

    /// Every limit.
    public static let all: TransportLimits = [.headDeadline, .idleTimeout, .bodyDeadline, .cancellation]
}

/// How a transport should carry out one send.
public struct TransportOptions: Sendable {
    /// The longest the transport may wait for a byte to move, either way, if set: the gaps
    /// between response body chunks once the head is in, and before it too when no
    /// ``deadline`` bounds the wait for the head. Time the body waits for its reader (a reader
    /// slower than the network) is not waiting for bytes.
    ///
    /// A transport that lists ``TransportLimits/idleTimeout`` in its
    /// ``ClientTransport/enforcedLimits`` fails with ``ClientError/Code/timedOut`` when it
    /// passes (URLSession on Linux rounds it up to whole seconds); the client enforces it for
    /// the others.
    public var idleTimeout: Duration?
    /// The most response body bytes the transport may hold that the body's reader has not
    /// taken yet; past it the body fails with ``ClientError/Code/responseTooLarge``.
    ///
    /// A transport that can slow the server down (backpressure) may hold less; URLSession
    /// on Linux cannot, so this bounds its memory.
    public var responseBufferLimit: Int
    /// Called with upload progress, from any thread, in order.
    public var progress: (@Sendable (TransferProgress) -> Void)?
    /// When the response head must have arrived, if ever; a body that has begun to arrive is
    /// bounded by ``idleTimeout`` and ``bodyDeadline`` instead.
    ///
    /// A transport that lists ``TransportLimits/headDeadline`` in its
    /// ``ClientTransport/enforcedLimits`` fails with ``ClientError/Code/timedOut`` once it
    /// passes and stops the network work; other transports may ignore it, as the client then
    /// enforces it.
    public var deadline: ContinuousClock.Instant?
    /// When the whole response, its body included, must have arrived, if ever: once it
    /// passes, `send` or the body's reads fail with ``ClientError/Code/timedOut``. The client
    /// sets it for a call with a ``RequestOptions/deadline``; a transport that does not list
    /// ``TransportLimits/bodyDeadline`` may ignore it.
    public var bodyDeadline: ContinuousClock.Instant?
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
    ///   - bodyDeadline: When the whole body must have arrived, if ever.
    ///   - awaitsWholeBody: Whether `send` may return only once the body has arrived;
    ///     `false` by default.
    public init(
        idleTimeout: Duration? = nil, responseBufferLimit: Int = 16 * 1024 * 1024,
        progress: (@Sendable (TransferProgress) -> Void)? = nil, deadline: ContinuousClock.Instant? = nil,
        bodyDeadline: ContinuousClock.Instant? = nil, awaitsWholeBody: Bool = false
    ) {
        self.idleTimeout = idleTimeout
        self.responseBufferLimit = max(1, responseBufferLimit)
        self.progress = progress
        self.deadline = deadline
        self.bodyDeadline = bodyDeadline
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
    /// The proxy the request went through, without its credentials (``Proxy/withoutCredentials``);
    /// `nil` when it went straight to the origin or the transport does not say. The client
    /// puts it in ``ClientMetrics/proxy`` and tells observers.
    public var proxy: Proxy?

    /// Creates a response.
    /// - Parameters:
    ///   - head: The response head.
    ///   - body: The body, if the response has one.
    ///   - bytesSent: Request body bytes sent, if counted.
    ///   - waited: How long the request waited before it was sent; none by default.
    ///   - proxy: The proxy the request went through, if any; its credentials are dropped.
    public init(
        head: HTTPResponse, body: HTTPBody?, bytesSent: Int64? = nil, waited: Duration = .zero, proxy: Proxy? = nil
    ) {
        self.head = head
        self.body = body
        self.bytesSent = bytesSent
        self.waited = waited
        self.proxy = proxy?.withoutCredentials
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
