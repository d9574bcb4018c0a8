import Foundation

/// A media type such as `application/json; charset=utf-8` (RFC 9110 §8.3.1).
///
/// The type, subtype and parameter names are case-insensitive and stored lowercased;
/// parameter values keep their case, except `charset`, which compares
/// case-insensitively (RFC 9110 §8.3.2). Values that are not tokens are printed as
/// quoted strings with `"` and `\` escaped.
///
/// ```swift
/// let type = try MediaType(parsing: #"Text/HTML; Charset="UTF-8""#)
/// print(type)  // text/html; charset=UTF-8
/// print(type.charset ?? "", type == .html)  // UTF-8 true (charset values ignore case)
/// print(type.matches(try MediaType(parsing: "text/*")))  // true
/// ```
public struct MediaType: Hashable, Sendable, CustomStringConvertible {
    /// One `name=value` parameter.
    public struct Parameter: Hashable, Sendable {
        /// The lowercased parameter name.
        public let name: String
        /// The parameter value, unquoted.
        public let value: String
    }

    /// The lowercased top-level type, such as `application`; `*` for a wildcard.
    public let type: String
    /// The lowercased subtype, such as `json`; `*` for a wildcard.
    public let subtype: String
    /// The parameters in the order given.
    public private(set) var parameters: [Parameter]

    /// Creates a media type from its parts.
    /// - Parameters:
    ///   - type: The top-level type, a token (or `*`).
    ///   - subtype: The subtype, a token (or `*`).
    ///   - parameters: Name–value pairs; names must be tokens, values may be any text
    ///     without control characters.
    /// - Throws: ``HTTPCoreError`` with code ``HTTPCoreError/Code/invalidMediaType`` naming the bad part.
    public init(
        type: String, subtype: String, parameters: KeyValuePairs<String, String> = [:]
    )
        throws(HTTPCoreError)
    {
        for part in [type, subtype] {
            if let problem = HTTPToken.problem(in: part) {
                throw HTTPCoreError(.invalidMediaType, value: "\(type)/\(subtype)", reason: "\(part): \(problem)")
            }
        }
        self.type = HTTPToken.lowercased(type)
        self.subtype = HTTPToken.lowercased(subtype)
        self.parameters = []
        for (name, value) in parameters { try setParameter(name, value) }
    }

    private init(known type: String, _ subtype: String, _ parameters: [Parameter] = []) {
        self.type = type
        self.subtype = subtype
        self.parameters = parameters
    }

    /// The most parameters a parsed media type may have; real ones have one or two.
    public static let maximumParameterCount = 64

    /// Parses a `Content-Type`-style value.
    /// - Parameter string: Text such as `multipart/form-data; boundary="a b"`.
    /// - Throws: ``HTTPCoreError`` with code ``HTTPCoreError/Code/invalidMediaType`` saying where
    ///   the text stops being a media type.
    public init(parsing string: String) throws(HTTPCoreError) {
        var parser = MediaTypeParser(string)
        do throws(MediaTypeParser.Failure) {
            self = try parser.parse()
        } catch {
            throw HTTPCoreError(.invalidMediaType, value: string, reason: error.reason)
        }
    }

    /// `type/subtype` without parameters.
    public var essence: String { "\(type)/\(subtype)" }

    /// The value of the parameter named `name` (case-insensitive), if present.
    /// - Parameter name: The parameter name.
    public subscript(parameter name: String) -> String? {
        let lower = HTTPToken.lowercased(name)
        return parameters.first { $0.name == lower }?.value
    }

    /// The `charset` parameter, if present.
    public var charset: String? { self[parameter: "charset"] }

    /// The string encoding named by ``charset``, if it is one Foundation knows
    /// (UTF-8, UTF-16 and its byte orders, UTF-32, US-ASCII, ISO-8859-1, Windows-1252).
    public var stringEncoding: String.Encoding? {
        guard let charset else { return nil }
        switch HTTPToken.lowercased(charset) {
        case "utf-8", "utf8": return .utf8
        case "utf-16": return .utf16
        case "utf-16be": return .utf16BigEndian
        case "utf-16le": return .utf16LittleEndian
        case "utf-32": return .utf32
        case "us-ascii", "ascii": return .ascii
        case "iso-8859-1", "latin1", "iso_8859-1": return .isoLatin1
        case "windows-1252", "cp1252": return .windowsCP1252
        default: return nil
        }
    }

    /// Sets (or replaces) a parameter.
    /// - Parameters:
    ///   - name: A token, compared case-insensitively.
    ///   - value: The value; control characters other than tab are rejected.
    /// - Throws: ``HTTPCoreError`` naming the bad name or value.
    public mutating func setParameter(_ name: String, _ value: String) throws(HTTPCoreError) {
        if let problem = HTTPToken.problem(in: name) {
            throw HTTPCoreError(.invalidMediaType, value: name, reason: "parameter name \(problem)")
        }
        for (offset, byte) in value.utf8.enumerated() where (byte < 0x20 && byte != 0x09) || byte == 0x7F {
            throw HTTPCoreError(
                .invalidMediaType, value: value,
                reason: "parameter \(name) has control character \(HTTPToken.hex(byte)) at offset \(offset)")
        }
        let lower = HTTPToken.lowercased(name)
        let parameter = Parameter(name: lower, value: value)
        if let index = parameters.firstIndex(where: { $0.name == lower }) {
            parameters[index] = parameter
        } else {
            parameters.append(parameter)
        }
    }

    /// Returns a copy with the parameter set.
    /// - Parameters:
    ///   - name: A token.
    ///   - value: The value.
    /// - Returns: The changed media type.
    /// - Throws: ``HTTPCoreError`` naming the bad name or value.
    public func withParameter(_ name: String, _ value: String) throws(HTTPCoreError) -> MediaType {
        var copy = self
        try copy.setParameter(name, value)
        return copy
    }

    /// Whether this type falls within `pattern`, whose type or subtype may be `*`.
    ///
    /// Parameters of `pattern` must all be present here with equal values (charset
    /// compared case-insensitively); parameters not named in `pattern` are ignored.
    /// - Parameter pattern: A type such as `text/*`, `*/*` or `application/json`.
    /// - Returns: `true` when this type is acceptable for `pattern`.
    public func matches(_ pattern: MediaType) -> Bool {
        guard pattern.type == "*" || pattern.type == type else { return false }
        guard pattern.subtype == "*" || pattern.subtype == subtype else { return false }
        return pattern.parameters.allSatisfy { wanted in
            guard let have = self[parameter: wanted.name] else { return false }
            return Self.valueKey(wanted.name, have) == Self.valueKey(wanted.name, wanted.value)
        }
    }

    /// The type printed per RFC 9110 §8.3.1, quoting values that are not tokens.
    public var description: String {
        var out = essence
        for parameter in parameters {
            out += "; \(parameter.name)="
            out +=
                HTTPToken.problem(in: parameter.value) == nil
                ? parameter.value : HTTPToken.quotedString(parameter.value)
        }
        return out
    }

    /// Equal when type, subtype and the set of parameters match (parameter order is not
    /// significant; `charset` values compare case-insensitively).
    public static func == (lhs: MediaType, rhs: MediaType) -> Bool {
        lhs.type == rhs.type && lhs.subtype == rhs.subtype && lhs.parameterKeys == rhs.parameterKeys
    }

    /// Hashes the same parts that ``==(_:_:)`` compares.
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(type)
        hasher.combine(subtype)
        hasher.combine(parameterKeys)
    }

    private var parameterKeys: [String: String] {
        var keys: [String: String] = [:]
        for parameter in parameters { keys[parameter.name] = Self.valueKey(parameter.name, parameter.value) }
        return keys
    }

    private static func valueKey(_ name: String, _ value: String) -> String {
        name == "charset" ? HTTPToken.lowercased(value) : value
    }

    // MARK: Constants

    /// `application/json`.
    public static let json = MediaType(known: "application", "json")
    /// `application/x-www-form-urlencoded`.
    public static let formURLEncoded = MediaType(known: "application", "x-www-form-urlencoded")
    /// `multipart/form-data`, without a boundary; add one with ``withParameter(_:_:)``.
    public static let multipartFormData = MediaType(known: "multipart", "form-data")
    /// `application/octet-stream`: arbitrary binary data.
    public static let octetStream = MediaType(known: "application", "octet-stream")
    /// `text/plain; charset=utf-8`.
    public static let plainText = MediaType(known: "text", "plain", [Parameter(name: "charset", value: "utf-8")])
    /// `text/html; charset=utf-8`.
    public static let html = MediaType(known: "text", "html", [Parameter(name: "charset", value: "utf-8")])
    /// `text/event-stream`: server-sent events (WHATWG HTML, "Server-sent events").
    public static let eventStream = MediaType(known: "text", "event-stream")
    /// `application/jsonl`: JSON Lines, one JSON value per line (also sent as
    /// `application/x-ndjson`).
    public static let jsonLines = MediaType(known: "application", "jsonl")
    /// `application/json-seq`: a JSON text sequence (RFC 7464).
    public static let jsonSequence = MediaType(known: "application", "json-seq")
    /// `application/xml`.
    public static let xml = MediaType(known: "application", "xml")
    /// `*/*`: matches every media type.
    public static let any = MediaType(known: "*", "*")
    /// `application/problem+json`: RFC 9457 problem details.
    public static let problemJSON = MediaType(known: "application", "problem+json")
    /// `text/csv; charset=utf-8`.
    public static let csv = MediaType(known: "text", "csv", [Parameter(name: "charset", value: "utf-8")])
    /// `application/pdf`.
    public static let pdf = MediaType(known: "application", "pdf")
    /// `application/zip`.
    public static let zip = MediaType(known: "application", "zip")
    /// `application/gzip`.
    public static let gzip = MediaType(known: "application", "gzip")
    /// `image/png`.
    public static let png = MediaType(known: "image", "png")
    /// `image/jpeg`.
    public static let jpeg = MediaType(known: "image", "jpeg")
    /// `image/gif`.
    public static let gif = MediaType(known: "image", "gif")
    /// `image/webp`.
    public static let webp = MediaType(known: "image", "webp")
    /// `image/svg+xml`.
    public static let svg = MediaType(known: "image", "svg+xml")
    /// `audio/mpeg` (MP3).
    public static let mp3 = MediaType(known: "audio", "mpeg")
    /// `audio/wav`.
    public static let wav = MediaType(known: "audio", "wav")
    /// `video/mp4`.
    public static let mp4 = MediaType(known: "video", "mp4")
    /// `video/webm`.
    public static let webm = MediaType(known: "video", "webm")
}

/// A small recursive-descent parser for RFC 9110 §8.3.1 media types.
private struct MediaTypeParser {
    struct Failure: Error { let reason: String }

    private let bytes: [UInt8]
    private var index = 0

    init(_ string: String) { bytes = Array(string.utf8) }

    mutating func parse() throws(Failure) -> MediaType {
        skipWhitespace()
        let type = try token(what: "type")
        guard peek() == UInt8(ascii: "/") else { throw fail("expected \"/\" after the type") }
        index += 1
        let subtype = try token(what: "subtype")
        var pairs: [(String, String)] = []
        while true {
            skipWhitespace()
            guard let byte = peek() else { break }
            guard byte == UInt8(ascii: ";") else { throw fail("expected \";\" or the end") }
            index += 1
            skipWhitespace()
            if peek() == nil || peek() == UInt8(ascii: ";") { continue }
            let name = try token(what: "parameter name")
            guard peek() == UInt8(ascii: "=") else { throw fail("expected \"=\" after parameter \(name)") }
            index += 1
            let value = peek() == UInt8(ascii: "\"") ? try quotedString() : try token(what: "parameter value")
            // Each parameter replaces one of the same name, so the cost grows with the square
            // of their number: a hostile field of thousands is refused instead.
            guard pairs.count < MediaType.maximumParameterCount else {
                throw fail("more than \(MediaType.maximumParameterCount) parameters")
            }
            pairs.append((name, value))
        }
        do throws(HTTPCoreError) {
            var result = try MediaType(type: type, subtype: subtype)
            for (name, value) in pairs { try result.setParameter(name, value) }
            return result
        } catch {
            throw Failure(reason: error.reason)
        }
    }

    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x09 { index += 1 }
    }

    private func fail(_ message: String) -> Failure {
        Failure(reason: "\(message) at offset \(index)")
    }

    private mutating func token(what: String) throws(Failure) -> String {
        let start = index
        while let byte = peek(), HTTPToken.isTokenByte(byte) { index += 1 }
        guard index > start else { throw fail("expected a \(what) token") }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func quotedString() throws(Failure) -> String {
        index += 1
        var value: [UInt8] = []
        while let byte = peek() {
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: value, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let escaped = peek(), escaped == 0x09 || escaped >= 0x20, escaped != 0x7F else {
                    throw fail("bad quoted-pair")
                }
                value.append(escaped)
                index += 1
            case 0x09, 0x20...0x7E, 0x80...0xFF:
                value.append(byte)
            default:
                index -= 1
                throw fail("control character in quoted string")
            }
        }
        throw fail("unterminated quoted string")
    }
}
