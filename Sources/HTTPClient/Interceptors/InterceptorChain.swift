import HTTPCore

/// An interceptor of this package whose steps, as it was made, never wait (a fixed token, a
/// closure without `await`): the client calls ``prepareNow(_:context:)`` and
/// ``decideNow(_:context:)`` inline, as it calls a ``SynchronousInterceptor``'s steps.
protocol InlineSteps: Sendable {
    /// Whether this interceptor's steps never suspend, as it was made.
    var stepsRunInline: Bool { get }
    /// `prepare`, without `await`; called only when ``stepsRunInline``.
    func prepareNow(_ request: inout HTTPRequest, context: inout InterceptorContext) throws
    /// `decide`, without `await`; called only when ``stepsRunInline``.
    func decideNow(_ outcome: AttemptOutcome, context: inout InterceptorContext) throws -> InterceptorDecision
}

extension InlineSteps {
    func prepareNow(_ request: inout HTTPRequest, context: inout InterceptorContext) throws {}
    func decideNow(_ outcome: AttemptOutcome, context: inout InterceptorContext) throws -> InterceptorDecision {
        .proceed
    }
}

/// An interceptor whose field answers for one request target, as a Digest `Authorization`
/// names its `uri` (RFC 7616 §3.4): the client asks it for a new field on each redirect hop
/// that kept the old one (a same-origin hop; another origin's has lost its credentials).
protocol HopAuthorizing: Sendable {
    /// Replaces the field this interceptor set on `request`, a redirect hop made from a request
    /// it prepared, with one for the hop's own target; leaves any other field alone.
    func authorize(hop request: inout HTTPRequest) throws
}

/// A list of interceptors as the client runs it, worked out once (when the client is made,
/// and per call only for a request's own interceptors): which steps are called inline and
/// which may wait, so a call neither asks each interceptor again nor starts a task for steps
/// that cannot hang.
struct InterceptorChain: Sendable {
    /// One interceptor, as the client calls it.
    enum Step: Sendable {
        /// Called inline: its steps never wait.
        case now(any SynchronousInterceptor)
        /// Called inline: an interceptor of this package made with steps that never wait.
        case inline(any InlineSteps)
        /// Awaited, in a task bounded by the attempt's timeout.
        case waiting(any Interceptor)
    }

    let interceptors: [any Interceptor]
    let steps: [Step]
    /// The first step that may wait, or `steps.endIndex`: `prepare` runs the steps before it
    /// inline, and the rest in a task.
    let firstWaiting: Int
    /// The last step that may wait, or `nil`: `decide` (in reverse order) runs the steps after
    /// it inline, and the rest in a task.
    let lastWaiting: Int?
    /// The interceptors that answer each redirect hop again (``HopAuthorizing``).
    let hopAuthorizers: [any HopAuthorizing]

    init(_ interceptors: [any Interceptor]) {
        self.interceptors = interceptors
        var steps: [Step] = []
        steps.reserveCapacity(interceptors.count)
        for interceptor in interceptors {
            if let now = interceptor as? any SynchronousInterceptor {
                steps.append(.now(now))
            } else if let inline = interceptor as? any InlineSteps, inline.stepsRunInline {
                steps.append(.inline(inline))
            } else {
                steps.append(.waiting(interceptor))
            }
        }
        self.steps = steps
        hopAuthorizers = interceptors.compactMap { $0 as? any HopAuthorizing }
        firstWaiting = steps.firstIndex { if case .waiting = $0 { true } else { false } } ?? steps.endIndex
        lastWaiting = steps.lastIndex { if case .waiting = $0 { true } else { false } }
    }

    var isEmpty: Bool { steps.isEmpty }

    /// Whether no step waits: the chain needs no task and no clock read.
    var runsInline: Bool { lastWaiting == nil }

    /// Runs an inline step's `prepare` (never called for a ``Step/waiting`` one).
    static func prepare(_ step: Step, _ request: inout HTTPRequest, _ context: inout InterceptorContext) throws {
        switch step {
        case .now(let interceptor): try prepareNow(interceptor, &request, &context)
        case .inline(let interceptor): try interceptor.prepareNow(&request, context: &context)
        case .waiting: preconditionFailure("a step that may wait runs in a task")
        }
    }

    /// Runs an inline step's `decide` (never called for a ``Step/waiting`` one).
    static func decide(
        _ step: Step, _ outcome: AttemptOutcome, _ context: inout InterceptorContext
    ) throws -> InterceptorDecision {
        switch step {
        case .now(let interceptor): return try decideNow(interceptor, outcome, &context)
        case .inline(let interceptor): return try interceptor.decideNow(outcome, context: &context)
        case .waiting: preconditionFailure("a step that may wait runs in a task")
        }
    }

    /// The synchronous `prepare` of `interceptor` (from a synchronous context, where the
    /// `async` one of ``Interceptor`` is not a candidate).
    static func prepareNow(
        _ interceptor: any SynchronousInterceptor, _ request: inout HTTPRequest, _ context: inout InterceptorContext
    ) throws {
        try interceptor.prepare(&request, context: &context)
    }

    /// The synchronous `decide` of `interceptor`.
    static func decideNow(
        _ interceptor: any SynchronousInterceptor, _ outcome: AttemptOutcome, _ context: inout InterceptorContext
    ) throws -> InterceptorDecision {
        try interceptor.decide(outcome, context: &context)
    }
}
