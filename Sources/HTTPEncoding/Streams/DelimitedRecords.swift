import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Cuts chunks into records ended by one delimiter byte: the framing of JSON Lines (LF)
/// and JSON text sequences (RS), chunks cut anywhere.
struct DelimitedRecords: Sendable {
    /// The byte that ends a record.
    let delimiter: UInt8
    /// The most bytes one record may hold.
    let maximumSize: Int
    /// What to call a record in an error: `line`, `record`.
    let noun: String
    /// A record cut by the end of a chunk.
    private var partial = Data()
    /// How many records have ended so far, for error messages.
    private(set) var recordsEnded = 0

    init(delimiter: UInt8, maximumSize: Int, noun: String) {
        self.delimiter = delimiter
        self.maximumSize = max(1, maximumSize)
        self.noun = noun
    }

    /// Appends the records `chunk` completes to `records`, each without its delimiter.
    ///
    /// Every record is checked against ``maximumSize``: one wholly inside the chunk, one
    /// completed from the bytes of earlier chunks, and the unfinished one the chunk ends with.
    mutating func split(_ chunk: Data, into records: inout [Data]) throws(HTTPEncodingError) {
        let count = chunk.count
        let ends: [Int] = chunk.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return [] }
            var ends: [Int] = []
            var start = 0
            while start < count, let found = memchr(base + start, Int32(delimiter), count - start) {
                let end = UnsafeRawPointer(found) - base
                ends.append(end)
                start = end + 1
            }
            return ends
        }
        var start = chunk.startIndex
        for end in ends {
            let stop = chunk.startIndex + end
            if partial.isEmpty {
                try checkSize(stop - start)
                records.append(chunk[start..<stop])
            } else {
                try checkSize(partial.count + stop - start)
                partial.append(chunk[start..<stop])
                records.append(partial)
                partial = Data()
            }
            recordsEnded += 1
            start = stop + 1
        }
        if start < chunk.endIndex {
            try checkSize(partial.count + chunk.endIndex - start)
            partial.append(chunk[start...])
        }
    }

    /// Ends the input.
    /// - Returns: The last record when the input did not end with the delimiter.
    mutating func finish() -> Data? {
        defer { partial = Data() }
        return partial.isEmpty ? nil : partial
    }

    private func checkSize(_ size: Int) throws(HTTPEncodingError) {
        guard size > maximumSize else { return }
        throw HTTPEncodingError(
            .elementTooLarge, value: "\(size)",
            reason: "\(noun) \(recordsEnded + 1) outgrew its limit of \(maximumSize) bytes")
    }
}

/// The records cut from the chunks so far, handed out one at a time. Not generic, so the
/// per-record work is compiled for it once, whatever sequence the chunks come from.
struct RecordBuffer: Sendable {
    private var splitter: DelimitedRecords
    private var pending: [Data] = []
    private var nextPending = 0

    init(splitter: DelimitedRecords) { self.splitter = splitter }

    /// The next record already cut.
    mutating func next() -> Data? {
        guard nextPending < pending.count else { return nil }
        defer { nextPending += 1 }
        return pending[nextPending]
    }

    /// The next line already cut that is not blank (only JSON whitespace), counting every
    /// line, blank or not, in `number`.
    mutating func nextLine(counting number: inout Int) -> Data? {
        while nextPending < pending.count {
            let line = pending[nextPending]
            nextPending += 1
            number += 1
            // Most lines open with `{` or `[`: one byte tells they are not blank.
            if let first = line.first, !isJSONWhitespace(first) { return line }
            if !line.allSatisfy(isJSONWhitespace) { return line }
        }
        return nil
    }

    /// Replaces the records handed out with those `chunk` completes.
    mutating func cut(_ chunk: Data) throws(HTTPEncodingError) {
        pending.removeAll(keepingCapacity: true)
        nextPending = 0
        try splitter.split(chunk, into: &pending)
    }

    /// Replaces the records handed out with the last one, if the input did not end with the
    /// delimiter.
    mutating func finish() {
        pending.removeAll(keepingCapacity: true)
        nextPending = 0
        if let last = splitter.finish() { pending.append(last) }
    }
}

/// Reads the records of a sequence of chunks: those one chunk completed, then the next
/// chunk's, as the reader asks.
struct RecordReader<Chunks: AsyncIteratorProtocol> where Chunks.Element == Data {
    /// The records cut so far.
    var buffer: RecordBuffer
    private var chunks: Chunks?

    init(chunks: Chunks, splitter: DelimitedRecords) {
        self.buffer = RecordBuffer(splitter: splitter)
        self.chunks = chunks
    }

    /// Cuts the records of the next chunk (or the last record at the end of the input).
    /// - Returns: `false` once the input is over and every record was handed out.
    mutating func refill() async throws -> Bool {
        guard var base = chunks else { return false }
        if let chunk = try await base.next() {
            chunks = base
            try buffer.cut(chunk)
        } else {
            chunks = nil
            buffer.finish()
        }
        return true
    }
}

/// Whether `byte` is JSON whitespace (RFC 8259 §2).
func isJSONWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
}
