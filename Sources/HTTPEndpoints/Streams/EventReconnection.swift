import Foundation

/// How an event stream is opened again after it ends or its connection fails, by the
/// rules of the WHATWG HTML standard's `EventSource`.
///
/// - The stream is reopened after the reconnection time: the server's last `retry`, or
///   ``delay`` until it sends one. From the second reconnect in a row that brings no event,
///   the client's backoff (its retry stack's `.backoff` policy, if any) is added, growing
///   with each one; an event starts the count again.
/// - The request is sent again through the client's interceptors, with `Last-Event-ID`
///   when the stream has set an ID.
/// - A `204 No Content` ends the stream; any other status the call does not accept, or a
///   `Content-Type` other than `text/event-stream`, fails it with an ``EndpointError``
///   (``EndpointError/Code/unacceptableStatus``, ``EndpointError/Code/unexpectedContentType``),
///   and so does a status the client's retry stack retries (a `503`) once those retries are
///   spent, with the client's `tooManyRetries`. Only a failure without an answer (the
///   connection lost, refused or timed out) is reconnected after. Each reconnect is told to
///   the client's observers (`ClientEvent.Kind.reconnecting`).
///
/// ```swift
/// let reconnecting = EventReconnection(delay: .seconds(1), maximumAttempts: 10)
/// ```
public struct EventReconnection: Sendable, Hashable {
    /// The wait before reconnecting while the server has sent no `retry`.
    public var delay: Duration
    /// The most reconnects in a row that bring no event before the stream gives up: with
    /// the last failure (a `ClientError`) when the last reconnect failed, or as ended when it
    /// opened a stream that ended without an event; `nil` for no limit.
    public var maximumAttempts: Int?

    /// Creates a reconnection policy.
    /// - Parameters:
    ///   - delay: The wait before reconnecting until the server sets one; 3 seconds by default.
    ///   - maximumAttempts: The most fruitless reconnects in a row; no limit by default.
    public init(delay: Duration = .seconds(3), maximumAttempts: Int? = nil) {
        self.delay = delay
        self.maximumAttempts = maximumAttempts
    }

    /// Reconnects after 3 seconds until the server says otherwise, without limit.
    public static var standard: EventReconnection { EventReconnection() }
}
