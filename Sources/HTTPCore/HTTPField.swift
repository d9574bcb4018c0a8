/// One header field: a name and a validated value (RFC 9110 §5).
///
/// The value may not contain CR, LF, NUL or any other control character but horizontal
/// tab (RFC 9110 §5.5), so a field can never end the header section early or add a
/// field of its own. Leading and trailing spaces and tabs are trimmed, as RFC 9110 §5.5
/// excludes them from the value.
///
/// ```swift
/// let field = try HTTPField(name: .accept, value: "application/json")
/// print(field)  // Accept: application/json
/// ```
public struct HTTPField: Hashable, Sendable, CustomStringConvertible {
    /// The field name.
    public let name: HTTPFieldName
    /// The field value, trimmed of surrounding whitespace.
    public let value: String

    /// Creates a field from a name and a value.
    /// - Parameters:
    ///   - name: The field name.
    ///   - value: The value; surrounding spaces and tabs are trimmed.
    /// - Throws: ``HTTPCoreError`` with code ``HTTPCoreError/Code/invalidFieldValue`` when the
    ///   value holds CR, LF, NUL, DEL or another control character other than tab. The error's
    ///   value is the rejected value, except for `Authorization`, `Proxy-Authorization`,
    ///   `Cookie` and `Set-Cookie`, whose values are credentials and are replaced by
    ///   `<redacted N bytes>`; the reason still names the field, the character and its offset.
    public init(name: HTTPFieldName, value: String) throws(HTTPCoreError) {
        self.name = name
        self.value = try Self.validatedValue(value, for: name)
    }

    /// Creates a field from a name string and a value.
    /// - Parameters:
    ///   - name: The field name; must be an RFC 9110 token.
    ///   - value: The value; surrounding spaces and tabs are trimmed.
    /// - Throws: ``HTTPCoreError`` naming the bad name or value.
    public init(name: String, value: String) throws(HTTPCoreError) {
        try self.init(name: HTTPFieldName(name), value: value)
    }

    /// Creates a field from a name and a value that cannot be refused: each character a
    /// field value may not hold becomes a space, then surrounding spaces are trimmed.
    ///
    /// RFC 9110 §5.5 lets a recipient replace CR, LF and NUL with SP; the other control
    /// characters ``init(name:value:)`` refuses (all but tab, and DEL) are replaced alike.
    init(name: HTTPFieldName, replacingInvalidCharactersIn value: String) {
        self.name = name
        let bytes = value.utf8
        if bytes.contains(where: Self.isForbiddenInValue) {
            // Every forbidden byte is ASCII, never part of a multi-byte scalar: the result is
            // still valid UTF-8.
            let replaced = bytes.map { Self.isForbiddenInValue($0) ? UInt8(ascii: " ") : $0 }
            self.value = Self.trimmed(String(decoding: replaced, as: UTF8.self))
        } else {
            self.value = Self.trimmed(value)
        }
    }

    /// Renders the field as `Name: value`.
    public var description: String { "\(name.rawName): \(value)" }

    /// Fields whose values are credentials: an error about them names the field and the
    /// offset, never the value, so a token does not end up in a log.
    private static let credentialFields: Set<HTTPFieldName> = [
        .authorization, .proxyAuthorization, .cookie, .setCookie,
    ]

    /// Whether `byte` may not appear in a field value: a control character other than HTAB,
    /// or DEL (RFC 9110 §5.5).
    @inline(__always)
    static func isForbiddenInValue(_ byte: UInt8) -> Bool { (byte < 0x20 && byte != 0x09) || byte == 0x7F }

    /// Checks and trims a field value.
    static func validatedValue(_ value: String, for name: HTTPFieldName) throws(HTTPCoreError) -> String {
        let bytes = value.utf8
        // The common case, a clean value, in one pass over contiguous bytes.
        let clean =
            bytes.withContiguousStorageIfAvailable { !$0.contains(where: isForbiddenInValue) }
            ?? !bytes.contains(where: isForbiddenInValue)
        if !clean {
            for (offset, byte) in bytes.enumerated() where isForbiddenInValue(byte) {
                let what: String
                switch byte {
                case 0x0D: what = "CR (0x0D)"
                case 0x0A: what = "LF (0x0A)"
                case 0x00: what = "NUL (0x00)"
                default: what = "control character \(HTTPToken.hex(byte))"
                }
                throw HTTPCoreError(
                    .invalidFieldValue,
                    value: credentialFields.contains(name) ? "<redacted \(bytes.count) bytes>" : value,
                    reason: "value of field \(name.rawName) contains \(what) at offset \(offset) (RFC 9110 §5.5)")
            }
        }
        return trimmed(value)
    }

    /// `value` without leading and trailing spaces and tabs (RFC 9110 §5.5).
    static func trimmed(_ value: String) -> String {
        let bytes = value.utf8
        guard let first = bytes.first, let last = bytes.last else { return value }
        if first == 0x20 || first == 0x09 || last == 0x20 || last == 0x09 {
            // By bytes, as RFC 9110 §5.6.3 defines OWS: a space before a combining mark is
            // one Character with it, so trimming Characters would keep it.
            var start = bytes.startIndex
            var end = bytes.endIndex
            while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start = bytes.index(after: start) }
            while end > start {
                let before = bytes.index(before: end)
                guard bytes[before] == 0x20 || bytes[before] == 0x09 else { break }
                end = before
            }
            return String(value.utf8[start..<end])!
        }
        return value
    }
}
