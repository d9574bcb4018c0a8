extension URITemplate {
    /// A set of ASCII bytes as two 64-bit masks, tested with a shift and no memory load.
    /// Bytes from 0x80 up (the UTF-8 of non-ASCII characters) are never members.
    struct ByteSet: Sendable {
        /// Members 0x00-0x3F: bit n is byte n.
        let low: UInt64
        /// Members 0x40-0x7F: bit n is byte 0x40 + n.
        let high: UInt64

        /// RFC 3986 `unreserved` (RFC 6570 §1.5): `ALPHA / DIGIT / "-" / "." / "_" / "~"`,
        /// the characters every operator copies as they are (the "U" of Appendix A).
        static let unreserved = ByteSet(low: 0x03FF_6000_0000_0000, high: 0x47FF_FFFE_87FF_FFFE)

        /// `unreserved` and RFC 3986 `reserved` (`:/?#[]@!$&'()*+,;=`), what the `+` and `#`
        /// operators copy (the "U+R" of Appendix A) and the ASCII characters a literal may
        /// hold (RFC 6570 §2.1).
        static let unreservedAndReserved = ByteSet(low: 0xAFFF_FFDA_0000_0000, high: 0x47FF_FFFE_AFFF_FFFF)

        /// Makes a set from its masks; the sets above are written as constants so that
        /// using them costs no lazy initialization (a test checks them against
        /// ``init(_:)``).
        init(low: UInt64, high: UInt64) {
            self.low = low
            self.high = high
        }

        /// Makes a set of the ASCII characters of `members`.
        init(_ members: String) {
            var low: UInt64 = 0
            var high: UInt64 = 0
            for byte in members.utf8 where byte < 0x80 {
                if byte < 64 { low |= 1 << UInt64(byte) } else { high |= 1 << UInt64(byte - 64) }
            }
            self.init(low: low, high: high)
        }

        /// Whether `byte` is in the set.
        @inline(__always)
        func contains(_ byte: UInt8) -> Bool {
            if byte < 64 { return low & (1 &<< UInt64(byte)) != 0 }
            if byte < 128 { return high & (1 &<< UInt64(byte &- 64)) != 0 }
            return false
        }
    }

    /// Byte-level helpers of percent-encoding (RFC 3986 §2.1, RFC 6570 §1.6).
    enum PercentEncoding {
        /// The uppercase hexadecimal digit of `nibble` (0-15), as RFC 3986 §2.1 recommends.
        @inline(__always)
        static func hexDigit(_ nibble: UInt8) -> UInt8 {
            nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "A") &+ (nibble &- 10)
        }

        /// Whether `byte` is an ASCII hexadecimal digit, either case.
        @inline(__always)
        static func isHexDigit(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
                UInt8(ascii: "A")...UInt8(ascii: "F"):
                return true
            default:
                return false
            }
        }

        /// The byte length of the first `scalars` Unicode scalars of valid UTF-8 `bytes`
        /// (all of them if there are fewer): the prefix modifier counts characters, not
        /// octets (RFC 6570 §2.4.1), so a multi-byte character is never split.
        @inline(__always)
        static func prefixEnd(_ bytes: UnsafeBufferPointer<UInt8>, scalars: Int) -> Int {
            var count = 0
            for index in bytes.indices where bytes[index] & 0xC0 != 0x80 {
                // A byte that is not a continuation byte (10xxxxxx) starts a scalar.
                if count == scalars { return index }
                count += 1
            }
            return bytes.count
        }
    }
}
