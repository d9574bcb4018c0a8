import Foundation

/// The records of a JSON text sequence (RFC 7464, `application/json-seq`), as the chunks
/// arrive: each JSON text preceded by RS (0x1E) and ended by LF.
///
/// Following RFC 7464 §2.1, a record is what lies between two RS bytes, and empty ones are
/// ignored. A record whose top-level value is a number, `true`, `false` or `null` not
/// followed by whitespace may have been cut short, and is dropped (§2.4); so is, when
/// decoding, a record that is not JSON at all (§2.3), and reading goes on with the next
/// one. Each dropped record is reported to the `onTruncatedRecord` handler as
/// ``HTTPEncodingError/Code/truncatedRecord``.
///
/// ```swift
/// struct Count: Decodable, Sendable { var n: Int }
/// let chunks = AsyncStream<Data> { continuation in
///     continuation.yield(Data("\u{1E}{\"n\":1}\n\u{1E}{\"n\":".utf8))  // the second is cut short
///     continuation.yield(Data("\u{1E}{\"n\":3}\n".utf8))
///     continuation.finish()
/// }
/// let counts = chunks.jsonTextSequence(onTruncatedRecord: { print($0) }).decoded(as: Count.self)
/// for try await count in counts { print(count.n) }  // 1, a truncatedRecord error, then 3
/// ```
public struct JSONTextSequence<Base: AsyncSequence>: AsyncSequence where Base.Element == Data {
    /// One record's bytes, without its RS.
    public typealias Element = Data

    let base: Base
    let maximumRecordSize: Int
    let onTruncatedRecord: (@Sendable (HTTPEncodingError) -> Void)?

    /// Starts reading the records.
    /// - Returns: The iterator.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            records: RecordReader(
                chunks: base.makeAsyncIterator(),
                splitter: DelimitedRecords(delimiter: recordSeparator, maximumSize: maximumRecordSize, noun: "record")),
            onTruncatedRecord: onTruncatedRecord)
    }

    /// Reads records one at a time.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var records: RecordReader<Base.AsyncIterator>
        let onTruncatedRecord: (@Sendable (HTTPEncodingError) -> Void)?
        /// The number of the record last returned or dropped, from 1.
        public private(set) var recordNumber = 0

        init(
            records: RecordReader<Base.AsyncIterator>, onTruncatedRecord: (@Sendable (HTTPEncodingError) -> Void)?
        ) {
            self.records = records
            self.onTruncatedRecord = onTruncatedRecord
        }

        /// The next record that is not empty and not cut short, or `nil` at the end.
        /// - Returns: The record's bytes.
        /// - Throws: ``HTTPEncodingError/Code/elementTooLarge``, or what the chunks throw.
        public mutating func next() async throws -> Data? {
            while true {
                while let record = records.buffer.next() {
                    guard let first = record.firstIndex(where: { !isJSONWhitespace($0) }) else { continue }
                    recordNumber += 1
                    if Self.mayBeTruncated(record, first: record[first]) {
                        report(record, "its top-level \(Self.kind(of: record[first])) is not followed by whitespace")
                        continue
                    }
                    return record
                }
                guard try await records.refill() else { return nil }
            }
        }

        /// Tells the handler that a record was dropped.
        func report(_ record: Data, _ why: String) {
            onTruncatedRecord?(
                HTTPEncodingError(
                    .truncatedRecord, value: String(decoding: record.prefix(200), as: UTF8.self),
                    reason: "record \(recordNumber) of the JSON text sequence was dropped: \(why) (RFC 7464)"))
        }

        /// A number or literal may continue past the end of the record unless whitespace
        /// follows it (RFC 7464 §2.4); objects, arrays and strings close themselves.
        static func mayBeTruncated(_ record: Data, first: UInt8) -> Bool {
            guard first == 0x2D || (0x30...0x39).contains(first) || first == 0x74 || first == 0x66 || first == 0x6E
            else { return false }
            return !isJSONWhitespace(record[record.index(before: record.endIndex)])
        }

        private static func kind(of first: UInt8) -> String {
            first == 0x2D || (0x30...0x39).contains(first) ? "number" : "literal"
        }
    }

    /// The records decoded as JSON into `Value`, one at a time. A record that is not JSON
    /// text is dropped and reported (RFC 7464 §2.3); one that is JSON but not a `Value`
    /// fails the sequence.
    /// - Parameters:
    ///   - type: The type of each record's value.
    ///   - decoder: The JSON decoder and its options; a default `JSONDecoder` when omitted.
    /// - Returns: The values.
    public func decoded<Value: Decodable & Sendable>(
        as type: Value.Type, using decoder: JSONResponseDecoder = JSONResponseDecoder()
    ) -> DecodedJSONTextSequence<Base, Value> {
        DecodedJSONTextSequence(records: self, decoder: decoder)
    }
}

extension JSONTextSequence: Sendable where Base: Sendable {}

/// A JSON text sequence decoded into values, from ``JSONTextSequence/decoded(as:using:)``.
public struct DecodedJSONTextSequence<Base: AsyncSequence, Value: Decodable & Sendable>: AsyncSequence
where Base.Element == Data {
    /// A decoded record.
    public typealias Element = Value

    let records: JSONTextSequence<Base>
    let decoder: JSONResponseDecoder

    /// Starts reading the values.
    /// - Returns: The iterator.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(records: records.makeAsyncIterator(), decoder: decoder.makeDecoder())
    }

    /// Reads and decodes records one at a time.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var records: JSONTextSequence<Base>.AsyncIterator
        let decoder: JSONDecoder

        /// The next value, or `nil` at the end.
        /// - Returns: A value.
        /// - Throws: ``HTTPEncodingError/Code/jsonDecodingFailed`` naming a record that is
        ///   JSON but not a `Value`, ``HTTPEncodingError/Code/elementTooLarge``, or what the
        ///   chunks throw.
        public mutating func next() async throws -> Value? {
            while let record = try await records.next() {
                do {
                    return try JSONResponseDecoder.decodeElement(
                        Value.self, from: record, with: decoder, naming: "record \(records.recordNumber)")
                } catch {
                    guard (try? JSONSerialization.jsonObject(with: record, options: .fragmentsAllowed)) == nil else {
                        throw error
                    }
                    records.report(record, "it is not JSON text, so it was probably cut short")
                }
            }
            return nil
        }
    }
}

extension DecodedJSONTextSequence: Sendable where Base: Sendable {}

extension AsyncSequence where Element == Data {
    /// The JSON text sequence (RFC 7464) of a body arriving in these chunks.
    /// - Parameters:
    ///   - maximumRecordSize: The most bytes one record may hold; 8 MiB by default.
    ///   - onTruncatedRecord: Told of each record dropped as cut short.
    /// - Returns: The records, cut as the chunks arrive.
    public func jsonTextSequence(
        maximumRecordSize: Int = 8 << 20, onTruncatedRecord: (@Sendable (HTTPEncodingError) -> Void)? = nil
    ) -> JSONTextSequence<Self> {
        JSONTextSequence(base: self, maximumRecordSize: maximumRecordSize, onTruncatedRecord: onTruncatedRecord)
    }
}

private let recordSeparator: UInt8 = 0x1E
