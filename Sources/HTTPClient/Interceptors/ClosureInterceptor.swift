import HTTPCore

/// An interceptor made of closures, as ``EventObserver`` is an observer: a step written where
/// the client is made, without a type of its own.
///
/// Make one with `.prepare { request in ... }` or `.decide { outcome, context in ... }` where
/// an `any Interceptor` is expected (a client's list), or with `init(prepare:decide:)` for
/// both steps. A closure that does not `await` runs inline, with
/// no task of its own; one that does runs under the attempt's timeout, as any interceptor.
///
/// ```swift
/// let client = Client(
///     baseURL: httpbin,
///     interceptors: [
///         .prepare { request in request = request.header("X-Trace", "heron-1") },
///         .decide { outcome, context in print(outcome, "after attempt", context.attempt) },
///     ])
/// _ = try await client.send(.get("get"))  // 200 OK after attempt 1
/// ```
public struct ClosureInterceptor: Interceptor {
    fileprivate let prepareStep: Step?
    fileprivate let decideStep: Judge?
    /// Whether neither closure can suspend.
    let runsInline: Bool

    /// A `prepare` closure, as it waits or not.
    fileprivate enum Step: Sendable {
        case inline(@Sendable (inout HTTPRequest, inout InterceptorContext) throws -> Void)
        case waiting(@Sendable (inout HTTPRequest, inout InterceptorContext) async throws -> Void)
    }

    /// A `decide` closure, as it waits or not.
    fileprivate enum Judge: Sendable {
        case inline(@Sendable (AttemptOutcome, InterceptorContext) throws -> InterceptorDecision)
        case waiting(@Sendable (AttemptOutcome, InterceptorContext) async throws -> InterceptorDecision)
    }

    fileprivate init(prepare: Step?, decide: Judge?) {
        self.prepareStep = prepare
        self.decideStep = decide
        var inline = true
        if case .waiting = prepare { inline = false }
        if case .waiting = decide { inline = false }
        self.runsInline = inline
    }

    /// An interceptor with both steps, each given the attempt's context.
    /// - Parameters:
    ///   - prepare: Changes the request before each attempt.
    ///   - decide: Judges each attempt's outcome.
    public init(
        prepare: @escaping @Sendable (inout HTTPRequest, inout InterceptorContext) throws -> Void,
        decide: @escaping @Sendable (AttemptOutcome, InterceptorContext) throws -> InterceptorDecision
    ) {
        self.init(prepare: .inline(prepare), decide: .inline(decide))
    }

    /// An interceptor whose steps may wait, each given the attempt's context.
    /// - Parameters:
    ///   - prepare: Changes the request before each attempt.
    ///   - decide: Judges each attempt's outcome.
    @_disfavoredOverload
    public init(
        prepare: @escaping @Sendable (inout HTTPRequest, inout InterceptorContext) async throws -> Void,
        decide: @escaping @Sendable (AttemptOutcome, InterceptorContext) async throws -> InterceptorDecision
    ) {
        self.init(prepare: .waiting(prepare), decide: .waiting(decide))
    }

    /// Runs the `prepare` closure, if any.
    /// - Parameters:
    ///   - request: The request to change.
    ///   - context: The attempt's context.
    public func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) async throws {
        switch prepareStep {
        case .inline(let step): try step(&request, &context)
        case .waiting(let step): try await step(&request, &context)
        case nil: break
        }
    }

    /// Runs the `decide` closure, if any; proceeds otherwise.
    /// - Parameters:
    ///   - outcome: The attempt's outcome.
    ///   - context: The attempt's context.
    /// - Returns: The closure's decision.
    public func decide(
        _ outcome: AttemptOutcome, context: inout InterceptorContext
    ) async throws
        -> InterceptorDecision
    {
        switch decideStep {
        case .inline(let judge): return try judge(outcome, context)
        case .waiting(let judge): return try await judge(outcome, context)
        case nil: return .proceed
        }
    }
}

/// The ways to make a ``ClosureInterceptor``, written `.prepare { }` and `.decide { }` where an
/// interceptor is expected, or `ClosureInterceptor.prepare { }` where the type is not known.
extension Interceptor where Self == ClosureInterceptor {
    /// An interceptor that changes each request before it is sent:
    /// `Client(interceptors: [.prepare { request in ... }])`.
    /// - Parameter body: Changes the request; a fluent modifier's error left in it, or an
    ///   error thrown, fails the call.
    /// - Returns: The interceptor.
    public static func prepare(_ body: @escaping @Sendable (inout HTTPRequest) throws -> Void) -> ClosureInterceptor {
        ClosureInterceptor(prepare: .inline { request, _ in try body(&request) }, decide: nil)
    }

    /// An interceptor that changes each request before it is sent, and may wait (for a token,
    /// say).
    /// - Parameter body: Changes the request.
    /// - Returns: The interceptor.
    @_disfavoredOverload
    public static func prepare(
        _ body: @escaping @Sendable (inout HTTPRequest) async throws -> Void
    ) -> ClosureInterceptor {
        ClosureInterceptor(prepare: .waiting { request, _ in try await body(&request) }, decide: nil)
    }

    /// An interceptor whose answer is the decision after each attempt:
    /// `Client(interceptors: [.decide { outcome, context in ... }])`
    /// (``InterceptorDecision/proceed`` leaves it to the next interceptor and the retry policies).
    /// - Parameter body: Decides, given the outcome and the attempt's context.
    /// - Returns: The interceptor.
    public static func decide(
        _ body: @escaping @Sendable (AttemptOutcome, InterceptorContext) throws -> InterceptorDecision
    ) -> ClosureInterceptor {
        ClosureInterceptor(prepare: nil, decide: .inline(body))
    }

    /// An interceptor that looks at each attempt's outcome and leaves the decision to others
    /// (it proceeds): a log line, a metric.
    /// - Parameter body: Looks at the outcome and the attempt's context.
    /// - Returns: The interceptor.
    public static func decide(
        _ body: @escaping @Sendable (AttemptOutcome, InterceptorContext) throws -> Void
    ) -> ClosureInterceptor {
        ClosureInterceptor(
            prepare: nil,
            decide: .inline { outcome, context in
                try body(outcome, context)
                return .proceed
            })
    }

    /// An interceptor that judges each attempt's outcome and may wait to do so.
    /// - Parameter body: Decides, given the outcome and the attempt's context.
    /// - Returns: The interceptor.
    @_disfavoredOverload
    public static func decide(
        _ body: @escaping @Sendable (AttemptOutcome, InterceptorContext) async throws -> InterceptorDecision
    ) -> ClosureInterceptor {
        ClosureInterceptor(prepare: nil, decide: .waiting(body))
    }
}

extension ClosureInterceptor: InlineSteps {
    var stepsRunInline: Bool { runsInline }

    func prepareNow(_ request: inout HTTPRequest, context: inout InterceptorContext) throws {
        if case .inline(let step) = prepareStep { try step(&request, &context) }
    }

    func decideNow(_ outcome: AttemptOutcome, context: inout InterceptorContext) throws -> InterceptorDecision {
        guard case .inline(let judge) = decideStep else { return .proceed }
        return try judge(outcome, context)
    }
}
