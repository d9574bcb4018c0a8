import HTTPClient

/// Tries again a step that timed out because the machine was starved, not because the code
/// under test was slow.
///
/// The suite starts its tests together on a cooperative pool of one thread per core, and
/// for the first seconds (8 to 13 s on a 2-core machine in a cold run) many tests compute
/// without awaiting; a step raced against a timer (the timer on a thread of its own) can then
/// miss it. A test whose subject is not that time limit wraps the step in
/// ``retryingTimeouts(_:)``: three timeouts in a row still fail it. Here, beside the contract
/// suite, so that both packages that run the suite have it.
enum StarvedStart {
    /// Runs `body` up to three times while it throws ``ClientError/Code/timedOut``.
    /// - Parameter body: The step.
    /// - Returns: What the first try that did not time out returned.
    /// - Throws: The third timeout, or the first other error.
    static func retryingTimeouts<T>(_ body: () async throws -> T) async throws -> T {
        for _ in 1..<3 {
            do {
                return try await body()
            } catch let error as ClientError where error.code == .timedOut {
                continue
            }
        }
        return try await body()
    }
}
