import HTTPCore

/// Media type parsing (RFC 9110 §8.3.1): any text either fails with a typed error or parses
/// to a value whose printed form parses back to the same value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMediaType(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let parsed = try? MediaType(parsing: text) else { return 0 }
    guard let again = try? MediaType(parsing: parsed.description), again == parsed else {
        fatalError("\(parsed.description) does not parse back to the same media type (from \(text.debugDescription))")
    }
    return 0
}
