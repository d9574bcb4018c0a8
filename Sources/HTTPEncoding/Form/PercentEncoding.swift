/// Percent-encoding per RFC 3986 §2.1, leaving bare only the unreserved characters of
/// §2.3 (`A-Z a-z 0-9 - . _ ~`), and the matching decoder of the WHATWG URL Standard's
/// application/x-www-form-urlencoded parser.
enum PercentEncoding {
    /// Whether RFC 3986 §2.3 lets `byte` stand for itself.
    @inline(__always)
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    @inline(__always)
    static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? value + UInt8(ascii: "0") : value + (UInt8(ascii: "A") - 10)
    }

    /// Decodes `bytes` as one name or value of a form: `+` is a space, `%XY` the byte
    /// `0xXY`, and a `%` not followed by two hex digits stays as it is (WHATWG URL
    /// Standard §5.1). Invalid UTF-8 becomes U+FFFD, as the standard's decoder does.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var needsWork = false
        for byte in bytes where byte == UInt8(ascii: "%") || byte == UInt8(ascii: "+") {
            needsWork = true
            break
        }
        guard needsWork else { return String(decoding: bytes, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                out.append(0x20)
            } else if byte == UInt8(ascii: "%"), index + 2 < bytes.count, let high = hexValue(bytes[index + 1]),
                let low = hexValue(bytes[index + 2])
            {
                out.append(high << 4 | low)
                index += 2
            } else {
                out.append(byte)
            }
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}
