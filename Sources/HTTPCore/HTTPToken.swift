/// RFC 9110 §5.6.2 token rules shared by field names, methods and media types.
package enum HTTPToken {
    /// Whether `byte` is a `tchar`: `!#$%&'*+-.^_`|~`, a digit or a letter.
    @inline(__always)
    package static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// Returns `nil` when `string` is a non-empty token, otherwise the reason it is not.
    static func problem(in string: String) -> String? {
        if string.isEmpty { return "is empty" }
        // The common case, a valid token, in one pass over contiguous bytes.
        let valid =
            string.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(isTokenByte) }
            ?? string.utf8.allSatisfy(isTokenByte)
        if valid { return nil }
        for (offset, byte) in string.utf8.enumerated() where !isTokenByte(byte) {
            return "byte \(hex(byte)) at offset \(offset) is not a token character"
                + " (RFC 9110 §5.6.2)"
        }
        return nil
    }

    /// `text` as a quoted-string (RFC 9110 §5.6.4): in `"`, each `"` and `\` escaped. Escaped
    /// per scalar, not per Character: a quote followed by a combining mark is one Character but
    /// must still be escaped.
    package static func quotedString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            if scalar == "\"" || scalar == "\\" { out += "\\" }
            out.unicodeScalars.append(scalar)
        }
        return out + "\""
    }

    /// `byte` as two uppercase hex digits, such as `0x0D`.
    static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return byte < 0x10 ? "0x0\(digits)" : "0x\(digits)"
    }

    /// ASCII-lowercases `string` without touching non-ASCII bytes.
    static func lowercased(_ string: String) -> String {
        let utf8 = string.utf8
        guard utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else { return string }
        // Written in place: no intermediate array of bytes.
        return String(unsafeUninitializedCapacity: utf8.count) { buffer in
            var count = 0
            for byte in utf8 {
                buffer[count] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
                count += 1
            }
            return count
        }
    }
}
