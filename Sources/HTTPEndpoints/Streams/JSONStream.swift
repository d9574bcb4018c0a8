import Foundation
import HTTPClient
import HTTPCore
import HTTPEncoding

/// The values of a JSON Lines or JSON text sequence response, decoded as they arrive.
///
/// From `client.jsonStream(_:as:)` or an endpoint whose
/// response type is a `JSONStream`; the format is told by the `Content-Type`:
/// `application/json-seq` is a JSON text sequence (RFC 7464), whose records cut short are
/// dropped as the RFC says (`HTTPEncodingError` code `truncatedRecord`, see
/// ``truncatedRecords``); `application/jsonl`, `application/x-ndjson` and their kin are
/// JSON Lines. Iterate it once. Chunks are taken from the transport only as values are asked
/// for; what a transport that cannot slow the server (URLSession) receives meanwhile is held
/// up to the call's `responseBodyLimit`, past which the stream fails with
/// `responseTooLarge`. Cancelling the consuming task ends the request.
///
/// ```swift
/// struct LogLine: Decodable, Sendable {
///     var level: String
///     var message: String
/// }
/// for try await line in try await client.jsonStream(.get("logs/tail"), as: LogLine.self) {
///     print(line.level, line.message)
/// }
/// ```
public struct JSONStream<Value: Decodable & Sendable>: AsyncSequence, Sendable {
    /// A decoded value.
    public typealias Element = Value

    /// The response head.
    public let response: HTTPResponse
    let body: ResponseStream
    let isSequence: Bool
    let decoder: JSONResponseDecoder
    let maximumSize: Int
    private let dropped = Locked<[HTTPEncodingError]>([])

    /// The records of a JSON text sequence dropped so far as cut short (RFC 7464 §2.3, §2.4).
    public var truncatedRecords: [HTTPEncodingError] { dropped.withLock { $0 } }

    init(response: HTTPResponse, body: ResponseStream, decoder: JSONResponseDecoder, maximumSize: Int) {
        self.response = response
        self.body = body
        self.decoder = decoder
        self.maximumSize = maximumSize
        let type = response.contentType
        self.isSequence = type?.type == "application" && type?.subtype == "json-seq"
    }

    /// Starts reading the values.
    /// - Returns: The iterator.
    public func makeAsyncIterator() -> AsyncIterator {
        if isSequence {
            let dropped = dropped
            let records = body.jsonTextSequence(
                maximumRecordSize: maximumSize, onTruncatedRecord: { error in dropped.withLock { $0.append(error) } })
            return AsyncIterator(
                lines: nil, records: records.decoded(as: Value.self, using: decoder).makeAsyncIterator())
        }
        let lines = body.jsonLines(maximumLineSize: maximumSize).decoded(as: Value.self, using: decoder)
        return AsyncIterator(lines: lines.makeAsyncIterator(), records: nil)
    }

    /// Reads values one at a time.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// The reader of a JSON Lines body, or `nil` for a JSON text sequence.
        var lines: DecodedJSONLines<ResponseStream, Value>.AsyncIterator?
        /// The reader of a JSON text sequence, or `nil` for JSON Lines.
        var records: DecodedJSONTextSequence<ResponseStream, Value>.AsyncIterator?

        /// The next value, or `nil` at the end.
        /// - Returns: A value.
        /// - Throws: `HTTPEncodingError` for a line or record that is not a `Value` or too
        ///   large; `ClientError` for a failed connection; `CancellationError`.
        public mutating func next() async throws -> Value? {
            // Each reader is advanced where it is stored: no copy of its buffers.
            if lines != nil { return try await lines!.next() }
            return try await records?.next()
        }
    }

    /// The media types a JSON stream is read from.
    static var mediaTypes: [MediaType] {
        ["jsonl", "x-ndjson", "json-lines", "x-jsonlines", "json-seq"].compactMap {
            try? MediaType(parsing: "application/\($0)")
        }
    }

    static func open(
        _ connection: EventConnection, decoder: JSONResponseDecoder, maximumSize: Int
    ) async throws -> ClientResponse<JSONStream> {
        guard let response = try await connection.open() else {
            let empty = JSONStream(
                response: HTTPResponse(status: .noContent), body: ResponseStream(.empty), decoder: decoder,
                maximumSize: maximumSize)
            return ClientResponse(
                head: empty.response, body: empty, request: connection.request,
                metrics: ClientMetrics(attempts: [], redirects: 0, duration: .zero, bytesSent: nil, bytesReceived: nil))
        }
        return response.map { body in
            JSONStream(response: response.head, body: body, decoder: decoder, maximumSize: maximumSize)
        }
    }
}

extension Client {
    /// Sends a request and returns its JSON Lines or JSON text sequence response as values
    /// decoded as they arrive (see ``JSONStream``).
    ///
    /// The call returns once the response head is in: a status other than 2xx fails it with
    /// an ``EndpointError``, and so does a `Content-Type` that is neither format.
    /// - Parameters:
    ///   - request: The request.
    ///   - type: The type of each value.
    ///   - decoder: The JSON decoder; the client's when omitted.
    ///   - maximumSize: The most bytes one line or record may hold; 8 MiB by default.
    ///   - options: Per-call settings.
    /// - Returns: The values.
    /// - Throws: ``EndpointError`` for the status or type; `ClientError` for the client's failures.
    public func jsonStream<Value: Decodable & Sendable>(
        _ request: HTTPRequest, as type: Value.Type, decoder: JSONResponseDecoder? = nil,
        maximumSize: Int = 8 << 20, options: RequestOptions = RequestOptions()
    ) async throws -> JSONStream<Value> {
        var connection = eventConnection(request, options: options)
        connection.mediaTypes = JSONStream<Value>.mediaTypes
        let decoder = decoder ?? values.merging(options.values).endpointDefaults.jsonDecoder
        return try await JSONStream.open(connection, decoder: decoder, maximumSize: maximumSize).body
    }
}
