import Foundation

/// The value of a `Retry-After` field (RFC 9110 §10.2.3): a delay in seconds or a date.
///
/// ```swift
/// let value = RetryAfter(parsing: "120")
/// print(value?.delay(from: Date()) ?? 0)  // 120.0
/// let later = RetryAfter(parsing: "Fri, 31 Dec 1999 23:59:59 GMT")
/// print(later?.delay(from: Date()) ?? -1)  // 0.0: the date is in the past
/// ```
public enum RetryAfter: Hashable, Sendable {
    /// `delay-seconds`: wait this many seconds after the response was received.
    case seconds(Int)
    /// An `HTTP-date`: wait until this instant.
    case date(Date)

    /// Parses a `Retry-After` value.
    /// - Parameter value: Non-negative delta-seconds or an HTTP-date (any of the three forms).
    /// - Returns: The parsed value, or `nil` when it is neither.
    public init?(parsing value: String) {
        self.init(parsing: value, now: Date())
    }

    /// Parses a `Retry-After` value, reading a two-digit RFC 850 year relative to `now`.
    /// - Parameters:
    ///   - value: Non-negative delta-seconds or an HTTP-date (any of the three forms).
    ///   - now: The reference instant for two-digit years (see ``HTTPDate/parse(_:now:)``).
    /// - Returns: The parsed value, or `nil` when it is neither.
    public init?(parsing value: String, now: Date) {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // Very long digit runs saturate rather than fail: the caller caps the delay anyway.
            self = .seconds(Int(trimmed) ?? Int.max)
        } else if let date = HTTPDate.parse(trimmed, now: now) {
            self = .date(date)
        } else {
            return nil
        }
    }

    /// Reads the `Retry-After` field of `fields`, if present and valid.
    ///
    /// `Retry-After` is a singleton field; when it is repeated, the fields must agree
    /// (an HTTP-date holds a comma, so the values are compared one by one, not combined).
    /// - Parameter fields: Response header fields.
    public init?(_ fields: HTTPFields) {
        let values = fields[values: .retryAfter]
        guard let first = values.first, values.allSatisfy({ $0 == first }) else { return nil }
        self.init(parsing: first)
    }

    /// The time to wait, never negative.
    /// - Parameter now: When the response was received.
    /// - Returns: Seconds to wait; `0` for a date already past.
    public func delay(from now: Date) -> TimeInterval {
        switch self {
        case .seconds(let seconds): return TimeInterval(max(0, seconds))
        case .date(let date): return max(0, date.timeIntervalSince(now))
        }
    }
}
