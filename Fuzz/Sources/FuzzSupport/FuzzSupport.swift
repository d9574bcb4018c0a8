import Dispatch
import Foundation
import HTTPCore

/// Runs `body` to its end from a fuzz target's synchronous entry point.
public func runBlocking(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
        await body()
        done.signal()
    }
    done.wait()
}

/// The `Name: value` lines of `text` that make valid fields; the others are skipped.
public func fields(fromLines text: Substring) -> HTTPFields {
    var fields = HTTPFields()
    for line in text.split(separator: "\n") {
        guard let colon = line.firstIndex(of: ":"),
            let field = try? HTTPField(name: String(line[..<colon]), value: String(line[line.index(after: colon)...]))
        else { continue }
        fields.append(field)
    }
    return fields
}

/// The input as text cut in two at its first blank line (the second part empty when none).
public func halves(_ data: UnsafePointer<UInt8>, _ size: Int) -> (Substring, Substring) {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let cut = text.range(of: "\n\n") else { return (Substring(text), "") }
    return (text[..<cut.lowerBound], text[cut.upperBound...])
}
