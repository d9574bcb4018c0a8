import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Runs a test on threads of its own at a low CPU priority, away from Swift's cooperative
/// pool: for tests that compute for seconds (thousands of generated cases, megabyte inputs
/// in a debug build).
///
/// The suite starts its tests together on a cooperative pool with one thread per core, and
/// a job on that pool runs until it awaits. On a 2-core machine two such tests held both pool
/// threads for seconds at a time, every other test's continuations waited behind them, and
/// tests that bound a wait on the wall clock (a timeout that must fire, a cancellation that
/// must end a call) failed for no fault of their own. Here the test's own code, and every
/// child task it starts, runs on ``BackgroundExecutor/shared``: the kernel shares the CPU
/// among threads, and these threads yield to the pool's.
///
/// ```swift
/// @Test(.heavyWork) func thousandsOfCases() { ... }
/// @Suite(.heavyWork) struct PeerTests { ... }
/// ```
public struct HeavyWorkTrait: TestTrait, SuiteTrait, TestScoping {
    /// Applies to every test of a suite that has it.
    public var isRecursive: Bool { true }

    /// Runs the test with ``BackgroundExecutor/shared`` as its task executor preference.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A suite's scope is provided once for the suite and once for each test; only the
        // test's own run needs it.
        guard testCase != nil || !test.isSuite else { return try await function() }
        try await withTaskExecutorPreference(BackgroundExecutor.shared) { try await function() }
    }
}

extension Trait where Self == HeavyWorkTrait {
    /// Runs the test (or every test of the suite) on low-priority threads of its own; see
    /// ``HeavyWorkTrait``.
    public static var heavyWork: Self { HeavyWorkTrait() }
}

/// A task executor of two threads at nice 10, for ``HeavyWorkTrait``.
///
/// `@unchecked Sendable`: `jobs` is read and written under `condition`.
public final class BackgroundExecutor: TaskExecutor, @unchecked Sendable {
    /// The executor the heavy tests share.
    public static let shared = BackgroundExecutor(threads: 2)

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var next = 0

    private init(threads: Int) {
        for index in 0..<threads {
            let thread = Thread { [self] in
                lowerPriority()
                work()
            }
            thread.name = "Heron.tests.heavy.\(index)"
            thread.start()
        }
    }

    /// Queues `job`; a free thread runs it.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while next == jobs.count { condition.wait() }
            let job = jobs[next]
            next += 1
            if next == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                next = 0
            }
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    /// Lowers the calling thread's priority: on Linux the nice value is per thread, and
    /// `PRIO_PROCESS` with an id of 0 names the calling thread alone.
    private func lowerPriority() {
        #if os(Linux)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        #endif
    }
}
