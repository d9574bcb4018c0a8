import Foundation

/// How long to wait before a retry, growing with the retry number.
///
/// ```swift
/// let backoff = Backoff.exponential(base: 0.5, cap: 30)
/// print(backoff.delay(forRetry: 1), backoff.delay(forRetry: 4))  // 0.5 4.0
/// ```
public struct Backoff: Sendable, Hashable, CustomStringConvertible {
    /// The first delay, in seconds.
    public let base: TimeInterval
    /// The factor between consecutive delays (1 for a constant delay).
    public let multiplier: Double
    /// The longest delay, in seconds.
    public let cap: TimeInterval

    /// Delays of `base`, `base × multiplier`, `base × multiplier²`… never above `cap`.
    /// - Parameters:
    ///   - base: The first delay in seconds; negative values count as 0.
    ///   - multiplier: The growth factor; 2 by default, values below 1 count as 1.
    ///   - cap: The longest delay in seconds.
    /// - Returns: The backoff.
    public static func exponential(base: TimeInterval, multiplier: Double = 2, cap: TimeInterval) -> Backoff {
        Backoff(base: base, multiplier: multiplier, cap: cap)
    }

    /// The same delay before every retry.
    /// - Parameter seconds: The delay in seconds.
    /// - Returns: The backoff.
    public static func constant(_ seconds: TimeInterval) -> Backoff {
        Backoff(base: seconds, multiplier: 1, cap: seconds)
    }

    private init(base: TimeInterval, multiplier: Double, cap: TimeInterval) {
        let base = base.isFinite ? max(0, base) : 0
        self.base = base
        self.multiplier = multiplier.isFinite ? max(1, multiplier) : 1
        self.cap = cap.isFinite ? max(0, cap) : base
    }

    /// The delay before retry number `retry`, before jitter.
    /// - Parameter retry: The retry number, from 1.
    /// - Returns: Seconds, at most ``cap``.
    public func delay(forRetry retry: Int) -> TimeInterval {
        let exponent = Double(max(0, retry - 1))
        let raw = base * pow(multiplier, exponent)
        return raw.isFinite ? min(cap, raw) : cap
    }

    /// `exponential(base: 0.5, ×2, cap: 30)`.
    public var description: String { "exponential(base: \(base), ×\(multiplier), cap: \(cap))" }
}

/// Randomisation of a backoff delay, so clients that failed together do not retry together.
public enum Jitter: Sendable, Hashable {
    /// The delay as computed.
    case none
    /// A random delay between 0 and the computed one.
    case full
    /// Half the computed delay plus a random share of the other half.
    case equal

    /// Applies the jitter to `delay`.
    /// - Parameters:
    ///   - delay: The computed delay in seconds.
    ///   - random: A random number in `0..<1`.
    /// - Returns: The delay to wait, in seconds.
    public func apply(to delay: TimeInterval, random: Double) -> TimeInterval {
        let unit = min(max(random, 0), 1)
        switch self {
        case .none: return delay
        case .full: return delay * unit
        case .equal: return delay / 2 + delay / 2 * unit
        }
    }
}
