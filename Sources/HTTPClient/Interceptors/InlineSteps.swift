import HTTPCore

/// An interceptor of this package whose steps never wait for anything (a fixed field, a fixed
/// token, a check of the status, a log line to a sink): nothing in them can outlast a timeout
/// or miss a cancellation, so the client runs them inline instead of in the task it races
/// against the attempt's timeout for a step that may hang.
protocol InlineSteps {
    /// Whether this interceptor's `prepare` and `decide` never suspend.
    var stepsRunInline: Bool { get }
}

extension Array where Element == any Interceptor {
    /// Whether every interceptor's steps run inline (see ``InlineSteps``).
    var stepsRunInline: Bool { allSatisfy { ($0 as? any InlineSteps)?.stepsRunInline ?? false } }
}

extension BearerAuth: InlineSteps {}
extension BasicAuth: InlineSteps { var stepsRunInline: Bool { true } }
extension ResponseValidation: InlineSteps { var stepsRunInline: Bool { true } }
extension Logging: InlineSteps { var stepsRunInline: Bool { true } }
extension IdempotencyKey: InlineSteps { var stepsRunInline: Bool { true } }
