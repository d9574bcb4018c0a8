import Foundation
import HTTPCore

/// The error thrown by HTTPEncoding when a value cannot be encoded or decoded.
///
/// Every error names where it happened (``keyPath``, such as `user[tags][0]`) and the
/// offending value, so the message says what to fix:
///
/// ```swift
/// do {
///     _ = try FormEncoder().encodeQuery(parameters: ["ratio": Double.nan])
/// } catch {
///     print(error)  // unsupportedValue at ratio: "nan": a form cannot carry a non-finite number
/// }
/// ```
public struct HTTPEncodingError: Error, CustomStringConvertible {
    /// What went wrong. New codes may be added; switch with a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The stable identifier of the code, such as `"unsupportedValue"`.
        public let rawValue: String

        /// Creates a code from its identifier.
        /// - Parameter rawValue: The stable identifier.
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// A value the format cannot carry: a non-finite number, a type an untyped
        /// parameter dictionary may not hold, or a shape such as a bare top-level scalar.
        public static let unsupportedValue = Code("unsupportedValue")
        /// A custom key, date or data strategy closure threw; see ``HTTPEncodingError/underlying``.
        public static let strategyFailed = Code("strategyFailed")
        /// A value's own `encode(to:)` or `init(from:)` threw an error of its own; see
        /// ``HTTPEncodingError/underlying``.
        public static let valueCodingFailed = Code("valueCodingFailed")
        /// A key that a decoder would read as key syntax rather than as text, so the form
        /// would carry another structure than the value: a key holding `[` or `]`, holding
        /// `.` with ``FormStyle/Nesting-swift.struct/dots`` nesting, or empty. Escaping cannot
        /// help (servers percent-decode a name before splitting it); rename the key.
        public static let ambiguousKey = Code("ambiguousKey")
        /// Decoding asked for a key the input does not have.
        public static let keyNotFound = Code("keyNotFound")
        /// Decoding found a value of another shape or type than the one asked for.
        public static let typeMismatch = Code("typeMismatch")
        /// Decoding found no value (or a null one) where a non-optional value was asked for.
        public static let valueNotFound = Code("valueNotFound")
        /// Input that is not well-formed: bad percent-encoding, invalid UTF-8, unbalanced
        /// brackets, or a key used both as a scalar and as a container.
        public static let malformedInput = Code("malformedInput")
        /// `JSONEncoder` or `JSONSerialization` refused the value; see ``HTTPEncodingError/underlying``.
        public static let jsonEncodingFailed = Code("jsonEncodingFailed")
        /// `JSONDecoder` could not decode the response; see ``HTTPEncodingError/underlying``.
        public static let jsonDecodingFailed = Code("jsonDecodingFailed")
        /// A response whose `Content-Type` the decoder does not accept.
        public static let unexpectedContentType = Code("unexpectedContentType")
        /// A URL that cannot take a query (for example one `URLComponents` cannot parse).
        public static let invalidURL = Code("invalidURL")
        /// An event, line or record of a streamed format outgrew the maximum size its
        /// reader allows; the value is the size reached.
        public static let elementTooLarge = Code("elementTooLarge")
        /// A record of a JSON text sequence that may have been cut short (RFC 7464 §2.3,
        /// §2.4), dropped by the reader.
        public static let truncatedRecord = Code("truncatedRecord")

        /// The identifier, for messages.
        public var description: String { rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// Where it went wrong: the keys and array indices from the top-level value down,
    /// empty for the top level itself.
    public let keyPath: [String]
    /// The offending value as text (bounded to 200 characters), or empty when there is none.
    ///
    /// No secret is kept here: a value at a key path through a secret-named key (`password`,
    /// `access_token`, `URLRedaction.hiddenQueryNames`) is `***`, and the body a
    /// JSON response failed to decode from is kept with its secret-named members hidden.
    public let value: String
    /// A human-readable explanation of what is wrong.
    public let reason: String
    /// The error that caused this one, such as a custom strategy's error or a `JSONEncoder` error.
    public let underlying: (any Error)?

    /// Creates an error.
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - keyPath: The keys and indices leading to the offending value.
    ///   - value: The offending value as text; `***` when a component of `keyPath` is a
    ///     secret name (`URLRedaction.hiddenQueryNames`).
    ///   - reason: What is wrong with it.
    ///   - underlying: The error that caused this one, if any.
    public init(
        _ code: Code, keyPath: [String] = [], value: String = "", reason: String, underlying: (any Error)? = nil
    ) {
        self.code = code
        self.keyPath = keyPath
        if !value.isEmpty, Self.crossesSecret(keyPath) {
            self.value = "***"
        } else {
            self.value = value.count > 200 ? String(value.prefix(200)) + "…" : value
        }
        self.reason = reason
        self.underlying = underlying
    }

    /// The key path in bracket notation, such as `user[tags][0]`; `(top level)` when empty.
    public var keyPathDescription: String {
        guard let first = keyPath.first else { return "(top level)" }
        var out = first
        for component in keyPath.dropFirst() { out += "[\(component)]" }
        return out
    }

    /// A one-line message naming the code, the key path, the value and the reason.
    public var description: String {
        var out = "\(code) at \(keyPathDescription)"
        if !value.isEmpty { out += ": \"\(value)\"" }
        out += ": \(reason)"
        if let underlying { out += " (\(underlying))" }
        return out
    }

    /// Whether a key of `keyPath` names a secret, whose value is never repeated in an error
    /// (a form's `password=…`, a JSON `access_token`), as a body's are hidden in descriptions.
    private static func crossesSecret(_ keyPath: [String]) -> Bool {
        guard !keyPath.isEmpty else { return false }
        let hidden = URLRedaction.hiddenQueryNames
        return keyPath.contains { hidden.contains($0.lowercased()) }
    }

    /// A copy whose key path is `prefix` followed by this error's path.
    func prefixed(by prefix: [String]) -> HTTPEncodingError {
        HTTPEncodingError(code, keyPath: prefix + keyPath, value: value, reason: reason, underlying: underlying)
    }
}
