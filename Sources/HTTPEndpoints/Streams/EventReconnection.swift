import Foundation
import HTTPClient

/// How an event stream is opened again after it ends or its connection fails, by the
/// rules of the WHATWG HTML standard's `EventSource`.
///
/// - The stream is reopened after the reconnection time: the server's last `retry`, or
///   ``delay`` until it sends one, never less than ``minimumDelay`` (half a second, as
///   browsers wait at least that long), so a server sending `retry: 0` cannot make the
///   client reconnect in a loop.
/// - From the second reconnect in a row after a short-lived connection, a backoff is added,
///   growing with each one: the client's (its retry stack's `.backoff` policy), or doubling
///   from ``minimumDelay`` up to 30 seconds when the client has none. A connection is
///   short-lived unless it stayed open ``backoffResetAfter`` (5 seconds) and brought an
///   event: a server that sends one event per connection and closes is backed off from as
///   one that sends none.
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
    /// The shortest wait before a reconnect, whatever the server's `retry` says.
    public var minimumDelay: Duration
    /// How long a connection must stay open, bringing at least one event, for the backoff to
    /// start over at the next reconnect.
    public var backoffResetAfter: Duration

    /// Creates a reconnection policy.
    /// - Parameters:
    ///   - delay: The wait before reconnecting until the server sets one; 3 seconds by default.
    ///   - maximumAttempts: The most fruitless reconnects in a row; no limit by default.
    ///   - minimumDelay: The shortest wait before a reconnect; half a second by default.
    ///   - backoffResetAfter: How long a connection must last, with an event, to reset the
    ///     backoff; 5 seconds by default.
    public init(
        delay: Duration = .seconds(3), maximumAttempts: Int? = nil, minimumDelay: Duration = .milliseconds(500),
        backoffResetAfter: Duration = .seconds(5)
    ) {
        self.delay = delay
        self.maximumAttempts = maximumAttempts
        self.minimumDelay = max(minimumDelay, .zero)
        self.backoffResetAfter = max(backoffResetAfter, .zero)
    }

    /// The longest backoff added when the client has no `.backoff` policy of its own.
    static let longestFallbackBackoff: Duration = .seconds(30)

    /// The backoff added before the `hasty`-th reconnect in a row after short-lived
    /// connections (none before the first): the client's, else doubling from the floor.
    func backoff(afterShortConnections hasty: Int, client: Client) -> Duration {
        guard hasty > 1 else { return .zero }
        if let backoff = client.retry.backoffDelay(forRetry: hasty - 1) { return backoff }
        guard minimumDelay > .zero else { return .zero }
        let doublings = min(hasty - 2, 16)
        return min(minimumDelay * (1 << doublings), Self.longestFallbackBackoff)
    }

    /// Reconnects after 3 seconds until the server says otherwise, without limit.
    public static var standard: EventReconnection { EventReconnection() }
}
