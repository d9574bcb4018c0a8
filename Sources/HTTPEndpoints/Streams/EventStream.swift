import Foundation
import HTTPClient
import HTTPCore
import HTTPEncoding

/// The server-sent events of a call, parsed as they arrive, with their `data` as text
/// (`EventStream<String>`) or decoded as JSON into `Value`; optionally reconnecting.
///
/// From `client.events(_:)`, its decoding form `client.events(_:as:)`, or an endpoint whose response type is an `EventStream`. The call that
/// made it returned once the first response head was in; its status and `Content-Type`
/// were checked then. Iterate it once. Chunks are taken from the transport only as events
/// are asked for: a transport that reads its body on demand is slowed by a slow consumer,
/// while one that cannot slow the server (URLSession) holds what arrives unread up to the
/// call's `responseBodyLimit`, past which the stream fails with `responseTooLarge`.
/// Cancelling the consuming task ends the request and closes its connection.
///
/// ```swift
/// struct Delta: Decodable, Sendable { var text: String }
/// let deltas = try await client.events(.get("chat/stream"), as: Delta.self, where: { $0.data != "[DONE]" })
/// for try await event in deltas {
///     print(event.data.text, terminator: "")
/// }
/// ```
public struct EventStream<Value: Sendable>: AsyncSequence, Sendable {
    /// An event.
    public typealias Element = ServerSentEvent<Value>

    /// The response head of the first connection.
    public let response: HTTPResponse
    let first: ResponseStream
    let connection: EventConnection
    let reconnection: EventReconnection?
    let lastEventID: String
    let maximumEventSize: Int
    let decoding: EventDecoding<Value>
    /// The first response was `204 No Content`: there are no events.
    let stopped: Bool

    /// Starts reading the events.
    /// - Returns: The iterator.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(stream: self) }

    /// Reads events one at a time, reconnecting as the stream's policy says.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private let stream: EventStream
        private var events: ServerSentEvents<ResponseStream>.AsyncIterator?
        /// Reads a raw event as an element, or `nil` to skip it; made per iterator.
        private let read: (ServerSentEvent<String>) throws -> ServerSentEvent<Value>?
        private var finished = false
        /// The last event ID string, sent as `Last-Event-ID` when reconnecting.
        public private(set) var lastEventID: String
        /// The wait before a reconnect: the server's `retry`, or the policy's delay.
        public private(set) var reconnectionTime: Duration
        /// How many times the stream was opened again.
        public private(set) var reconnections = 0
        private var fruitlessReconnects = 0
        /// Reconnects in a row after connections that closed early or brought no event: what
        /// the backoff grows with.
        private var hastyReconnects = 0
        /// When the current connection opened, and whether it has brought an event.
        private var openedAt = ContinuousClock.now
        private var connectionBroughtEvent = false

        init(stream: EventStream) {
            self.stream = stream
            self.finished = stream.stopped
            self.lastEventID = stream.lastEventID
            self.reconnectionTime = stream.reconnection?.delay ?? .zero
            self.events = stream.first.serverSentEvents(
                maximumEventSize: stream.maximumEventSize, lastEventID: stream.lastEventID
            ).makeAsyncIterator()
            self.read = stream.decoding.makeReader()
        }

        /// The next event, or `nil` once the stream has ended for good.
        /// - Returns: An event.
        /// - Throws: `CancellationError` when the task is cancelled; ``EndpointError`` for a
        ///   reconnect the server refused (its status or `Content-Type`); `HTTPEncodingError`
        ///   for an event too large or data that is not a `Value`; `ClientError` for a failed
        ///   connection when the stream does not reconnect (or gave up after
        ///   ``EventReconnection/maximumAttempts``), and `tooManyRetries` for a status the
        ///   client retried until it gave up.
        public mutating func next() async throws -> ServerSentEvent<Value>? {
            while !finished {
                guard var current = events else {
                    try await reopen()
                    continue
                }
                // The iterator is held only here while it reads: a second reference would make
                // every refill of its buffers a copy.
                events = nil
                do {
                    let event = try await current.next()
                    events = current
                    lastEventID = current.parser.lastEventID
                    if let time = current.parser.reconnectionTime { reconnectionTime = time }
                    guard let event else {
                        events = nil
                        lastFailure = nil
                        if stream.reconnection == nil { finished = true }
                        continue
                    }
                    fruitlessReconnects = 0
                    connectionBroughtEvent = true
                    if let element = try read(event) { return element }
                } catch {
                    events = nil
                    lastEventID = current.parser.lastEventID
                    guard stream.reconnection != nil, Self.reconnects(after: error) else {
                        finished = true
                        throw error
                    }
                    lastFailure = error
                }
            }
            return nil
        }

        private var lastFailure: (any Error)?

        /// Waits the reconnection time (plus the client's backoff after fruitless
        /// reconnects) and opens the stream again, until it opens, ends with 204, or fails
        /// for good.
        private mutating func reopen() async throws {
            guard let policy = stream.reconnection else {
                finished = true
                return
            }
            // Only a connection that lasted and brought an event starts the backoff over.
            if connectionBroughtEvent && ContinuousClock.now - openedAt >= policy.backoffResetAfter {
                hastyReconnects = 0
            }
            connectionBroughtEvent = false
            while true {
                if let maximum = policy.maximumAttempts, fruitlessReconnects >= maximum {
                    finished = true
                    if let lastFailure { throw lastFailure }
                    return
                }
                fruitlessReconnects += 1
                hastyReconnects += 1
                reconnections += 1
                let delay =
                    Swift.max(reconnectionTime, policy.minimumDelay)
                    + policy.backoff(afterShortConnections: hastyReconnects, client: stream.connection.client)
                stream.connection.client.notifyObservers(
                    .reconnecting(
                        stream.connection.request.url, reconnection: reconnections, delay: delay,
                        lastEventID: lastEventID,
                        reason: lastFailure.map { "\($0)" } ?? "the stream ended"))
                try await Task.sleep(for: delay)
                do {
                    guard let response = try await stream.connection.open(lastEventID: lastEventID) else {
                        finished = true  // 204: the server asks the client to stop
                        return
                    }
                    lastFailure = nil
                    openedAt = .now
                    events = response.body.serverSentEvents(
                        maximumEventSize: stream.maximumEventSize, lastEventID: lastEventID
                    ).makeAsyncIterator()
                    return
                } catch {
                    guard Self.reconnects(after: error) else {
                        finished = true
                        throw error
                    }
                    lastFailure = error
                }
            }
        }

        /// Network failures are worth a reconnect; a refusal, a parse error or
        /// cancellation is not. Nor is a status the client's retry stack retried until it gave
        /// up (`tooManyRetries` with a response, such as a `503`): the server answered, and
        /// refused, as the standard's "fail the connection" has it.
        static func reconnects(after error: any Error) -> Bool {
            if Task.isCancelled || error is CancellationError { return false }
            guard let error = error as? ClientError else { return false }
            switch error.code {
            case .cannotConnect, .connectionLost, .truncatedBody, .transport, .timedOut: return true
            case .tooManyRetries: return error.response == nil
            default: return false
            }
        }
    }
}

/// How an event stream reads each event's data: made where the data's type is known, so no
/// event is cast at run time.
struct EventDecoding<Value: Sendable>: Sendable {
    /// Makes one iterator's reader (with its own `JSONDecoder`): an element, or `nil` to skip.
    let makeReader: @Sendable () -> (ServerSentEvent<String>) throws -> ServerSentEvent<Value>?
}

extension EventDecoding where Value == String {
    /// The data as text.
    static var text: EventDecoding { EventDecoding { { $0 } } }
}

extension EventDecoding where Value: Decodable {
    /// The data decoded as JSON, for the events `isIncluded` lets through.
    static func json(
        _ decoder: JSONResponseDecoder, isIncluded: @escaping @Sendable (ServerSentEvent<String>) -> Bool
    ) -> EventDecoding {
        EventDecoding {
            let json = decoder.makeDecoder()
            return { event in
                guard isIncluded(event) else { return nil }
                let value = try JSONResponseDecoder.decodeElement(
                    Value.self, from: Data(event.data.utf8), with: json,
                    naming: "event \(event.type)\(event.id.isEmpty ? "" : " #\(event.id)")")
                return ServerSentEvent(type: event.type, data: value, id: event.id, retry: event.retry)
            }
        }
    }
}

extension EventDecoding {
    /// Text for `String`, JSON for any other `Decodable`: the decoding of an endpoint's
    /// `EventStream<Value>`, whose type is known only at run time here.
    static func chosen(
        _ decoder: JSONResponseDecoder, isIncluded: @escaping @Sendable (ServerSentEvent<String>) -> Bool
    ) -> EventDecoding? {
        if Value.self == String.self { return EventDecoding<String>.text as? EventDecoding }
        guard let type = Value.self as? any (Decodable & Sendable).Type else { return nil }
        return opened(type, decoder, isIncluded) as? EventDecoding
    }

    private static func opened<T: Decodable & Sendable>(
        _ type: T.Type, _ decoder: JSONResponseDecoder,
        _ isIncluded: @escaping @Sendable (ServerSentEvent<String>) -> Bool
    ) -> Any {
        EventDecoding<T>.json(decoder, isIncluded: isIncluded)
    }
}
