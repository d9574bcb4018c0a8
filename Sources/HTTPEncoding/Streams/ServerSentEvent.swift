import Foundation

/// One event of a `text/event-stream` response, as the WHATWG HTML standard's
/// "Server-sent events" section dispatches it.
///
/// `Payload` is `String` for raw events (``ServerSentEventParser``,
/// ``ServerSentEvents``), or a `Decodable` type for events whose `data` was decoded
/// (``ServerSentEvents/decoded(as:using:where:)``).
///
/// ```swift
/// var parser = ServerSentEventParser()
/// let events = try parser.parse(Data("event: greeting\nid: 1\ndata: hello\n\n".utf8))
/// print(events[0].type, events[0].id, events[0].data)  // greeting 1 hello
/// ```
public struct ServerSentEvent<Payload: Sendable>: Sendable {
    /// The event type: the `event` field, or `message` when the event named none.
    public var type: String
    /// The `data` lines of the event, joined with `\n`, or the value decoded from them.
    public var data: Payload
    /// The last event ID when the event was dispatched: its own `id` field or an earlier
    /// event's, empty when the stream has set none. A reconnecting client sends it back as
    /// `Last-Event-ID`.
    public var id: String
    /// The reconnection time a `retry` field in this event's lines set, if any.
    public var retry: Duration?

    /// Creates an event.
    /// - Parameters:
    ///   - type: The event type; `message` by default.
    ///   - data: The data.
    ///   - id: The last event ID; empty by default.
    ///   - retry: The reconnection time the event set, if any.
    public init(type: String = "message", data: Payload, id: String = "", retry: Duration? = nil) {
        self.type = type
        self.data = data
        self.id = id
        self.retry = retry
    }
}

extension ServerSentEvent: Equatable where Payload: Equatable {}
extension ServerSentEvent: Hashable where Payload: Hashable {}

extension ServerSentEvent: CustomStringConvertible {
    /// The event as `type #id: data`.
    public var description: String {
        "\(type)\(id.isEmpty ? "" : " #\(id)"): \(data)"
    }
}
