import Foundation
import HTTPCore

/// One rule of a ``RetryStack``: what to retry, how often, and how long to wait.
///
/// There are three kinds, applied by the stack in this order whatever their place in
/// the array:
/// - **Triggers** say which outcomes deserve a retry: ``transportErrors(max:codes:)``
///   and ``status(_:max:honorRetryAfter:retryAfterLimit:)``. The first trigger (in
///   array order) that matches an outcome claims it; none matching means no retry.
/// - **Limits** can forbid a retry a trigger wants: ``attempts(max:)`` and
///   ``timeBudget(_:)``.
/// - **Backoff** sets the wait: ``backoff(_:jitter:)`` (the first one counts). A
///   `Retry-After` wait from a status trigger replaces a shorter backoff.
///
/// ```swift
/// let retry: RetryStack = [
///     .transportErrors(max: 3),
///     .status([429, 503], honorRetryAfter: true),
///     .attempts(max: 4),
///     .backoff(.exponential(base: 0.5, cap: 30), jitter: .full),
/// ]
/// ```
public struct RetryPolicy: Sendable, Hashable, CustomStringConvertible {
    enum Rule: Sendable, Hashable {
        case transportErrors(max: Int, codes: Set<ClientError.Code>)
        case statuses(Set<Int>, max: Int?, honorRetryAfter: Bool, retryAfterLimit: Duration)
        case attempts(max: Int)
        case timeBudget(Duration)
        case backoff(Backoff, Jitter)
    }

    let rule: Rule

    /// The statuses worth retrying by default: 408, 429, 500, 502, 503 and 504.
    public static let defaultStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]

    /// The transport failures worth retrying by default: could not connect (to the origin,
    /// or through a proxy that refused the tunnel), connection lost, truncated body, and other
    /// transport failures. Timeouts are not retried by default; add
    /// ``ClientError/Code/timedOut`` to retry them.
    public static let defaultTransportErrorCodes: Set<ClientError.Code> = [
        .cannotConnect, .proxyConnectFailed, .connectionLost, .truncatedBody, .transport,
    ]

    /// Retries transport failures with one of `codes`, at most `max` times per request.
    /// - Parameters:
    ///   - max: The most retries for such failures; beyond it the request fails with
    ///     ``ClientError/Code/tooManyRetries``.
    ///   - codes: The error codes to retry.
    /// - Returns: The policy.
    public static func transportErrors(
        max: Int, codes: Set<ClientError.Code> = RetryPolicy.defaultTransportErrorCodes
    ) -> RetryPolicy {
        RetryPolicy(rule: .transportErrors(max: Swift.max(0, max), codes: codes))
    }

    /// Retries responses with one of `statuses`.
    /// - Parameters:
    ///   - statuses: Status codes to retry; ``defaultStatuses`` by default.
    ///   - max: The most retries for such responses, or `nil` to leave it to the limits.
    ///   - honorRetryAfter: Whether to wait as long as a `Retry-After` field asks
    ///     (RFC 9110 §10.2.3, delta-seconds or HTTP-date).
    ///   - retryAfterLimit: The longest `Retry-After` wait accepted; a longer one ends the
    ///     retries with ``ClientError/Code/tooManyRetries`` instead of waiting.
    /// - Returns: The policy.
    public static func status(
        _ statuses: Set<Int> = RetryPolicy.defaultStatuses, max: Int? = nil, honorRetryAfter: Bool = true,
        retryAfterLimit: Duration = .seconds(60)
    ) -> RetryPolicy {
        RetryPolicy(
            rule: .statuses(
                statuses, max: max.map { Swift.max(0, $0) }, honorRetryAfter: honorRetryAfter,
                retryAfterLimit: retryAfterLimit))
    }

    /// Allows at most `max` attempts in all (the first one included), whatever triggered
    /// the retries; interceptor-requested retries count too.
    /// - Parameter max: The attempt cap, at least 1.
    /// - Returns: The policy.
    public static func attempts(max: Int) -> RetryPolicy {
        RetryPolicy(rule: .attempts(max: Swift.max(1, max)))
    }

    /// Forbids a retry whose wait would end later than `budget` after the call started.
    /// - Parameter budget: The total time allowed for the call's attempts and waits.
    /// - Returns: The policy.
    public static func timeBudget(_ budget: Duration) -> RetryPolicy {
        RetryPolicy(rule: .timeBudget(budget))
    }

    /// Waits according to `backoff` before each retry, randomised by `jitter`.
    /// - Parameters:
    ///   - backoff: The delay schedule.
    ///   - jitter: The randomisation; ``Jitter/full`` by default.
    /// - Returns: The policy.
    public static func backoff(_ backoff: Backoff, jitter: Jitter = .full) -> RetryPolicy {
        RetryPolicy(rule: .backoff(backoff, jitter))
    }

    /// A readable form, such as `status([503], honorRetryAfter: true)`.
    public var description: String {
        switch rule {
        case .transportErrors(let max, let codes):
            return "transportErrors(max: \(max), codes: \(codes.map(\.rawValue).sorted()))"
        case .statuses(let statuses, let max, let honor, let limit):
            return "status(\(statuses.sorted()), max: \(max.map(String.init) ?? "none"), "
                + "honorRetryAfter: \(honor), retryAfterLimit: \(limit))"
        case .attempts(let max): return "attempts(max: \(max))"
        case .timeBudget(let budget): return "timeBudget(\(budget))"
        case .backoff(let backoff, let jitter): return "backoff(\(backoff), jitter: \(jitter))"
        }
    }
}
