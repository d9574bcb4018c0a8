import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Cuts a `text/event-stream` body into events as its chunks arrive, exactly as the
/// WHATWG HTML standard's "Server-sent events" section parses an event stream.
///
/// - Lines end with CR, LF or CR LF; a chunk may be cut anywhere, inside a field name,
///   between CR and LF, or inside a multi-byte UTF-8 character.
/// - A leading byte order mark is dropped; bytes that are not UTF-8 become U+FFFD.
/// - `data` lines are joined with `\n`; `event` names the type; `id` sets the last event
///   ID unless it holds NUL; `retry` sets the reconnection time when it is all digits;
///   lines starting with `:` are comments; other fields are ignored.
/// - An event is dispatched only at a blank line, and only when it has data; what is left
///   when the stream ends is an incomplete event, dropped (``finish()``).
///
/// Memory is bounded: a line (of any field, or a comment) that, with the data of its event
/// so far, outgrows ``maximumEventSize`` fails with ``HTTPEncodingError/Code/elementTooLarge``,
/// whether it arrives in one chunk or many.
///
/// ```swift
/// var parser = ServerSentEventParser()
/// var events = try parser.parse(Data("data: first\r\ndata: line\r".utf8))  // none yet
/// events += try parser.parse(Data("\n\r\nretry: 2500\n".utf8))
/// print(events.map(\.data), parser.reconnectionTime ?? .zero)  // ["first\nline"] 2.5 seconds
/// ```
public struct ServerSentEventParser: Sendable {
    /// The most bytes an event's data and any one of its lines may hold together.
    public let maximumEventSize: Int
    /// The last event ID string: the `id` in force when the last event was dispatched
    /// (even one without data), empty when none. A reconnecting client sends it as
    /// `Last-Event-ID`.
    public private(set) var lastEventID: String
    /// The reconnection time the latest valid `retry` field set, or `nil` when none has.
    public private(set) var reconnectionTime: Duration?

    /// A line cut by the end of a chunk, waiting for the rest.
    private var partialLine: [UInt8] = []
    /// The last chunk ended with CR: an LF opening the next one belongs to it.
    private var afterCR = false
    /// No line has ended yet, so the stream's byte order mark may still be ahead.
    private var atStart = true
    /// The data buffer: each `data` value followed by LF.
    private var dataBuffer: [UInt8] = []
    /// The event type buffer.
    private var eventType = ""
    /// The last event ID buffer.
    private var idBuffer = ""
    /// The reconnection time set by a `retry` line of the current event.
    private var eventRetry: Duration?

    /// A parser for a new stream.
    /// - Parameters:
    ///   - maximumEventSize: The most bytes an event's lines may hold; 8 MiB by default.
    ///   - lastEventID: The last event ID string to start from, such as the one a previous
    ///     connection to the same stream ended with.
    public init(maximumEventSize: Int = 8 << 20, lastEventID: String = "") {
        self.maximumEventSize = max(1, maximumEventSize)
        self.lastEventID = lastEventID
        // The buffer, not only the string, starts from it: an event without `id` on the new
        // connection keeps the ID (WHATWG HTML §9.2.6: the buffer survives reconnects).
        self.idBuffer = lastEventID
    }

    /// Parses the next chunk of the stream.
    /// - Parameter chunk: The bytes, cut anywhere.
    /// - Returns: The events the chunk completed, in order.
    /// - Throws: ``HTTPEncodingError/Code/elementTooLarge`` when an event outgrows
    ///   ``maximumEventSize``.
    public mutating func parse(_ chunk: Data) throws(HTTPEncodingError) -> [ServerSentEvent<String>] {
        var events: [ServerSentEvent<String>] = []
        try parse(chunk, into: &events)
        return events
    }

    /// Parses the next chunk of the stream, appending the events it completed to `events`.
    mutating func parse(_ chunk: Data, into events: inout [ServerSentEvent<String>]) throws(HTTPEncodingError) {
        let result: HTTPEncodingError? = chunk.withUnsafeBytes { bytes in
            do throws(HTTPEncodingError) {
                try parse(bytes, into: &events)
                return nil
            } catch {
                return error
            }
        }
        if let result { throw result }
    }

    /// Ends the stream: an event without its closing blank line is dropped, as the standard
    /// says, and the parser is ready for nothing more.
    public mutating func finish() {
        partialLine = []
        dataBuffer = []
        eventType = ""
        eventRetry = nil
        afterCR = false
    }

    // MARK: Lines

    private mutating func parse(
        _ bytes: UnsafeRawBufferPointer, into events: inout [ServerSentEvent<String>]
    ) throws(HTTPEncodingError) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        let count = bytes.count
        var start = 0
        if afterCR {
            afterCR = false
            if bytes[0] == lineFeed { start = 1 }
        }
        // Where the next CR is, searched once per chunk and again only after it is passed:
        // most streams have none, and each byte is then looked at by one `memchr` per byte value.
        var nextCR = -1
        while start < count {
            let lineFeedAt = Self.find(lineFeed, in: base, from: start, count: count)
            if nextCR < start { nextCR = Self.find(carriageReturn, in: base, from: start, count: count) }
            let end = min(lineFeedAt, nextCR)
            guard end < count else {
                try checkSize(line: partialLine.count + count - start)
                partialLine.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<count]))
                return
            }
            // Every line counts against the limit, whatever its field (a comment or an `event`
            // line too), together with the data the event holds so far.
            if partialLine.isEmpty {
                try checkSize(line: end - start)
                try line(UnsafeRawBufferPointer(rebasing: bytes[start..<end]), into: &events)
            } else {
                try checkSize(line: partialLine.count + end - start)
                partialLine.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
                let whole = partialLine
                partialLine.removeAll(keepingCapacity: true)
                let failure: HTTPEncodingError? = whole.withUnsafeBytes { line in
                    do throws(HTTPEncodingError) {
                        try self.line(line, into: &events)
                        return nil
                    } catch {
                        return error
                    }
                }
                if let failure { throw failure }
            }
            start = end + 1
            if end == nextCR {
                if start < count {
                    if bytes[start] == lineFeed { start += 1 }
                } else {
                    afterCR = true
                }
            }
        }
    }

    private static func find(_ byte: UInt8, in base: UnsafeRawPointer, from start: Int, count: Int) -> Int {
        guard let found = memchr(base + start, Int32(byte), count - start) else { return count }
        return UnsafeRawPointer(found) - base
    }

    /// Fails when a line of `line` bytes and the data buffered so far outgrow the limit.
    private func checkSize(line: Int) throws(HTTPEncodingError) {
        let size = line + dataBuffer.count
        guard size > maximumEventSize else { return }
        throw HTTPEncodingError(
            .elementTooLarge, value: "\(size)",
            reason: "a server-sent event outgrew its limit of \(maximumEventSize) bytes (maximumEventSize)")
    }

    /// Processes one line, without its end.
    private mutating func line(
        _ line: UnsafeRawBufferPointer, into events: inout [ServerSentEvent<String>]
    ) throws(HTTPEncodingError) {
        var line = line
        if atStart {
            atStart = false
            if line.count >= 3, line[0] == 0xEF, line[1] == 0xBB, line[2] == 0xBF {
                line = UnsafeRawBufferPointer(rebasing: line[3...])
            }
        }
        guard let first = line.first else {
            dispatch(into: &events)
            return
        }
        if first == colon { return }
        let nameEnd = line.firstIndex(of: colon) ?? line.count
        let name = UnsafeRawBufferPointer(rebasing: line[..<nameEnd])
        var valueStart = min(nameEnd + 1, line.count)
        if valueStart < line.count, line[valueStart] == space { valueStart += 1 }
        let value = UnsafeRawBufferPointer(rebasing: line[valueStart...])
        switch name.count {
        case 4 where name.elementsEqual("data".utf8):
            dataBuffer.append(contentsOf: value)
            dataBuffer.append(lineFeed)  // no larger than the line, checked before
        case 5 where name.elementsEqual("event".utf8):
            eventType = text(value)
        case 2 where name.elementsEqual("id".utf8):
            if !value.contains(0) { idBuffer = text(value) }
        case 5 where name.elementsEqual("retry".utf8):
            if let milliseconds = Self.digits(value) {
                reconnectionTime = .milliseconds(milliseconds)
                eventRetry = reconnectionTime
            }
        default:
            break
        }
    }

    /// The value of an all-digit field, saturating at `Int.max`; `nil` for anything else.
    private static func digits(_ value: UnsafeRawBufferPointer) -> Int? {
        guard !value.isEmpty else { return nil }
        var result = 0
        for byte in value {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            let (times, overflow) = result.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int(byte - 0x30))
            result = overflow || overflow2 ? Int.max : sum
        }
        return result
    }

    /// A blank line: the event in the buffers is dispatched if it has data.
    private mutating func dispatch(into events: inout [ServerSentEvent<String>]) {
        lastEventID = idBuffer
        defer {
            dataBuffer.removeAll(keepingCapacity: true)
            eventType = ""
            eventRetry = nil
        }
        guard !dataBuffer.isEmpty else { return }
        let data = dataBuffer.withUnsafeBytes { text(UnsafeRawBufferPointer(rebasing: $0.dropLast())) }
        events.append(
            ServerSentEvent(
                type: eventType.isEmpty ? "message" : eventType, data: data, id: lastEventID, retry: eventRetry))
    }
}

/// Bytes as UTF-8 text, each ill-formed sequence replaced by U+FFFD.
func text(_ bytes: UnsafeRawBufferPointer) -> String {
    String(decoding: bytes.assumingMemoryBound(to: UInt8.self), as: UTF8.self)
}

private let lineFeed: UInt8 = 0x0A
private let carriageReturn: UInt8 = 0x0D
private let colon: UInt8 = 0x3A
private let space: UInt8 = 0x20
