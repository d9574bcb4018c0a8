/// The boundary that separates the parts of a multipart body (RFC 2046 §5.1.1).
///
/// A boundary is 1 to 70 characters from RFC 2046's `bchars` (letters, digits and
/// `'()+_,-./:=?` and space), not ending in a space. ``random()`` draws 128 bits from the
/// system's cryptographically secure generator, so no part's content can guess it; a
/// fixed boundary is for tests and reproducible output, and in-memory parts are then
/// checked not to contain its delimiter.
///
/// ```swift
/// let boundary = MultipartBoundary.random()       // Heron-3f9c…(32 hex digits)
/// let fixed = try MultipartBoundary("test-boundary")
/// var form = MultipartForm(boundary: fixed)
/// ```
public struct MultipartBoundary: Hashable, Sendable, CustomStringConvertible {
    /// The boundary text, without the leading `--` of a delimiter line.
    public let value: String
    /// Whether the boundary was drawn at random (and is therefore not checked against
    /// in-memory part content).
    public let isRandom: Bool

    /// Creates a fixed boundary.
    /// - Parameter value: 1 to 70 `bchars`, not ending in a space (RFC 2046 §5.1.1).
    /// - Throws: ``MultipartError`` with code ``MultipartError/Code/invalidBoundary`` naming `value`.
    public init(_ value: String) throws(MultipartError) {
        let count = value.utf8.count
        guard (1...70).contains(count) else {
            throw MultipartError(
                .invalidBoundary, value: value,
                reason: "a boundary has 1 to 70 characters (RFC 2046 §5.1.1), this one has \(count)")
        }
        for (offset, byte) in value.utf8.enumerated() where !Self.isBoundaryCharacter(byte) {
            throw MultipartError(
                .invalidBoundary, value: value,
                reason: "byte 0x\(String(byte, radix: 16, uppercase: true)) at offset \(offset) is not one of "
                    + "RFC 2046 §5.1.1's bchars (letters, digits, space and '()+_,-./:=?)")
        }
        guard value.utf8.last != UInt8(ascii: " ") else {
            throw MultipartError(
                .invalidBoundary, value: value, reason: "a boundary may not end in a space (RFC 2046 §5.1.1)")
        }
        self.value = value
        self.isRandom = false
    }

    private init(random value: String) {
        self.value = value
        self.isRandom = true
    }

    /// A boundary holding 128 random bits from `SystemRandomNumberGenerator`, the
    /// operating system's cryptographically secure generator.
    /// - Returns: `Heron-` followed by 32 lowercase hexadecimal digits.
    public static func random() -> MultipartBoundary {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// A boundary holding 128 bits drawn from `generator`.
    ///
    /// Pass a seeded generator for reproducible tests; in production use ``random()``,
    /// whose generator is cryptographically secure.
    /// - Parameter generator: The source of the random bits.
    /// - Returns: `Heron-` followed by 32 lowercase hexadecimal digits.
    public static func random(using generator: inout some RandomNumberGenerator) -> MultipartBoundary {
        let high = generator.next()
        let low = generator.next()
        return MultipartBoundary(random: "Heron-" + hex(high) + hex(low))
    }

    /// The boundary text.
    public var description: String { value }

    private static func hex(_ word: UInt64) -> String {
        let digits = String(word, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Whether `byte` is an RFC 2046 §5.1.1 `bchars` character.
    static func isBoundaryCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return true
        default:
            return "'()+_,-./:=? ".utf8.contains(byte)
        }
    }
}
