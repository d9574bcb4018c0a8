import Foundation

/// Runs blocking or long synchronous work on a thread of its own instead of one of Swift's
/// cooperative pool.
///
/// The suite starts its tests together on a pool with one thread per core. A test that
/// computes for seconds without awaiting (building thousands of cases, waiting for a child
/// process) holds a pool thread all that time; with two cores, two such tests stall every
/// other test, and a test that races its work against a timer then times out for no fault
/// of its own. Work run here leaves the pool free; the caller awaits the result.
public enum DedicatedThread {
    /// Runs `work` on a new thread and returns what it returns.
    /// - Parameter work: Synchronous work; it must not record test issues (it runs outside
    ///   the test's task): return what to check, and check it in the test.
    /// - Returns: What `work` returned.
    /// - Throws: What `work` threw.
    public static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }
}
