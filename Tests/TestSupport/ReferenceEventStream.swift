import Foundation

/// A second, deliberately plain reading of the WHATWG "Server-sent events" parsing rules:
/// the whole stream decoded as UTF-8 first, then cut into lines, one character at a time.
/// The tests check Heron's incremental parser, and the peers, against it on streams cut at
/// random.
public enum ReferenceEventStream {
    /// An event as the standard dispatches it: type, data and last event ID.
    public struct Event: Codable, Hashable, Sendable, CustomStringConvertible {
        /// The event type.
        public var type: String
        /// The data.
        public var data: String
        /// The last event ID.
        public var id: String

        /// Creates an event.
        public init(type: String, data: String, id: String) {
            self.type = type
            self.data = data
            self.id = id
        }

        /// `type #id: data`.
        public var description: String { "\(type) #\(id): \(data.debugDescription)" }
    }

    /// Ways a client is known to read a stream otherwise than the standard, to explain a
    /// peer's differences.
    public struct Deviations: OptionSet, Hashable, Sendable, CustomStringConvertible {
        /// The bits.
        public let rawValue: Int
        /// Deviations from their bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// A line without a colon (`data`, `id`) is ignored, where the standard reads it as
        /// the field with an empty value.
        public static let ignoresLinesWithoutColon = Deviations(rawValue: 1)
        /// An `id` holding NUL is taken, where the standard ignores it.
        public static let takesIDWithNUL = Deviations(rawValue: 2)
        /// A leading byte order mark is kept (and spoils the first field name), where the
        /// standard drops it.
        public static let keepsByteOrderMark = Deviations(rawValue: 4)
        /// A blank line dispatches an event without data when an event type, a last event
        /// ID or a retry is set, where the standard dispatches only events with data.
        public static let dispatchesWithoutData = Deviations(rawValue: 8)

        /// The deviations in words.
        public var description: String {
            var names: [String] = []
            if contains(.ignoresLinesWithoutColon) { names.append("ignores lines without a colon") }
            if contains(.takesIDWithNUL) { names.append("takes an id holding NUL") }
            if contains(.keepsByteOrderMark) { names.append("keeps a byte order mark split across chunks or always") }
            if contains(.dispatchesWithoutData) { names.append("dispatches events without data") }
            return names.joined(separator: ", ")
        }
    }

    /// The events the standard dispatches for `bytes`, the whole stream, or those a client
    /// with `deviations` dispatches.
    public static func events(of bytes: [UInt8], deviations: Deviations = []) -> [Event] {
        var text = String(decoding: bytes, as: UTF8.self)
        if text.unicodeScalars.first == "\u{FEFF}", !deviations.contains(.keepsByteOrderMark) {
            text.unicodeScalars.removeFirst()
        }
        var lines: [String] = []
        var current = ""
        var scalars = text.unicodeScalars.makeIterator()
        var pendingCR = false
        while let scalar = scalars.next() {
            if pendingCR {
                pendingCR = false
                if scalar == "\n" { continue }
            }
            if scalar == "\r" || scalar == "\n" {
                lines.append(current)
                current = ""
                pendingCR = scalar == "\r"
            } else {
                current.unicodeScalars.append(scalar)
            }
        }
        // `current` is an unfinished line: never processed.
        var events: [Event] = []
        var data = ""
        var type = ""
        var idBuffer = ""
        var retrySet = false
        for line in lines {
            if line.isEmpty {
                if !data.isEmpty {
                    data.removeLast()
                    events.append(Event(type: type.isEmpty ? "message" : type, data: data, id: idBuffer))
                } else if deviations.contains(.dispatchesWithoutData), !type.isEmpty || !idBuffer.isEmpty || retrySet {
                    events.append(Event(type: type.isEmpty ? "message" : type, data: "", id: idBuffer))
                }
                data = ""
                type = ""
                retrySet = false
                continue
            }
            if line.hasPrefix(":") { continue }
            if deviations.contains(.ignoresLinesWithoutColon), !line.contains(":") { continue }
            var name = line
            var value = ""
            if let colon = line.firstIndex(of: ":") {
                name = String(line[..<colon])
                value = String(line[line.index(after: colon)...])
                if value.hasPrefix(" ") { value.removeFirst() }
            }
            switch name {
            case "data": data += value + "\n"
            case "event": type = value
            case "id": if !value.contains("\u{0}") || deviations.contains(.takesIDWithNUL) { idBuffer = value }
            case "retry": if Int(value) != nil { retrySet = true }
            default: break
            }
        }
        return events
    }
}

/// A small seeded generator, so every run makes the same streams and cuts.
public struct SplitMix: Sendable {
    var state: UInt64

    /// A generator for `seed`.
    public init(seed: UInt64) { state = (seed &+ 1) &* 0xD1B5_4A32_D192_ED03 }

    /// The next number.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number below `bound`.
    public mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(1, bound))) }
}

extension ReferenceEventStream {
    /// Pieces of hostile event streams: CR alone, CR LF, a BOM, empty data, an id with NUL,
    /// invalid UTF-8, fields without a colon, a long line.
    public static let hostilePieces: [[UInt8]] = [
        Array("data: hello\n".utf8), Array("data\n".utf8), Array("data:\n".utf8), Array("\r".utf8),
        Array("\r\n".utf8), Array("\n".utf8), Array(":comment\n".utf8), Array("event: tick\n".utf8),
        Array("id: 5\n".utf8), Array("id\n".utf8), [0], Array("id: a\u{0}b\r".utf8), Array("retry: 10\n".utf8),
        [0xEF, 0xBB, 0xBF], Array("data: é🎉\r\n".utf8), [0xFF, 0xC3], Array("dat".utf8),
        Array("data: x".utf8) + Array(repeating: 0x79, count: 3000) + [0x0A], Array(" data: s\n".utf8),
        Array("data:  two spaces\n".utf8), Array("field-only".utf8), Array(":".utf8),
    ]

    /// A hostile stream of up to `pieces` pieces, a BOM first one time in four.
    public static func hostileStream(_ random: inout SplitMix, pieces: Int = 30) -> [UInt8] {
        var stream: [UInt8] = random.below(4) == 0 ? [0xEF, 0xBB, 0xBF] : []
        for _ in 0..<random.below(pieces) { stream += hostilePieces[random.below(hostilePieces.count)] }
        return stream
    }

    /// A huge line of 64 to 128 KiB, far longer than a socket read or a parser's buffer:
    /// a `data`, `id` or comment line, or one without a colon, of mixed ASCII and
    /// multi-byte characters (some invalid UTF-8 one time in four), ended by LF, CR or CR LF.
    public static func hugeLine(_ random: inout SplitMix) -> [UInt8] {
        // No `event` line: node-eventsource's script listens to `message` and `tick` events only.
        let openings = ["data: ", "data:", "data: ", "id: ", ": ", "data"]
        var line = Array(openings[random.below(openings.count)].utf8)
        let fillers: [[UInt8]] = [
            Array("abcdefghijklmnopqrstuvwxyz0123456789 ".utf8), Array("é漢🎉".utf8), Array("{\"n\": 1}".utf8),
        ]
        let invalid = random.below(4) == 0
        let length = 64 * 1024 + random.below(64 * 1024)
        while line.count < length {
            line += fillers[random.below(fillers.count)]
            if invalid, random.below(1000) == 0 { line += [0xFF, 0xC3] }
        }
        let ends: [[UInt8]] = [[0x0A], [0x0D], [0x0D, 0x0A]]
        return line + ends[random.below(ends.count)]
    }

    /// Up to `most` sorted cut positions inside `count` bytes.
    public static func cuts(_ random: inout SplitMix, count: Int, most: Int = 8) -> [Int] {
        (0..<random.below(most)).map { _ in random.below(count + 1) }.sorted()
    }
}

extension ReferenceEventStream {
    /// How node-eventsource 2.0.2 reads `chunks`, as observed and read off its source
    /// (`lib/eventsource.js`, its `res.on('data')` handler):
    /// - With `rescans`, as it does: it keeps the unfinished line of a chunk and appends the
    ///   next chunk to it, and for each line it scans that buffer from its start, so a CR
    ///   anywhere before the line marks "drop the next LF" again, and an LF that opens the
    ///   following line is then taken for the second half of a CR LF: a blank line is lost.
    ///   Without, each line is scanned from its own start.
    /// - With `dropsEveryLeadingBOM`, as it does: a BOM opening a chunk that arrives while its
    ///   buffer is empty (the first chunk, or any after one that ended with a whole line) is
    ///   dropped. Without, only one opening the first chunk.
    ///
    /// Besides, a line needs a colon to count, and an `id` is taken even with NUL.
    public static func nodeEventSourceEvents(
        of chunks: [[UInt8]], rescans: Bool = true, dropsEveryLeadingBOM: Bool = true
    ) -> [Event] {
        var events: [Event] = []
        var data = ""
        var type = ""
        var id = ""
        var buffer: [UInt8] = []
        var dropLineFeed = false
        var first = true
        for chunk in chunks where !chunk.isEmpty {
            let empty = buffer.isEmpty
            buffer += chunk
            if empty, first || dropsEveryLeadingBOM, buffer.starts(with: [0xEF, 0xBB, 0xBF]) {
                buffer.removeFirst(3)
            }
            first = false
            var position = 0
            while position < buffer.count {
                if dropLineFeed {
                    dropLineFeed = false
                    if buffer[position] == 0x0A { position += 1 }
                }
                // Even when that LF ended the buffer, the scan below runs (over nothing but the
                // lines before, with `rescans`), as node-eventsource's loop does.
                // Every CR before the end of this line, from the buffer's start, marks the flag.
                let scanned = rescans ? 0 : position
                guard let end = buffer[position...].firstIndex(where: { $0 == 0x0A || $0 == 0x0D }) else {
                    if buffer[scanned..<position].contains(0x0D) { dropLineFeed = true }
                    break
                }
                if buffer[scanned...end].contains(0x0D) { dropLineFeed = true }
                let line = Array(buffer[position..<end])
                position = end + 1
                if line.isEmpty {
                    if !data.isEmpty {
                        events.append(
                            Event(type: type.isEmpty ? "message" : type, data: String(data.dropLast()), id: id))
                        data = ""
                    }
                    type = ""
                    continue
                }
                guard let colon = line.firstIndex(of: 0x3A), colon > 0 else { continue }
                let name = String(decoding: line[..<colon], as: UTF8.self)
                var valueStart = colon + 1
                if valueStart < line.count, line[valueStart] == 0x20 { valueStart += 1 }
                let value = String(decoding: line[valueStart...], as: UTF8.self)
                switch name {
                case "data": data += value + "\n"
                case "event": type = value
                case "id": id = value
                default: break
                }
            }
            buffer = position >= buffer.count ? [] : Array(buffer[position...])
        }
        return events
    }
}
