import HTTPCore

/// The error thrown when a value cannot be converted between HTTPCore and swift-http-types
/// without losing or changing part of it.
///
/// Every conversion in this module either gives an equal value on the other side or throws
/// this error: it never crashes and never quietly alters a field, a URL or a status. The
/// ``code`` says which part failed, ``value`` holds that part (a credential field's value is
/// replaced by its length), and ``reason`` says why.
///
/// ```swift
/// let request = HTTPCore.HTTPRequest(url: URL(string: "https://user:secret@example.com/")!)
/// do {
///     _ = try HTTPTypes.HTTPRequest(request)
/// } catch {
///     print(error.code)  // invalidURL
/// }
/// ```
public struct HTTPTypesConversionError: Error, CustomStringConvertible {
    /// What failed to convert; an extensible set of static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name, such as `"invalidURL"`.
        public let rawValue: String

        /// Creates a code.
        /// - Parameter rawValue: The code's name.
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// A URL the other side cannot express: user information, a fragment, a path that is
        /// not `/…` or `*`, or pseudo-header fields that do not read back as the same URL.
        public static let invalidURL = Code("invalidURL")
        /// A method token the other side refuses.
        public static let invalidMethod = Code("invalidMethod")
        /// A status code outside 100...599, which HTTPCore cannot represent.
        public static let invalidStatus = Code("invalidStatus")
        /// A reason phrase swift-http-types would change (it turns control characters such as
        /// CR and LF into spaces).
        public static let invalidReasonPhrase = Code("invalidReasonPhrase")
        /// A field name the other side refuses, such as a pseudo-header field's `:status`.
        public static let invalidFieldName = Code("invalidFieldName")
        /// A field value the other side refuses or would change: a control character, bytes
        /// that are not UTF-8, or surrounding whitespace.
        public static let invalidFieldValue = Code("invalidFieldValue")
        /// A pseudo-header field HTTPCore has no place for, such as `:protocol` (RFC 8441).
        public static let unsupportedPseudoHeaderField = Code("unsupportedPseudoHeaderField")
        /// An HTTPCore request whose fluent modifier failed: ``HTTPTypesConversionError/underlying``
        /// is its ``HTTPCore/HTTPRequest/pendingError``.
        public static let pendingError = Code("pendingError")

        /// The code's name.
        public var description: String { rawValue }
    }

    /// What failed to convert.
    public let code: Code
    /// The part that failed, such as the URL or the field value; a credential field's value
    /// (`Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`) is shown as its length.
    public let value: String
    /// Why it failed, naming the rule broken.
    public let reason: String
    /// The error the other side threw, such as an ``HTTPCore/HTTPCoreError``, if any.
    public let underlying: (any Error)?

    /// Creates an error.
    /// - Parameters:
    ///   - code: What failed to convert.
    ///   - value: The part that failed.
    ///   - reason: Why it failed.
    ///   - underlying: The error the other side threw, if any.
    public init(_ code: Code, value: String, reason: String, underlying: (any Error)? = nil) {
        self.code = code
        self.value = value
        self.reason = reason
        self.underlying = underlying
    }

    /// The code, the quoted value and the reason, such as
    /// `invalidURL: "https://example.com/#top": a fragment has no pseudo-header field`.
    public var description: String {
        var quoted = String(reflecting: String(value.prefix(200)))
        if value.count > 200 { quoted += "…" }
        return "\(code): \(quoted): \(reason)"
    }

    /// Fields whose values are credentials, shown in an error by length only.
    private static let credentialNames: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie"]

    /// The value to show in an error about the field named `canonicalName`.
    static func shown(_ value: String, ofField canonicalName: String) -> String {
        credentialNames.contains(canonicalName) ? "<redacted \(value.utf8.count) bytes>" : value
    }
}
