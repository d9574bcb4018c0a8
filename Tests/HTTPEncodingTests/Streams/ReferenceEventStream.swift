import Foundation
import HTTPEncoding

/// A second, deliberately plain reading of the WHATWG "Server-sent events" parsing rules:
/// the whole stream decoded as UTF-8 first, then cut into lines, one character at a time.
/// The tests check the incremental parser against it on streams cut at random.
enum ReferenceEventStream {
    static func events(of bytes: [UInt8]) -> [ServerSentEvent<String>] {
        var text = String(decoding: bytes, as: UTF8.self)
        if text.unicodeScalars.first == "\u{FEFF}" { text.unicodeScalars.removeFirst() }
        var lines: [String] = []
        var current = ""
        var scalars = text.unicodeScalars.makeIterator()
        var pendingCR = false
        var ended = false
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
        ended = true
        _ = ended  // `current` is an unfinished line: never processed
        var events: [ServerSentEvent<String>] = []
        var data = ""
        var type = ""
        var idBuffer = ""
        for line in lines {
            if line.isEmpty {
                if !data.isEmpty {
                    data.removeLast()
                    events.append(ServerSentEvent(type: type.isEmpty ? "message" : type, data: data, id: idBuffer))
                }
                data = ""
                type = ""
                continue
            }
            if line.hasPrefix(":") { continue }
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
            case "id": if !value.contains("\u{0}") { idBuffer = value }
            default: break
            }
        }
        return events
    }
}
