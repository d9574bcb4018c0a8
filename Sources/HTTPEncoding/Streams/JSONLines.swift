import Foundation

/// The lines of a JSON Lines (NDJSON) body, one JSON value each, as the chunks arrive.
///
/// Lines end with LF (a CR before it is JSON whitespace and kept); blank lines are
/// skipped; the last line may omit its LF. Made with
/// ``_Concurrency/AsyncSequence/jsonLines(maximumLineSize:)``; decode them with
/// ``decoded(as:using:)``.
///
/// ```swift
/// struct Entry: Decodable, Sendable { var level: String }
/// let chunks = AsyncStream<Data> { continuation in
///     continuation.yield(Data("{\"level\":\"info\"}\n{\"lev".utf8))
///     continuation.yield(Data("el\":\"warn\"}\n\n".utf8))
///     continuation.finish()
/// }
/// for try await entry in chunks.jsonLines().decoded(as: Entry.self) {
///     print(entry.level)  // info, then warn
/// }
/// ```
public struct JSONLines<Base: AsyncSequence>: AsyncSequence where Base.Element == Data {
    /// One line's bytes, without its LF.
    public typealias Element = Data

    let base: Base
    let maximumLineSize: Int

    /// Starts reading the lines.
    /// - Returns: The iterator.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            records: RecordReader(
                chunks: base.makeAsyncIterator(),
                splitter: DelimitedRecords(delimiter: 0x0A, maximumSize: maximumLineSize, noun: "line")))
    }

    /// Reads lines one at a time.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var records: RecordReader<Base.AsyncIterator>
        /// The number of the line last returned, counting blank ones, from 1.
        public private(set) var lineNumber = 0

        init(records: RecordReader<Base.AsyncIterator>) { self.records = records }

        /// The next line already cut that is not blank, without waiting for a chunk.
        mutating func nextBufferedLine() -> Data? { records.buffer.nextLine(counting: &lineNumber) }

        /// The next line that is not blank, or `nil` at the end.
        /// - Returns: The line's bytes.
        /// - Throws: ``HTTPEncodingError/Code/elementTooLarge``, or what the chunks throw.
        public mutating func next() async throws -> Data? {
            while true {
                if let line = nextBufferedLine() { return line }
                guard try await records.refill() else { return nil }
            }
        }
    }

    /// The lines decoded as JSON into `Value`, one at a time.
    /// - Parameters:
    ///   - type: The type of each line's value.
    ///   - decoder: The JSON decoder and its options; a default `JSONDecoder` when omitted.
    /// - Returns: The values.
    public func decoded<Value: Decodable & Sendable>(
        as type: Value.Type, using decoder: JSONResponseDecoder = JSONResponseDecoder()
    ) -> DecodedJSONLines<Base, Value> {
        DecodedJSONLines(lines: self, decoder: decoder)
    }
}

extension JSONLines: Sendable where Base: Sendable {}

/// JSON Lines decoded into values, from ``JSONLines/decoded(as:using:)``.
public struct DecodedJSONLines<Base: AsyncSequence, Value: Decodable & Sendable>: AsyncSequence
where Base.Element == Data {
    /// A decoded line.
    public typealias Element = Value

    let lines: JSONLines<Base>
    let decoder: JSONResponseDecoder

    /// Starts reading the values.
    /// - Returns: The iterator.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(lines: lines.makeAsyncIterator(), decoder: decoder.makeDecoder())
    }

    /// Reads and decodes lines one at a time.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var lines: JSONLines<Base>.AsyncIterator
        let decoder: JSONDecoder

        /// The next value, or `nil` at the end.
        /// - Returns: A value.
        /// - Throws: ``HTTPEncodingError/Code/jsonDecodingFailed`` naming the line that is not
        ///   a `Value` (a line cut short by a dropped connection among them),
        ///   ``HTTPEncodingError/Code/elementTooLarge``, or what the chunks throw.
        public mutating func next() async throws -> Value? {
            // Lines already cut are decoded without a suspension; a chunk is awaited only
            // when they run out.
            var buffered = lines.nextBufferedLine()
            if buffered == nil { buffered = try await lines.next() }
            guard let line = buffered else { return nil }
            let number = lines.lineNumber
            return try JSONResponseDecoder.decodeElement(
                Value.self, from: line, with: decoder, naming: "line \(number)")
        }
    }
}

extension DecodedJSONLines: Sendable where Base: Sendable {}

extension AsyncSequence where Element == Data {
    /// The JSON Lines (NDJSON) of a body arriving in these chunks.
    /// - Parameter maximumLineSize: The most bytes one line may hold; 8 MiB by default.
    /// - Returns: The lines, cut as the chunks arrive.
    public func jsonLines(maximumLineSize: Int = 8 << 20) -> JSONLines<Self> {
        JSONLines(base: self, maximumLineSize: maximumLineSize)
    }
}
