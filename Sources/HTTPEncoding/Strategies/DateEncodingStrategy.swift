import Foundation

/// How a `Date` is written as text, shared by the form, query and multipart encoders.
///
/// ```swift
/// let date = Date(timeIntervalSince1970: 1_700_000_000)
/// try DateEncodingStrategy.iso8601.encode(date)                // "2023-11-14T22:13:20Z"
/// try DateEncodingStrategy.secondsSince1970.encode(date)       // "1700000000"
/// try DateEncodingStrategy.millisecondsSince1970.encode(date)  // "1700000000000"
/// ```
public struct DateEncodingStrategy: Sendable {
    enum Kind: Sendable {
        case iso8601(fractionalSeconds: Bool)
        case secondsSince1970
        case millisecondsSince1970
        case formatted(DateFormatter)
        case custom(@Sendable (Date) throws -> String)
    }

    let kind: Kind

    /// ISO 8601 in UTC with whole seconds, such as `2023-11-14T22:13:20Z` (RFC 3339 §5.6):
    /// the default. Fractions of a second are dropped.
    public static let iso8601 = DateEncodingStrategy(kind: .iso8601(fractionalSeconds: false))

    /// ISO 8601 in UTC with milliseconds, such as `2023-11-14T22:13:20.123Z`.
    public static let iso8601WithFractionalSeconds = DateEncodingStrategy(kind: .iso8601(fractionalSeconds: true))

    /// Seconds since 1 January 1970 UTC: an integer when whole (`1700000000`), else a decimal.
    public static let secondsSince1970 = DateEncodingStrategy(kind: .secondsSince1970)

    /// Milliseconds since 1 January 1970 UTC, rounded to an integer (`1700000000000`).
    public static let millisecondsSince1970 = DateEncodingStrategy(kind: .millisecondsSince1970)

    /// Text made by `formatter`. Do not change the formatter after handing it over:
    /// formatters are shared between threads here, as `JSONEncoder` shares them.
    /// - Parameter formatter: A configured formatter (set its locale and time zone).
    /// - Returns: The strategy.
    public static func formatted(_ formatter: DateFormatter) -> DateEncodingStrategy {
        DateEncodingStrategy(kind: .formatted(formatter))
    }

    /// Text made by `format`.
    /// - Parameter format: Turns a date into text; an error it throws is wrapped in
    ///   ``HTTPEncodingError`` with code ``HTTPEncodingError/Code/strategyFailed``.
    /// - Returns: The strategy.
    public static func custom(_ format: @escaping @Sendable (Date) throws -> String) -> DateEncodingStrategy {
        DateEncodingStrategy(kind: .custom(format))
    }

    /// Applies the strategy to one date.
    /// - Parameter date: The date to write.
    /// - Returns: Its text.
    /// - Throws: ``HTTPEncodingError`` with code ``HTTPEncodingError/Code/strategyFailed`` when a
    ///   custom closure throws, or ``HTTPEncodingError/Code/unsupportedValue`` for a non-finite
    ///   date (NaN or infinite seconds) with a built-in strategy, a date too far from 1970 to
    ///   count in milliseconds, or one too far for ISO 8601 text.
    public func encode(_ date: Date) throws(HTTPEncodingError) -> String {
        switch kind {
        case .iso8601(let fractional):
            guard ISO8601Text.canFormat(date) else {
                throw HTTPEncodingError(
                    .unsupportedValue, value: "\(date.timeIntervalSince1970)",
                    reason: "the date has no ISO 8601 text (not finite, or millions of years from 1970)")
            }
            return ISO8601Text.format(date, fractionalSeconds: fractional)
        case .secondsSince1970:
            let seconds = date.timeIntervalSince1970
            guard seconds.isFinite else {
                throw HTTPEncodingError(
                    .unsupportedValue, value: "\(seconds)", reason: "a date must be a finite number of seconds")
            }
            if seconds.rounded() == seconds, let whole = Int64(exactly: seconds) { return String(whole) }
            return seconds.description
        case .millisecondsSince1970:
            guard let milliseconds = Int64(exactly: (date.timeIntervalSince1970 * 1000).rounded()) else {
                throw HTTPEncodingError(
                    .unsupportedValue, value: "\(date.timeIntervalSince1970)",
                    reason: "date is too far from 1970 to count in milliseconds")
            }
            return String(milliseconds)
        case .formatted(let formatter):
            return formatter.string(from: date)
        case .custom(let format):
            do {
                return try format(date)
            } catch {
                throw HTTPEncodingError(
                    .strategyFailed, value: ISO8601Text.format(date, fractionalSeconds: true),
                    reason: "the custom date encoding strategy threw", underlying: error)
            }
        }
    }
}
