import Foundation

/// The secret key of a HAR recording's fingerprints: what makes the `***~` and four hex digits
/// that stand for a redacted secret value differ from one recording to the next.
///
/// ``HARRecorder`` writes a secret value (a `password` form field, an `access_token` query
/// value, …) as a fingerprint, so that a reader can tell two redacted values of one file
/// apart. Were the fingerprint a hash of the value alone, whoever holds the file could hash
/// password guesses and compare; it is a keyed function of the value instead, and the key is
/// never written to the file. Each recorder makes a random key unless given one, so the same
/// secret gets different fingerprints in two recordings and the same one throughout a
/// recording.
///
/// ``HARReplayTransport`` needs the key only to prefer the entries recorded with the very
/// secret values a request sends (`?token=page-1` and `?token=page-2` in any order); without
/// it, requests match by their redacted form, in recorded order. Keep the key where you keep
/// secrets, never beside the file:
///
/// ```swift
/// let key = HARFingerprintKey.random()  // key.base64 is kept as a secret, never in the file
/// let recorder = HARRecorder(wrapping: StubTransport(fallback: .status(.ok)), fingerprintKey: key)
/// _ = try await Client(transport: recorder).send(.get("https://api.example/items?token=page-2"))
/// let har = try recorder.harData()
/// let replay = try HARReplayTransport(data: har, fingerprintKey: key)
/// let response = try await Client(transport: replay).send(.get("https://api.example/items?token=page-2"))
/// print(response.status, String(decoding: har, as: UTF8.self).contains("page-2"))  // 200 OK false
/// ```
public struct HARFingerprintKey: Sendable, Hashable, CustomStringConvertible {
    /// The key's two 64-bit halves (SipHash's `k0` and `k1`, little-endian).
    private let k0: UInt64
    private let k1: UInt64

    private init(k0: UInt64, k1: UInt64) {
        self.k0 = k0
        self.k1 = k1
    }

    /// A new key of 128 random bits from the system's secure random source.
    /// - Returns: The key.
    public static func random() -> HARFingerprintKey {
        var generator = SystemRandomNumberGenerator()
        return HARFingerprintKey(k0: generator.next(), k1: generator.next())
    }

    /// Reads a key written as ``base64``: 16 bytes in base64.
    /// - Parameter base64: The key's text.
    /// - Returns: `nil` when the text is not base64 of exactly 16 bytes.
    public init?(base64: String) {
        guard let bytes = Data(base64Encoded: base64), bytes.count == 16 else { return nil }
        let words = Array(bytes)
        self.init(k0: Self.word(words, at: 0), k1: Self.word(words, at: 8))
    }

    /// The key's 16 bytes in base64, to keep as a secret (never beside the HAR file).
    public var base64: String {
        var bytes: [UInt8] = []
        for word in [k0, k1] { bytes += (0..<8).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) } }
        return Data(bytes).base64EncodedString()
    }

    /// Names the type only: the key never appears in a description, a log or a test report.
    public var description: String { "HARFingerprintKey(***)" }

    /// `text` with each fingerprint of a secret value (`***~` and four hex digits of a stable
    /// hash of the value, as `URLRedaction` writes them) replaced by its keyed form: the four
    /// hex digits put through a permutation of the 65,536 possible ones chosen by this key.
    /// Equal values keep equal fingerprints and different ones stay as different as before
    /// (1 in 65,536 alike); without the key, a fingerprint tells nothing of the value.
    func keyed(_ text: String) -> String {
        let marker = Array("***~".utf8)
        var bytes = Array(text.utf8)
        guard bytes.count >= marker.count + 4 else { return text }
        var index = 0
        var changed = false
        while index + marker.count + 4 <= bytes.count {
            guard bytes[index..<(index + marker.count)].elementsEqual(marker) else {
                index += 1
                continue
            }
            let digits = index + marker.count
            let end = digits + 4
            // Exactly four hex digits: a longer run (a 128-bit digest) is not a fingerprint.
            if let value = Self.hexValue(bytes[digits..<end]), end == bytes.count || Self.hexValue(bytes[end]) == nil {
                let hex = Array(Self.hex4(permuted(value)).utf8)
                bytes.replaceSubrange(digits..<end, with: hex)
                changed = true
                index = end
            } else {
                index = digits
            }
        }
        return changed ? String(decoding: bytes, as: UTF8.self) : text
    }

    /// A keyed permutation of 16-bit values: four Feistel rounds on its two bytes, each
    /// round's function a SipHash-2-4 of the round and the byte under this key.
    func permuted(_ value: UInt16) -> UInt16 {
        var left = UInt8(truncatingIfNeeded: value >> 8)
        var right = UInt8(truncatingIfNeeded: value)
        for round in UInt8(0)..<4 {
            let mixed = left ^ UInt8(truncatingIfNeeded: sipHash([round, right]))
            left = right
            right = mixed
        }
        return UInt16(left) << 8 | UInt16(right)
    }

    /// SipHash-2-4 of `message` under this key (Aumasson and Bernstein, 2012): a keyed
    /// function that cannot be computed, nor its outputs linked to its inputs, without the key.
    func sipHash(_ message: [UInt8]) -> UInt64 {
        var v0 = k0 ^ 0x736f_6d65_7073_6575
        var v1 = k1 ^ 0x646f_7261_6e64_6f6d
        var v2 = k0 ^ 0x6c79_6765_6e65_7261
        var v3 = k1 ^ 0x7465_6462_7974_6573
        func round() {
            v0 &+= v1
            v1 = v1.rotatedLeft(13) ^ v0
            v0 = v0.rotatedLeft(32)
            v2 &+= v3
            v3 = v3.rotatedLeft(16) ^ v2
            v0 &+= v3
            v3 = v3.rotatedLeft(21) ^ v0
            v2 &+= v1
            v1 = v1.rotatedLeft(17) ^ v2
            v2 = v2.rotatedLeft(32)
        }
        func absorb(_ word: UInt64) {
            v3 ^= word
            round()
            round()
            v0 ^= word
        }
        let whole = message.count / 8 * 8
        for start in stride(from: 0, to: whole, by: 8) { absorb(Self.word(message, at: start)) }
        var last = UInt64(truncatingIfNeeded: message.count) << 56
        for (shift, byte) in message[whole...].enumerated() { last |= UInt64(byte) << (8 * shift) }
        absorb(last)
        v2 ^= 0xff
        for _ in 0..<4 { round() }
        return v0 ^ v1 ^ v2 ^ v3
    }

    /// The little-endian 64-bit word of `bytes` at `start`.
    private static func word(_ bytes: [UInt8], at start: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[start + $1]) << (8 * $1) }
    }

    private static func hexValue(_ byte: UInt8) -> UInt16? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt16(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt16(byte - UInt8(ascii: "a") + 10)
        default: return nil
        }
    }

    private static func hexValue(_ digits: ArraySlice<UInt8>) -> UInt16? {
        var value: UInt16 = 0
        for byte in digits {
            guard let digit = hexValue(byte) else { return nil }
            value = value << 4 | digit
        }
        return value
    }

    private static func hex4(_ value: UInt16) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 4 - text.count) + text
    }
}

extension UInt64 {
    fileprivate func rotatedLeft(_ count: UInt64) -> UInt64 { self << count | self >> (64 - count) }
}
