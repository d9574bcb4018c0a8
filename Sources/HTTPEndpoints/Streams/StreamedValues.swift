import Foundation
import HTTPClient
import HTTPCore
import HTTPEncoding

/// Response types read as a stream of values, which ``ResponseDecoding/automatic`` picks
/// by type.
protocol StreamedValues: Sendable {
    /// The decoding `automatic` gives this type, as a `ResponseDecoding<Self>`.
    static var automaticDecoding: Any { get }
}

extension EventStream: StreamedValues {
    static var automaticDecoding: Any { ResponseDecoding<EventStream<Value>>.events() }
}

extension JSONStream: StreamedValues {
    static var automaticDecoding: Any { ResponseDecoding<JSONStream<Value>>.jsonStream() }
}

extension ResponseDecoding {
    /// Server-sent events (`text/event-stream`): their data as text for an
    /// `EventStream<String>`, or decoded as JSON with the client's decoder. The call returns
    /// once the first response head is in.
    ///
    /// ```swift
    /// static let ticks = Endpoint<Empty, EventStream<Tick>>(
    ///     .get, "/ticks", response: .events(reconnection: .standard))
    /// ```
    /// - Parameters:
    ///   - isIncluded: Which raw events to decode; the others are skipped. All by default.
    ///   - reconnection: How to reopen the stream when it ends or fails; never by default.
    ///   - lastEventID: The ID to resume after, sent as `Last-Event-ID`; none by default.
    ///   - maximumEventSize: The most bytes one event may hold; 8 MiB by default.
    /// - Returns: The decoding.
    public static func events<Item: Sendable>(
        where isIncluded: @escaping @Sendable (ServerSentEvent<String>) -> Bool = { _ in true },
        reconnection: EventReconnection? = nil, lastEventID: String = "", maximumEventSize: Int = 8 << 20
    ) -> ResponseDecoding where Response == EventStream<Item> {
        ResponseDecoding(
            kind: .opened { connection, defaults in
                var connection = connection
                connection.mediaTypes = [.eventStream]
                guard let decoding = EventDecoding<Item>.chosen(defaults.jsonDecoder, isIncluded: isIncluded) else {
                    throw EndpointError(
                        .invalidCall, endpoint: connection.name,
                        "the data of EventStream<\(Item.self)> is read as text (String) or JSON (a Decodable)")
                }
                return try await EventStream.open(
                    connection, decoding: decoding, reconnection: reconnection, lastEventID: lastEventID,
                    maximumEventSize: maximumEventSize)
            }, accept: .eventStream)
    }

    /// JSON Lines (`application/jsonl`, `application/x-ndjson`) or a JSON text sequence
    /// (`application/json-seq`, RFC 7464), told apart by the response's `Content-Type`, each
    /// value decoded with the client's decoder as it arrives.
    ///
    /// ```swift
    /// static let logs = Endpoint<Empty, JSONStream<LogLine>>(.get, "/logs/tail")
    /// ```
    /// - Parameter maximumSize: The most bytes one line or record may hold; 8 MiB by default.
    /// - Returns: The decoding.
    public static func jsonStream<Item: Decodable & Sendable>(
        maximumSize: Int = 8 << 20
    ) -> ResponseDecoding where Response == JSONStream<Item> {
        ResponseDecoding(
            kind: .opened { connection, defaults in
                var connection = connection
                connection.mediaTypes = JSONStream<Item>.mediaTypes
                return try await JSONStream.open(connection, decoder: defaults.jsonDecoder, maximumSize: maximumSize)
            })
    }
}
