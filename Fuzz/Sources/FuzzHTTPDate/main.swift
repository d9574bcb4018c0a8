import Foundation
import HTTPCore

/// HTTP-dates (RFC 9110 §5.6.7) and `Retry-After` (§10.2.3): any text parses or is refused;
/// a formatted date parses back to the same second.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPDate(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let text = String(decoding: bytes, as: UTF8.self)
    let now = Date(timeIntervalSince1970: 1_700_000_000)
    _ = HTTPDate.parse(text, now: now)
    if let retry = RetryAfter(parsing: text, now: now) { _ = retry.delay(from: now) }
    var seconds: UInt64 = 0
    for byte in bytes.prefix(5) { seconds = seconds << 8 | UInt64(byte) }
    // Whole seconds from 1970 to about 2318: every one formats and parses back.
    let date = Date(timeIntervalSince1970: TimeInterval(seconds % 10_999_999_999))
    let formatted = HTTPDate.format(date)
    guard HTTPDate.parse(formatted, now: now) == date else {
        fatalError("\(formatted) does not parse back to \(date.timeIntervalSince1970)")
    }
    return 0
}
