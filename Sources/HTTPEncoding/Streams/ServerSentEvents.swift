import Foundation

/// The events of a `text/event-stream` body, parsed as its chunks arrive.
///
/// Made with ``_Concurrency/AsyncSequence/serverSentEvents(maximumEventSize:lastEventID:)``
/// on any sequence of `Data` chunks, such as a streamed response. Chunks are read only as
/// events are asked for, so a slow consumer slows the reading; memory holds one chunk's
/// events and one unfinished event, at most ``ServerSentEventParser/maximumEventSize``.
///
/// ```swift
/// let chunks = AsyncStream<Data> { continuation in
///     continuation.yield(Data("data: {\"n\":1}\n\nda".utf8))
///     continuation.yield(Data("ta: {\"n\":2}\n\n".utf8))
///     continuation.finish()
/// }
/// for try await event in chunks.serverSentEvents() {
///     print(event.data)  // {"n":1}, then {"n":2}
/// }
/// ```
public struct ServerSentEvents<Base: AsyncSequence>: AsyncSequence where Base.Element == Data {
    /// A raw event.
    public typealias Element = ServerSentEvent<String>

    let base: Base
    let maximumEventSize: Int
    let lastEventID: String

    /// Starts reading the events.
    /// - Returns: The iterator.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            base: base.makeAsyncIterator(),
            parser: ServerSentEventParser(maximumEventSize: maximumEventSize, lastEventID: lastEventID))
    }

    /// Reads events one at a time.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator?
        /// The parser, with the stream's last event ID and reconnection time.
        public private(set) var parser: ServerSentEventParser
        var pending: [ServerSentEvent<String>] = []
        var nextPending = 0
        /// A failure of the last chunk, thrown once the events it completed before it are out.
        var failure: HTTPEncodingError?

        init(base: Base.AsyncIterator, parser: ServerSentEventParser) {
            self.base = base
            self.parser = parser
        }

        /// The next event, or `nil` once the stream has ended.
        /// - Returns: An event.
        /// - Throws: ``HTTPEncodingError/Code/elementTooLarge``, or what the chunks throw.
        public mutating func next() async throws -> ServerSentEvent<String>? {
            while true {
                if nextPending < pending.count {
                    defer { nextPending += 1 }
                    return pending[nextPending]
                }
                pending.removeAll(keepingCapacity: true)
                nextPending = 0
                if let failure {
                    self.failure = nil
                    base = nil
                    throw failure
                }
                guard var chunks = base else { return nil }
                guard let chunk = try await chunks.next() else {
                    base = nil
                    parser.finish()
                    return nil
                }
                base = chunks
                do {
                    try parser.parse(chunk, into: &pending)
                } catch {
                    // The events the chunk completed before the failure go out first.
                    failure = error
                }
            }
        }
    }
}

extension ServerSentEvents: Sendable where Base: Sendable {}

extension ServerSentEvents {
    /// The events whose `data` decodes as JSON into `Value`, one at a time.
    ///
    /// ```swift
    /// struct Delta: Decodable, Sendable { var text: String }
    /// let chunks = AsyncStream<Data> { continuation in
    ///     continuation.yield(Data("data: {\"text\":\"Hel\"}\n\ndata: [DONE]\n\n".utf8))
    ///     continuation.finish()
    /// }
    /// let deltas = chunks.serverSentEvents().decoded(as: Delta.self, where: { $0.data != "[DONE]" })
    /// for try await delta in deltas { print(delta.data.text) }  // Hel
    /// ```
    /// - Parameters:
    ///   - type: The type of each event's data.
    ///   - decoder: The JSON decoder and its options; a default `JSONDecoder` when omitted.
    ///   - isIncluded: Which raw events to decode; the others are skipped. All by default.
    /// - Returns: The decoded events, with their type, ID and retry.
    public func decoded<Value: Decodable & Sendable>(
        as type: Value.Type, using decoder: JSONResponseDecoder = JSONResponseDecoder(),
        where isIncluded: @escaping @Sendable (ServerSentEvent<String>) -> Bool = { _ in true }
    ) -> DecodedServerSentEvents<Base, Value> {
        DecodedServerSentEvents(events: self, decoder: decoder, isIncluded: isIncluded)
    }
}

/// Server-sent events whose `data` is decoded as JSON, from
/// ``ServerSentEvents/decoded(as:using:where:)``.
public struct DecodedServerSentEvents<Base: AsyncSequence, Value: Decodable & Sendable>: AsyncSequence
where Base.Element == Data {
    /// A decoded event.
    public typealias Element = ServerSentEvent<Value>

    let events: ServerSentEvents<Base>
    let decoder: JSONResponseDecoder
    let isIncluded: @Sendable (ServerSentEvent<String>) -> Bool

    /// Starts reading the events.
    /// - Returns: The iterator.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(events: events.makeAsyncIterator(), decoder: decoder.makeDecoder(), isIncluded: isIncluded)
    }

    /// Reads and decodes events one at a time.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var events: ServerSentEvents<Base>.AsyncIterator
        let decoder: JSONDecoder
        let isIncluded: @Sendable (ServerSentEvent<String>) -> Bool

        /// The parser of the raw events, with the stream's last event ID and reconnection time.
        public var parser: ServerSentEventParser { events.parser }

        /// The next decoded event, or `nil` once the stream has ended.
        /// - Returns: An event.
        /// - Throws: ``HTTPEncodingError/Code/jsonDecodingFailed`` naming the event whose data
        ///   is not a `Value`, ``HTTPEncodingError/Code/elementTooLarge``, or what the chunks throw.
        public mutating func next() async throws -> ServerSentEvent<Value>? {
            while let event = try await events.next() {
                guard isIncluded(event) else { continue }
                let value: Value = try JSONResponseDecoder.decodeElement(
                    Value.self, from: Data(event.data.utf8), with: decoder,
                    naming: "event \(event.type)\(event.id.isEmpty ? "" : " #\(event.id)")")
                return ServerSentEvent(type: event.type, data: value, id: event.id, retry: event.retry)
            }
            return nil
        }
    }
}

extension DecodedServerSentEvents: Sendable where Base: Sendable {}

extension AsyncSequence where Element == Data {
    /// The server-sent events of a `text/event-stream` body arriving in these chunks.
    /// - Parameters:
    ///   - maximumEventSize: The most bytes one event may hold; 8 MiB by default.
    ///   - lastEventID: The last event ID string to start from.
    /// - Returns: The events, parsed as the chunks arrive.
    public func serverSentEvents(maximumEventSize: Int = 8 << 20, lastEventID: String = "") -> ServerSentEvents<Self> {
        ServerSentEvents(base: self, maximumEventSize: maximumEventSize, lastEventID: lastEventID)
    }
}
