import Foundation

/// The error thrown by HTTPCore when a value does not make a valid HTTP message part.
///
/// Every error names the offending value, so the message says what to fix; its
/// ``description`` joins the code, the quoted value (control characters escaped) and the reason:
///
/// ```swift
/// do {
///     _ = try HTTPField(name: "X-Trace", value: "a\r\nInjected: yes")
/// } catch {  // typed throws: `error` is an HTTPCoreError
///     print(error.code, error.value == "a\r\nInjected: yes")  // invalidFieldValue true
///     print(error.reason)  // value of field X-Trace contains CR (0x0D) at offset 1 (RFC 9110 §5.5)
/// }
/// ```
public struct HTTPCoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of value was rejected. New codes may be added; switch with a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The stable identifier of the code, such as `"invalidFieldName"`.
        public let rawValue: String

        /// Creates a code from its identifier.
        /// - Parameter rawValue: The stable identifier.
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// A header field name that is not an RFC 9110 §5.1 token.
        public static let invalidFieldName = Code("invalidFieldName")
        /// A header field value containing CR, LF, NUL or another control character (RFC 9110 §5.5).
        public static let invalidFieldValue = Code("invalidFieldValue")
        /// A method that is not an RFC 9110 §9.1 token.
        public static let invalidMethod = Code("invalidMethod")
        /// A status code outside 100...599 (RFC 9110 §15).
        public static let invalidStatus = Code("invalidStatus")
        /// A media type that does not parse per RFC 9110 §8.3.1.
        public static let invalidMediaType = Code("invalidMediaType")
        /// A body file that is missing, is not a regular file, or cannot be read.
        public static let unreadableFile = Code("unreadableFile")
        /// A body larger than the limit given to ``HTTPBody/collect(upTo:)``.
        public static let bodyTooLarge = Code("bodyTooLarge")
        /// A single-use body that was already read once.
        public static let bodyAlreadyConsumed = Code("bodyAlreadyConsumed")
        /// A body stream that ended before or went past its declared length.
        public static let bodyLengthMismatch = Code("bodyLengthMismatch")
        /// A body `InputStream` that could not be made, opened or read.
        public static let unreadableStream = Code("unreadableStream")
        /// Text that was to be a URL does not parse as one.
        public static let invalidURL = Code("invalidURL")
        /// A body cannot be read as text in its charset.
        public static let undecodableText = Code("undecodableText")

        /// The identifier, for messages.
        public var description: String { rawValue }
    }

    /// What kind of value was rejected.
    public let code: Code
    /// The offending value, as given (a field name, a method token, a file path, …).
    public let value: String
    /// A human-readable explanation of what is wrong with ``value``.
    public let reason: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: What kind of value was rejected.
    ///   - value: The offending value, as given.
    ///   - reason: What is wrong with it.
    public init(_ code: Code, value: String, reason: String) {
        self.code = code
        self.value = value
        self.reason = reason
    }

    /// A one-line message naming the code, the value and the reason.
    public var description: String {
        "\(code): \(Self.quoted(value)): \(reason)"
    }

    /// Quotes `value` for a message, escaping control characters so they stay visible.
    package static func quoted(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars.prefix(200) {
            switch scalar {
            case "\r": out += "\\r"
            case "\n": out += "\\n"
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += String(format: "\\u{%02X}", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        if value.unicodeScalars.count > 200 { out += "…" }
        return out + "\""
    }
}
