import Foundation
import HTTPCore

/// The client's retry policies, evaluated as a state machine after every attempt.
///
/// The stack is a plain value: ``decide(after:of:attempt:elapsed:retriesNonIdempotent:state:now:)``
/// takes what happened and the request's ``RetryState`` and returns a ``RetryAction``,
/// with no I/O, so a stack can be tested by feeding it outcomes. See ``RetryPolicy`` for
/// how triggers, limits and backoff combine.
///
/// Rules the stack always applies:
/// - A request whose method is not idempotent (RFC 9110 §9.2.2) is not retried unless
///   the caller opts it in (``RequestOptions/retriesNonIdempotent``), after a failure that
///   sent no byte of it (``ClientError/Code/cannotConnect``), or after a `429` or `503`
///   with `Retry-After`.
/// - A request whose body is a one-shot stream is never sent twice: when a retry is
///   wanted the stack answers ``RetryAction/bodyNotReplayable``, and the client fails
///   with ``ClientError/Code/bodyNotReplayable`` carrying the response or the error (with
///   ``Exhaustion/lastOutcome``, the call ends with that response or error instead).
///
/// ```swift
/// let client = Client(
///     baseURL: URL(string: "https://api.example.com")!,
///     retry: [.transportErrors(max: 3), .status([429, 503]), .backoff(.exponential(base: 0.5, cap: 30))]
/// )
/// ```
public struct RetryStack: Sendable, ExpressibleByArrayLiteral, CustomStringConvertible {
    /// The policies, in order.
    public var policies: [RetryPolicy]
    /// The source of jitter: returns a number in `0..<1`. Replace it for deterministic tests.
    public var random: @Sendable () -> Double
    /// How a call ends when a retry is wanted but refused by a limit (``RetryAction/giveUp(reason:)``):
    /// ``Exhaustion/fail`` by default.
    public var whenExhausted: Exhaustion = .fail

    /// How a call ends when its last attempt still calls for a retry that a limit refuses.
    public enum Exhaustion: Sendable, Hashable {
        /// The call fails with ``ClientError/Code/tooManyRetries``, which carries the last
        /// response (its head and buffered body) or the last error, and every attempt.
        case fail
        /// The call ends as if no retry had been wanted: it returns the last response (a `503`
        /// after the allowed retries, say, or the first `503` to a request whose one-shot body
        /// cannot be sent again), or throws the last attempt's own error. Alamofire
        /// ends the same way once its retry limit is reached; generated OpenAPI code needs it
        /// to see a status its document describes. ``ClientMetrics/attempts`` still lists
        /// every attempt.
        case lastOutcome
    }

    /// The most attempts a call makes for the retries interceptors ask for: 10, a backstop
    /// against an interceptor that answers `.retry` forever.
    ///
    /// An interceptor's retries are bounded by the interceptor itself (it sees
    /// ``InterceptorContext/attempt``), the stack's ``RetryPolicy/timeBudget(_:)``, the call's
    /// deadline and this backstop, not by ``RetryPolicy/attempts(max:)``, which bounds the
    /// stack's own retries: an interceptor written to try 5 times tries 5 times under the
    /// default stack's 3 attempts.
    public static let interceptorAttemptCap = 10

    /// Creates a stack.
    /// - Parameters:
    ///   - policies: The policies, in order.
    ///   - random: The jitter source, returning a number in `0..<1`.
    public init(_ policies: [RetryPolicy], random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.policies = policies
        self.random = random
    }

    /// Creates a stack from an array literal of policies.
    /// - Parameter elements: The policies, in order.
    public init(arrayLiteral elements: RetryPolicy...) { self.init(elements) }

    /// The default: two retries of transport failures, retries of 408, 429, 500, 502,
    /// 503 and 504 honouring `Retry-After` up to 60 s, at most 3 attempts, exponential
    /// backoff from 0.25 s capped at 8 s with full jitter.
    public static let `default`: RetryStack = [
        .transportErrors(max: 2), .status(), .attempts(max: 3),
        .backoff(.exponential(base: 0.25, cap: 8), jitter: .full),
    ]

    /// No retries.
    public static let none: RetryStack = []

    /// This stack, ending a call whose retries run out with its last outcome (the last
    /// response, or the last error) instead of ``ClientError/Code/tooManyRetries``.
    ///
    /// ```swift
    /// let client = Client(retry: RetryStack.default.endingWithLastOutcome())
    /// ```
    /// - Returns: The stack with ``whenExhausted`` set to ``Exhaustion/lastOutcome``.
    public func endingWithLastOutcome() -> RetryStack {
        var stack = self
        stack.whenExhausted = .lastOutcome
        return stack
    }

    /// The policies, comma-separated, and how the call ends when they are exhausted if not
    /// by failing.
    public var description: String {
        let list = "[\(policies.map(\.description).joined(separator: ", "))]"
        return whenExhausted == .fail ? list : list + " ending with the last outcome"
    }

    /// Decides what follows an attempt.
    /// - Parameters:
    ///   - outcome: How the attempt ended.
    ///   - request: The request (its method and body decide whether it may be re-sent).
    ///   - attempt: The number of the attempt that just ended, from 1.
    ///   - elapsed: Time since the call started; read only when a retry is considered.
    ///   - retriesNonIdempotent: Whether the caller opted a non-idempotent request in.
    ///   - state: The request's retry counters; updated when a retry is granted.
    ///   - now: The current date, for `Retry-After` dates; read only for such a date.
    /// - Returns: The action to take.
    public func decide(
        after outcome: AttemptOutcome, of request: HTTPRequest, attempt: Int, elapsed: @autoclosure () -> Duration,
        retriesNonIdempotent: Bool, state: inout RetryState, now: @autoclosure () -> Date = Date()
    ) -> RetryAction {
        guard let (index, claim) = firstTrigger(for: outcome, now: now) else { return .finish }
        guard Self.mayResend(request, after: outcome, retriesNonIdempotent: retriesNonIdempotent, byInterceptor: false)
        else { return .finish }
        let used = state.retries(byPolicy: index)
        switch claim {
        case .retry(let max, _) where max.map({ used >= $0 }) ?? false:
            return .giveUp(reason: "\(policies[index]) allowed \(max ?? 0) retries")
        case .tooLongRetryAfter(let wait, let limit):
            return .giveUp(reason: "Retry-After of \(wait) exceeds the limit of \(limit)")
        default: break
        }
        guard request.body?.isReplayable ?? true else { return .bodyNotReplayable }
        var wait: Duration = .zero
        if case .retry(_, let retryAfter?) = claim { wait = retryAfter }
        if let backoff = backoffDelay(forRetry: state.totalRetries + 1), backoff > wait { wait = backoff }
        if let refusal = limitRefusal(attempt: attempt, elapsed: elapsed(), wait: wait, cap: nil) {
            return .giveUp(reason: refusal)
        }
        state.record(retryBy: index)
        return .retry(after: wait)
    }

    /// Checks a retry an interceptor asked for: the time budget and the
    /// ``interceptorAttemptCap`` backstop (not the stack's ``RetryPolicy/attempts(max:)``:
    /// the interceptor's own limit wins), a one-shot body, and, for a method that is not
    /// idempotent, the request's opt-in after a failure where the server may have processed it.
    /// - Parameters:
    ///   - request: The request (a one-shot body cannot be re-sent).
    ///   - outcome: How the attempt ended, or `nil` when unknown (treated as an answer).
    ///   - attempt: The number of the attempt that just ended.
    ///   - elapsed: Time since the call started.
    ///   - wait: The wait the interceptor asked for.
    ///   - retriesNonIdempotent: Whether the caller opted a non-idempotent request in.
    ///   - state: The request's retry counters; updated when the retry is granted.
    /// - Returns: ``RetryAction/retry(after:)`` with `wait`, or why it is refused.
    public func permitInterceptorRetry(
        of request: HTTPRequest, after outcome: AttemptOutcome? = nil, attempt: Int, elapsed: Duration,
        wait: Duration, retriesNonIdempotent: Bool = false, state: inout RetryState
    ) -> RetryAction {
        if let outcome,
            !Self.mayResend(request, after: outcome, retriesNonIdempotent: retriesNonIdempotent, byInterceptor: true)
        {
            return .giveUp(
                reason: "\(request.method) is not idempotent and the attempt failed where the server may have "
                    + "processed it; opt in with retriesNonIdempotent or an Idempotency-Key field")
        }
        guard request.body?.isReplayable ?? true else { return .bodyNotReplayable }
        let wait = min(max(wait, .zero), Self.longestWait)
        if let refusal = limitRefusal(
            attempt: attempt, elapsed: elapsed, wait: wait, cap: Self.interceptorAttemptCap, countsAttempts: false)
        {
            return .giveUp(reason: refusal)
        }
        state.record(retryBy: nil)
        return .retry(after: wait)
    }

    /// Whether `request` may be sent again after `outcome` (RFC 9110 §9.2.2): an idempotent
    /// method; a request opted in by its caller or carrying an `Idempotency-Key` field; a
    /// failure that sent no byte of the request (``ClientError/Code/cannotConnect``: the
    /// host name did not resolve, the connection was refused, the TLS handshake failed;
    /// ``ClientError/Code/proxyConnectFailed``: the proxy opened no way to the origin); or
    /// an answer showing the server did not process it: `429` or `503` with `Retry-After`
    /// (RFC 9110 §15.5.20, §15.6.4), and, for an interceptor (a `401` before a token
    /// refresh, say), any answer at all. A failure mid-request (a reset, a timeout) needs
    /// the opt-in, since the server may have acted on it.
    static func mayResend(
        _ request: HTTPRequest, after outcome: AttemptOutcome, retriesNonIdempotent: Bool, byInterceptor: Bool
    ) -> Bool {
        if request.method.isIdempotent || retriesNonIdempotent || request.headerFields.contains(.idempotencyKey) {
            return true
        }
        guard case .response(let head, _) = outcome else {
            // A connection refused after a redirect follows a request the server did get.
            guard let error = outcome.error else { return false }
            return (error.code == .cannotConnect || error.code == .proxyConnectFailed) && !error.followedRedirect
        }
        if byInterceptor { return true }
        return (head.status.code == 429 || head.status.code == 503) && head.headerFields.contains(.retryAfter)
    }

    /// The longest wait the stack ever computes, so that no arithmetic on waits overflows.
    static let longestWait = Duration.seconds(1_000_000_000)

    /// `seconds` as a duration in milliseconds, clamped to `0...longestWait`.
    static func duration(seconds: Double) -> Duration {
        guard seconds.isFinite, seconds > 0 else { return .zero }
        return seconds >= 1e9 ? longestWait : .milliseconds(Int64((seconds * 1000).rounded()))
    }

    private enum Claim {
        case retry(max: Int?, retryAfter: Duration?)
        case tooLongRetryAfter(Duration, limit: Duration)
    }

    private func firstTrigger(for outcome: AttemptOutcome, now: () -> Date) -> (Int, Claim)? {
        // Rule first, outcome second: matching the pair would copy the outcome per policy.
        for index in policies.indices {
            switch policies[index].rule {
            case .transportErrors(let max, let codes):
                guard case .failure(let error) = outcome, codes.contains(error.code) || error.restartsDownload else {
                    continue
                }
                return (index, .retry(max: max, retryAfter: nil))
            case .statuses(let statuses, let max, let honor, let limit):
                guard case .response(let head, _) = outcome, statuses.contains(head.status.code),
                    !head.isFinalLocalAnswer
                else { continue }
                guard honor, let retryAfter = RetryAfter(head.headerFields) else {
                    return (index, .retry(max: max, retryAfter: nil))
                }
                let wait = Self.duration(seconds: retryAfter.delay(from: now()))
                if wait > limit { return (index, .tooLongRetryAfter(wait, limit: limit)) }
                return (index, .retry(max: max, retryAfter: wait))
            default: continue
            }
        }
        return nil
    }

    /// The delay the stack's backoff policy gives retry number `retry` (from 1), jitter
    /// applied, or `nil` when the stack has no backoff policy.
    package func backoffDelay(forRetry retry: Int) -> Duration? {
        for policy in policies {
            if case .backoff(let backoff, let jitter) = policy.rule {
                let seconds = jitter.apply(to: backoff.delay(forRetry: retry), random: random())
                return Self.duration(seconds: seconds)
            }
        }
        return nil
    }

    private func limitRefusal(
        attempt: Int, elapsed: Duration, wait: Duration, cap: Int?, countsAttempts: Bool = true
    ) -> String? {
        var capped = false
        for policy in policies {
            switch policy.rule {
            case .attempts(let max) where countsAttempts:
                capped = true
                if attempt >= max { return "the limit of \(max) attempts was reached" }
            case .timeBudget(let budget) where elapsed + wait > budget:
                return "waiting \(wait) more would exceed the time budget of \(budget)"
            default: continue
            }
        }
        if !capped, let cap, attempt >= cap {
            return countsAttempts
                ? "the limit of \(cap) attempts was reached"
                : "the backstop of \(cap) attempts for interceptors' retries was reached"
        }
        return nil
    }
}

/// The retry counters of one request, kept by the client between attempts.
public struct RetryState: Sendable, Hashable {
    private var byPolicy: [Int: Int] = [:]
    /// Retries granted so far, by policies and interceptors together.
    public private(set) var totalRetries = 0

    /// Creates the state of a request before its first attempt.
    public init() {}

    /// Retries granted so far by the policy at `index`.
    /// - Parameter index: The policy's index in the stack.
    /// - Returns: The count.
    public func retries(byPolicy index: Int) -> Int { byPolicy[index, default: 0] }

    mutating func record(retryBy index: Int?) {
        totalRetries += 1
        if let index { byPolicy[index, default: 0] += 1 }
    }
}

/// What the retry stack decided after an attempt.
public enum RetryAction: Sendable, Hashable {
    /// No retry is wanted: deliver the outcome.
    case finish
    /// Send the request again after waiting.
    case retry(after: Duration)
    /// A retry was wanted but a limit forbids it: fail with ``ClientError/Code/tooManyRetries``,
    /// or end with the last outcome when the stack's ``RetryStack/whenExhausted`` says so.
    case giveUp(reason: String)
    /// A retry was wanted but the body is a one-shot stream: fail with
    /// ``ClientError/Code/bodyNotReplayable``, or end with the last outcome (the response, or
    /// the attempt's own error) when the stack's ``RetryStack/whenExhausted`` is
    /// ``RetryStack/Exhaustion/lastOutcome``.
    case bodyNotReplayable
}
