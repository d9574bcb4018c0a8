import HTTPEndpoints

/// URI templates (RFC 6570): the first half of the input is a template, parsed or refused
/// with a typed error; the second half a variable value. A parsed template expands without
/// crashing, and a simple expression (RFC 6570 §3.2.2) never yields a character outside
/// the unreserved set except as a percent-encoded triplet.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzURITemplate(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let half = size / 2
    let template = String(decoding: bytes[..<half], as: UTF8.self)
    let value = String(decoding: bytes[half...], as: UTF8.self)
    if let parsed = try? URITemplate(template) {
        _ = try? parsed.expand(["x": .string(value), "y": .list([value, value]), "z": .associative([(value, value)])])
    }
    let simple = try! URITemplate("{x}")
    let expanded = try! simple.expand(["x": .string(value)])
    let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~%".utf8)
    for byte in expanded.utf8 where !unreserved.contains(byte) {
        fatalError("{x} expanded \(value.debugDescription) to \(expanded.debugDescription)")
    }
    let utf8 = Array(expanded.utf8)
    var position = 0
    while position < utf8.count {
        if utf8[position] == UInt8(ascii: "%") {
            let hex = Set("0123456789ABCDEF".utf8)
            guard position + 2 < utf8.count, hex.contains(utf8[position + 1]), hex.contains(utf8[position + 2]) else {
                fatalError("{x} expanded \(value.debugDescription) to a stray % in \(expanded.debugDescription)")
            }
            position += 3
        } else {
            position += 1
        }
    }
    return 0
}
