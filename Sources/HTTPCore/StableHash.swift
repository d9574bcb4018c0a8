import Foundation

/// A hash that is the same in every process (Swift's `Hasher` is seeded per process):
/// 128-bit FNV-1a, for HTTPCache's file and partition names and the fingerprints of values a
/// HAR file redacts. Not a cryptographic digest.
package enum StableHash {
    /// 32 hex digits for `text`.
    package static func hex(of text: String) -> String {
        let (first, second) = words(of: text)
        return hex16(first) + hex16(second)
    }

    /// The hash's two 64-bit halves.
    private static func words(of text: String) -> (UInt64, UInt64) {
        var first: UInt64 = 0xcbf2_9ce4_8422_2325
        var second: UInt64 = 0x84222325_cbf29ce4
        for byte in text.utf8 {
            first = (first ^ UInt64(byte)) &* 0x100_0000_01b3
            second = (second ^ UInt64(byte)) &* 0x100_0000_01b3 &+ 0x9e37_79b9_7f4a_7c15
        }
        return (first, second)
    }

    /// Four hex digits for `text`, every bit of the 128-bit hash mixed into them (FNV-1a's
    /// high bits barely change with a string's last byte: `page-1` and `page-2` share the
    /// first digits of their hex).
    package static func shortHex(of text: String) -> String {
        let (first, second) = words(of: text)
        var mixed = first ^ second
        // MurmurHash3's 64-bit finalizer.
        mixed ^= mixed >> 33
        mixed = mixed &* 0xff51_afd7_ed55_8ccd
        mixed ^= mixed >> 33
        mixed = mixed &* 0xc4ce_b9fe_1a85_ec53
        mixed ^= mixed >> 33
        return String(hex16(mixed).prefix(4))
    }

    private static func hex16(_ value: UInt64) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }
}
