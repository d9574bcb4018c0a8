import Dispatch
import Foundation

/// Bounds an operation by a timeout: runs it in its own task, cancels that task when the
/// timeout expires, and reports the expiry as a timeout rather than a cancellation.
///
/// A Dispatch timer is much cheaper per call than racing the operation against a second
/// sleeping task in a task group, and this runs for every attempt.
///
/// `@unchecked Sendable`: `fired` is only read and written while `lock` is held.
final class AttemptDeadline: @unchecked Sendable {
    private let lock = NSLock()
    private var fired = false

    private var hasFired: Bool { lock.withLock { fired } }
    private func markFired() { lock.withLock { fired = true } }

    /// Runs `operation`, cancelling it after `timeout`.
    /// - Throws: `onTimeout()` when the timeout cancelled the operation; otherwise what
    ///   the operation throws (`CancellationError` when the caller's task is cancelled).
    static func run<Result: Sendable>(
        timeout: Duration, onTimeout: () -> any Error, _ operation: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        let deadline = AttemptDeadline()
        let task = Task { try await operation() }
        let timer = DispatchWorkItem {
            deadline.markFired()
            task.cancel()
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + dispatchInterval(timeout), execute: timer)
        defer { timer.cancel() }
        do {
            return try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
        } catch {
            if deadline.hasFired && !Task.isCancelled { throw onTimeout() }
            throw error
        }
    }

    private static func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return .nanoseconds(0) }
        guard seconds < Int64(Int.max / 1_000_000_000) - 1 else { return .never }
        return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}
