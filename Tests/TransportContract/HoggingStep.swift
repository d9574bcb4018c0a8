import Foundation

/// Keeps a step that holds a transport's shared machinery for seconds apart from the steps
/// that a stall of seconds would fail.
///
/// URLSession on Linux runs every session of the process on one serial work queue, and a
/// response head of 100,000 fields keeps that queue busy for seconds: swift-corelibs-foundation
/// copies the lines read so far for every line it adds (about 3 s on an idle 2-core machine,
/// 5 to 7 s with both cores busy). Every URLSession transfer of the process waits meanwhile, so
/// a 4 s deadline passes before a head the server sent at once, and a 15 s watchdog can expire
/// on a `401` that is answered in milliseconds. No transport can be faster than the queue it
/// is given, so the suite keeps the two apart: such a step runs ``alone(_:)``, and a step
/// whose subject is a time limit that such a stall would break runs ``timed(_:)``, beside
/// any other step but never beside one that runs alone. A time limit whose subject is the
/// transport's own clock (the idle timeout must fire while the queue is held) is not wrapped.
enum HoggingStep {
    private static let gate = Gate()

    /// Runs `body` while no ``timed(_:)`` step runs; timed steps wait meanwhile.
    /// - Parameter body: The step that holds shared machinery.
    /// - Returns: What `body` returns.
    static func alone<T>(_ body: () async throws -> T) async rethrows -> T {
        await gate.enterAlone()
        defer { gate.leaveAlone() }
        return try await body()
    }

    /// Runs `body` beside other steps, but not while a step runs ``alone(_:)``.
    ///
    /// Not to be nested: a timed step within another would wait behind a step alone that
    /// waits for the outer one.
    /// - Parameter body: The step with a time limit.
    /// - Returns: What `body` returns.
    static func timed<T>(_ body: () async throws -> T) async rethrows -> T {
        await gate.enterTimed()
        defer { gate.leaveTimed() }
        return try await body()
    }

    /// A readers–writer gate whose writers (steps alone) go first once they wait.
    ///
    /// `@unchecked Sendable`: every stored property is read and written under `lock`.
    private final class Gate: @unchecked Sendable {
        private let lock = NSLock()
        private var timedRunning = 0
        private var aloneRunning = false
        private var aloneWaiting: [CheckedContinuation<Void, Never>] = []
        private var timedWaiting: [CheckedContinuation<Void, Never>] = []

        func enterAlone() async {
            await withCheckedContinuation { continuation in
                let now = lock.withLock {
                    guard !aloneRunning, timedRunning == 0 else {
                        aloneWaiting.append(continuation)
                        return false
                    }
                    aloneRunning = true
                    return true
                }
                if now { continuation.resume() }
            }
        }

        func leaveAlone() {
            let (nextAlone, nextTimed) = lock.withLock {
                () -> (CheckedContinuation<Void, Never>?, [CheckedContinuation<Void, Never>]) in
                if !aloneWaiting.isEmpty { return (aloneWaiting.removeFirst(), []) }
                aloneRunning = false
                defer { timedWaiting = [] }
                timedRunning += timedWaiting.count
                return (nil, timedWaiting)
            }
            nextAlone?.resume()
            for continuation in nextTimed { continuation.resume() }
        }

        func enterTimed() async {
            await withCheckedContinuation { continuation in
                let now = lock.withLock {
                    guard !aloneRunning, aloneWaiting.isEmpty else {
                        timedWaiting.append(continuation)
                        return false
                    }
                    timedRunning += 1
                    return true
                }
                if now { continuation.resume() }
            }
        }

        func leaveTimed() {
            let next = lock.withLock { () -> CheckedContinuation<Void, Never>? in
                timedRunning -= 1
                guard timedRunning == 0, !aloneWaiting.isEmpty else { return nil }
                aloneRunning = true
                return aloneWaiting.removeFirst()
            }
            next?.resume()
        }
    }
}
