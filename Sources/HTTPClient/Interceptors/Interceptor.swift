import Foundation
import HTTPCore

/// A step of the client's chain: prepares each request and decides what to do with
/// each outcome.
///
/// **Order.** The client calls ``prepare(_:context:)`` on its interceptors in array
/// order before every attempt, each seeing the request as the previous one left it,
/// and ``decide(_:context:)`` in **reverse** array order after every attempt, so the
/// interceptor closest to the transport (the last one) sees the response first. The
/// first decision other than ``InterceptorDecision/proceed`` wins and the remaining
/// interceptors are not asked. Put an interceptor that must see everything, such as
/// ``Logging``, last.
///
/// Every attempt starts again from the original request (after base-URL resolution and
/// the client's default header fields) and runs the whole `prepare` chain, so a retry
/// picks up a refreshed token. Redirects are followed beneath the chain: interceptors
/// see the final response of an attempt.
///
/// Both methods have default implementations that change nothing, so an interceptor
/// implements only what it needs.
///
/// ```swift
/// struct UserAgent: Interceptor {
///     func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) async throws {
///         try request.headerFields.set(.userAgent, "Heron/1.0")
///     }
/// }
/// ```
public protocol Interceptor: Sendable {
    /// Modifies the request before an attempt is sent.
    /// - Parameters:
    ///   - request: The request to send, as the previous interceptors left it.
    ///   - context: The attempt number, original request, elapsed time and shared values.
    /// - Throws: Any error to abort the request: a ``ClientError`` is thrown to the
    ///   caller unchanged, any other error wrapped in ``ClientError/Code/interceptorFailed``.
    func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) async throws

    /// Looks at the outcome of an attempt and decides what happens next.
    /// - Parameters:
    ///   - outcome: The response, or the error the attempt ended with.
    ///   - context: The attempt, with ``InterceptorContext/request`` set to the request as sent.
    /// - Returns: ``InterceptorDecision/proceed`` to let the next interceptor (and then the
    ///   retry policies) decide, or a decision that ends the chain.
    /// - Throws: Like ``prepare(_:context:)``; a thrown error ends the request.
    func decide(_ outcome: AttemptOutcome, context: inout InterceptorContext) async throws -> InterceptorDecision
}

extension Interceptor {
    /// Leaves the request unchanged.
    /// - Parameters:
    ///   - request: The request to send.
    ///   - context: The attempt's context.
    public func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) async throws {}

    /// Proceeds without an opinion.
    /// - Parameters:
    ///   - outcome: The attempt's outcome.
    ///   - context: The attempt's context.
    /// - Returns: ``InterceptorDecision/proceed``.
    public func decide(
        _ outcome: AttemptOutcome, context: inout InterceptorContext
    ) async throws
        -> InterceptorDecision
    { .proceed }
}

/// An interceptor whose steps never wait: the client calls them inline, in the call's own
/// task, with no `await` and no task to bound them by the attempt's timeout (nothing in them
/// can outlast it).
///
/// Conform to it, rather than to ``Interceptor`` alone, when `prepare` and `decide` do
/// their work at once: add a fixed field, check a status, write a log line. Implement both
/// steps (there are no defaults, so an `async` step written by mistake does not compile
/// into one that is never called); the `async` requirements of ``Interceptor`` call them.
/// An interceptor that waits for anything (a token, a lock held across an `await`) stays an
/// ``Interceptor``: the client runs it in a task bounded by the attempt's timeout.
///
/// ```swift
/// struct Trace: SynchronousInterceptor {
///     func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) throws {
///         request = request.header("X-Trace", "heron-\(context.attempt)")
///     }
///
///     func decide(_ outcome: AttemptOutcome, context: inout InterceptorContext) throws -> InterceptorDecision {
///         .proceed
///     }
/// }
/// ```
public protocol SynchronousInterceptor: Interceptor {
    /// Modifies the request before an attempt is sent, without waiting.
    /// - Parameters:
    ///   - request: The request to send, as the previous interceptors left it.
    ///   - context: The attempt number, original request, elapsed time and shared values.
    /// - Throws: Any error to abort the request, as ``Interceptor/prepare(_:context:)``.
    func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) throws

    /// Looks at the outcome of an attempt and decides what happens next, without waiting.
    /// - Parameters:
    ///   - outcome: The response, or the error the attempt ended with.
    ///   - context: The attempt, with ``InterceptorContext/request`` set to the request as sent.
    /// - Returns: As ``Interceptor/decide(_:context:)``.
    /// - Throws: Like ``prepare(_:context:)``; a thrown error ends the request.
    func decide(_ outcome: AttemptOutcome, context: inout InterceptorContext) throws -> InterceptorDecision
}

extension SynchronousInterceptor {
    /// Calls the synchronous ``SynchronousInterceptor/prepare(_:context:)``.
    /// - Parameters:
    ///   - request: The request to send.
    ///   - context: The attempt's context.
    public func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) async throws {
        try InterceptorChain.prepareNow(self, &request, &context)
    }

    /// Calls the synchronous ``SynchronousInterceptor/decide(_:context:)``.
    /// - Parameters:
    ///   - outcome: The attempt's outcome.
    ///   - context: The attempt's context.
    /// - Returns: The decision.
    public func decide(
        _ outcome: AttemptOutcome, context: inout InterceptorContext
    ) async throws
        -> InterceptorDecision
    {
        try InterceptorChain.decideNow(self, outcome, &context)
    }
}

/// How one attempt ended, as interceptors see it.
public enum AttemptOutcome: Sendable, CustomStringConvertible {
    /// The server answered. `body` holds the bytes when the response is buffered in
    /// memory, and is `nil` for downloads to a file and streamed responses.
    case response(HTTPResponse, body: Data?)
    /// The attempt failed without a response (transport failure or timeout).
    case failure(ClientError)

    /// The response head, when the server answered.
    public var response: HTTPResponse? {
        if case .response(let head, _) = self { return head }
        return nil
    }

    /// The error, when the attempt failed.
    public var error: ClientError? {
        if case .failure(let error) = self { return error }
        return nil
    }

    /// The status (`200 OK`), or the error's code and message (`cannotConnect: ...`).
    public var description: String {
        switch self {
        case .response(let head, _): return head.status.description
        case .failure(let error): return "\(error.code.rawValue): \(error.message)"
        }
    }
}

/// What an interceptor wants to happen after an attempt.
public enum InterceptorDecision: Sendable {
    /// No opinion: ask the next interceptor, then the retry policies.
    case proceed
    /// Send the request again now.
    ///
    /// The interceptor sets its own limit (it sees ``InterceptorContext/attempt``): the retry
    /// stack's ``RetryPolicy/attempts(max:)`` bounds only the stack's own retries. What still
    /// applies: the stack's ``RetryPolicy/timeBudget(_:)``, the call's deadline, the rules on
    /// non-idempotent methods and one-shot bodies, and a backstop of
    /// ``RetryStack/interceptorAttemptCap`` (10) attempts, sent one after the other without a wait (answer `.retryAfter` to wait).
    case retry
    /// Send the request again after `delay`, under the same limits as ``retry``.
    case retryAfter(Duration)
    /// End the request with this error (the retry policies may still retry the outcome).
    case fail(ClientError)
}

/// What an interceptor knows about the request it is working on.
///
/// A context lives for the whole request: the client updates ``attempt`` and
/// ``request`` before each step, and ``values`` carries what interceptors store across
/// attempts.
public struct InterceptorContext: Sendable {
    /// The attempt number, from 1.
    public internal(set) var attempt: Int
    /// The request as the caller gave it, with its URL resolved against the base URL
    /// and the client's default header fields added.
    public let originalRequest: HTTPRequest
    /// The request as sent in this attempt: during ``Interceptor/prepare(_:context:)`` the
    /// request before the chain ran; during ``Interceptor/decide(_:context:)`` the request
    /// after the whole `prepare` chain.
    public internal(set) var request: HTTPRequest
    /// Values shared by the interceptors of this request, seeded from the client's
    /// ``Client/values`` with ``RequestOptions/values`` laid over them.
    public var values: RequestValues
    /// Whether the caller opted this request in to retries although its method is not idempotent.
    public let retriesNonIdempotent: Bool
    /// The client's ``Client/baseURL``, if it has one: credentials-adding interceptors
    /// (``BearerAuth``, ``BasicAuth``) add them only to requests for its origin.
    public internal(set) var baseURL: URL?
    /// Whether the interceptor running now was attached to this request by its caller
    /// (`HTTPRequest.intercepted(by:)`), not to the client.
    var attachedToRequest = false
    /// During ``Interceptor/decide(_:context:)``: the request the outcome's response answers,
    /// as sent (the last redirect hop; `nil` for a failure). A `401` to a hop that went to
    /// another origin, or that lost the credentials on the way, is no verdict on them.
    var lastHop: HTTPRequest?

    /// Whether ``lastHop`` went to another origin than ``request``: credentials never go
    /// there, so its `401` is no verdict on them.
    var lastHopLeftOrigin: Bool { lastHop.map { !RedirectFollower.sameOrigin($0.url, request.url) } ?? false }
    let start: ContinuousClock.Instant

    /// Creates a context, for testing interceptors without a client.
    /// - Parameters:
    ///   - request: The original request.
    ///   - attempt: The attempt number, from 1.
    ///   - values: The shared values.
    ///   - retriesNonIdempotent: Whether retries of non-idempotent methods are allowed.
    public init(
        request: HTTPRequest, attempt: Int = 1, values: RequestValues = RequestValues(),
        retriesNonIdempotent: Bool = false
    ) {
        self.init(
            request: request, attempt: attempt, values: values, retriesNonIdempotent: retriesNonIdempotent,
            start: .now)
    }

    init(
        request: HTTPRequest, attempt: Int, values: RequestValues, retriesNonIdempotent: Bool,
        start: ContinuousClock.Instant
    ) {
        self.attempt = attempt
        self.originalRequest = request
        self.request = request
        self.values = values
        self.retriesNonIdempotent = retriesNonIdempotent
        self.start = start
    }

    /// Whether `request` may carry credentials: the client has no base URL, the request goes
    /// to the base URL's origin (scheme, host and port; RFC 6454 §4), or the interceptor
    /// asking was attached to this very request by its caller
    /// (`.get("https://other.example/x").intercepted(by: BasicAuth(...))`: the caller named
    /// the request the credentials are for). An interceptor of the client's gets none for an
    /// absolute URL to another host, such as an endpoint's absolute template. Redirects to
    /// another origin drop `Authorization` either way.
    /// - Parameter request: The request about to be sent.
    /// - Returns: Whether credentials may be added.
    public func mayCarryCredentials(_ request: HTTPRequest) -> Bool {
        guard let baseURL, !attachedToRequest else { return true }
        return RedirectFollower.sameOrigin(baseURL, request.url)
    }

    /// Time since the client started the request (before the first attempt).
    public var elapsed: Duration { ContinuousClock.now - start }
}
