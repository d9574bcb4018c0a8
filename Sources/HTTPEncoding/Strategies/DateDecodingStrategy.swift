import Foundation

/// How text is read back into a `Date`: the inverse of ``DateEncodingStrategy``.
///
/// ```swift
/// try DateDecodingStrategy.iso8601.decode("2023-11-14T22:13:20Z")  // 1700000000 since 1970
/// try DateDecodingStrategy.secondsSince1970.decode("1700000000.5")
/// ```
public struct DateDecodingStrategy: Sendable {
    enum Kind: Sendable {
        case iso8601
        case secondsSince1970
        case millisecondsSince1970
        case formatted(DateFormatter)
        case custom(@Sendable (String) throws -> Date)
    }

    let kind: Kind

    /// ISO 8601 / RFC 3339 §5.6 with or without a fraction of a second and with `Z` or a
    /// numeric offset: the default, reading both ``DateEncodingStrategy/iso8601`` and
    /// ``DateEncodingStrategy/iso8601WithFractionalSeconds``.
    public static let iso8601 = DateDecodingStrategy(kind: .iso8601)

    /// A decimal number of seconds since 1 January 1970 UTC.
    public static let secondsSince1970 = DateDecodingStrategy(kind: .secondsSince1970)

    /// A decimal number of milliseconds since 1 January 1970 UTC.
    public static let millisecondsSince1970 = DateDecodingStrategy(kind: .millisecondsSince1970)

    /// Text read by `formatter`. Do not change the formatter after handing it over.
    /// - Parameter formatter: A configured formatter.
    /// - Returns: The strategy.
    public static func formatted(_ formatter: DateFormatter) -> DateDecodingStrategy {
        DateDecodingStrategy(kind: .formatted(formatter))
    }

    /// Text read by `parse`.
    /// - Parameter parse: Turns text into a date; an error it throws is wrapped in
    ///   ``HTTPEncodingError`` with code ``HTTPEncodingError/Code/strategyFailed``.
    /// - Returns: The strategy.
    public static func custom(_ parse: @escaping @Sendable (String) throws -> Date) -> DateDecodingStrategy {
        DateDecodingStrategy(kind: .custom(parse))
    }

    /// Applies the strategy to one piece of text.
    /// - Parameter text: The text of a date.
    /// - Returns: The date.
    /// - Throws: ``HTTPEncodingError`` with code ``HTTPEncodingError/Code/typeMismatch`` naming
    ///   the text when it is not a date in this format, or ``HTTPEncodingError/Code/strategyFailed``
    ///   when a custom closure throws.
    public func decode(_ text: String) throws(HTTPEncodingError) -> Date {
        let date: Date?
        switch kind {
        case .iso8601:
            date = ISO8601Text.parse(text)
        case .secondsSince1970:
            date = Double(text).flatMap { $0.isFinite ? Date(timeIntervalSince1970: $0) : nil }
        case .millisecondsSince1970:
            date = Double(text).flatMap { $0.isFinite ? Date(timeIntervalSince1970: $0 / 1000) : nil }
        case .formatted(let formatter):
            date = formatter.date(from: text)
        case .custom(let parse):
            do {
                date = try parse(text)
            } catch {
                throw HTTPEncodingError(
                    .strategyFailed, value: text, reason: "the custom date decoding strategy threw", underlying: error)
            }
        }
        guard let date else {
            throw HTTPEncodingError(.typeMismatch, value: text, reason: "not a date in the expected format")
        }
        return date
    }
}
