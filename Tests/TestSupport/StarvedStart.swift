/// Tries again a step that timed out because the machine was starved, not because the code
/// under test was slow.
///
/// The suite starts its tests together on a cooperative pool of one thread per core, and
/// for the first seconds (8 to 13 s on a 2-core machine in a cold run) many tests compute
/// without awaiting; a step raced against a timer of a few seconds can then miss it while
/// the timer, on a thread of its own, does not. A test whose subject is not that time limit
/// wraps the step in ``retryingTimeouts(when:run:)``: three timeouts in a row still fail it.
public enum StarvedStart {
    /// Runs `body` up to three times while it throws an error that `isTimeout` accepts.
    /// - Parameters:
    ///   - isTimeout: Whether an error is a timeout worth another try.
    ///   - body: The step.
    /// - Returns: What the first try that did not time out returned.
    /// - Throws: The third timeout, or the first other error.
    public static func retryingTimeouts<T>(
        when isTimeout: (any Error) -> Bool, run body: () async throws -> T
    ) async throws -> T {
        for _ in 1..<3 {
            do {
                return try await body()
            } catch let error where isTimeout(error) {
                continue
            }
        }
        return try await body()
    }
}
