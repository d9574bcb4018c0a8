import Foundation
import HTTPCore

/// Enforces deadlines with a single dispatch timer: a client's attempt timeouts (for
/// transports that do not enforce deadlines) and ``URLSessionTransport``'s own.
///
/// With ``run(timeout:onTimeout:_:)`` an attempt runs in a task of its own and registers its
/// deadline here; when the deadline passes before the attempt ends, its task is cancelled
/// and the attempt reports a timeout. ``schedule(at:_:)`` registers any action instead. One
/// timer per scheduler is set for the earliest pending deadline, so an attempt costs a lock
/// and a heap insertion, not a timer of its own (attempts almost always end long before
/// their deadline, and the timer is then just set again).
///
/// The timer fires on a dispatch queue, not in a task: a deadline passes on time even
/// while every thread of Swift's cooperative pool is busy or blocked.
///
/// `@unchecked Sendable`: `heap`, `timer`, `wakeAt` and every entry's `state` are only
/// read and written while `lock` is held.
final class DeadlineScheduler: @unchecked Sendable {
    /// One registered attempt.
    final class Entry: @unchecked Sendable {
        enum State {
            case pending
            case finished
            case fired
        }

        let deadline: ContinuousClock.Instant
        /// The action; dropped once the entry is finished or fired, so a finished entry
        /// that waits in the heap holds nothing the action captured. Guarded by the
        /// scheduler's lock.
        var cancel: (@Sendable () -> Void)?
        // Guarded by the scheduler's lock.
        var state = State.pending

        init(deadline: ContinuousClock.Instant, cancel: @escaping @Sendable () -> Void) {
            self.deadline = deadline
            self.cancel = cancel
        }
    }

    private let lock = NSLock()
    private var heap: [Entry] = []
    private var timer: (any DispatchSourceTimer)?
    private var wakeAt: ContinuousClock.Instant?

    /// Where timers fire; shared by all schedulers, whose work there takes microseconds.
    private static let queue = DispatchQueue(label: "Heron.DeadlineScheduler")

    deinit {
        timer?.cancel()
    }

    /// Runs `operation` in its own task, cancelling it at `timeout`.
    /// - Throws: `onTimeout()` when the deadline cancelled the operation; otherwise what
    ///   the operation throws (`CancellationError` when the caller's task is cancelled).
    func run<Result: Sendable>(
        timeout: Duration, onTimeout: () -> any Error, _ operation: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        let task = Self.start(operation)
        let entry = register(Entry(deadline: .now + timeout) { task.cancel() })
        do {
            let result = try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
            _ = finish(entry)
            return result
        } catch {
            if finish(entry) && !Task.isCancelled { throw onTimeout() }
            throw error
        }
    }

    /// Runs `operation` in a task of its own and returns its result, unless `timeout` passes
    /// or the caller's task is cancelled first: then this throws `onTimeout()` or
    /// `CancellationError` at once, without waiting for the operation, whose task is
    /// cancelled and whose result is dropped whenever it ends. For code the client does not
    /// control (interceptors), which may not heed cancellation.
    ///
    /// The operation starts on the current thread; when it ends before its first suspension
    /// (most interceptors do), no deadline is registered and nothing waits.
    func race<Result: Sendable>(
        timeout: Duration?, onTimeout: @escaping @Sendable () -> any Error,
        _ operation: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        // The operation runs in a task of its own, which does not inherit the caller's
        // cancellation: a caller already cancelled does not start it.
        try Task.checkCancellation()
        let outcome = RaceOutcome<Result>()
        let task = Self.start {
            do {
                outcome.end(.success(try await operation()))
            } catch {
                outcome.end(.failure(error))
            }
        }
        if let ended = outcome.takeIfEnded() { return try ended.get() }
        var entry: Entry?
        if let timeout = Client.finite(timeout) {
            // The outcome is decided before the task is cancelled: a cancelled operation may
            // end at once, with a result of its own, and must not win the race.
            entry = schedule(at: .now + timeout) {
                outcome.end(.failure(onTimeout()))
                task.cancel()
            }
        }
        defer { if let entry { finish(entry) } }
        return try await withTaskCancellationHandler {
            try await outcome.wait()
        } onCancel: {
            outcome.end(.failure(CancellationError()))
            task.cancel()
        }
    }

    /// Starts `operation` in a task of its own, running it on the current thread up to its
    /// first suspension where the platform can (no hop to another thread just to begin).
    static func start<Result: Sendable>(
        _ operation: @escaping @Sendable () async throws -> Result
    ) -> Task<Result, any Error> {
        #if canImport(Darwin)
        if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
            return Task.immediate { try await operation() }
        }
        return Task { try await operation() }
        #else
        return Task.immediate { try await operation() }
        #endif
    }

    /// Calls `onDeadline` once when `deadline` passes before ``finish(_:)`` is called with
    /// the entry returned; ``finish(_:)`` releases `onDeadline`, so it may capture strongly.
    /// It runs on the timer's queue, which every scheduler shares: it must return at once
    /// (resume, cancel, hand over), as task cancellation handlers must.
    func schedule(at deadline: ContinuousClock.Instant, _ onDeadline: @escaping @Sendable () -> Void) -> Entry {
        register(Entry(deadline: deadline, cancel: onDeadline))
    }

    /// Marks `entry` finished; returns whether its deadline had already fired.
    @discardableResult
    func finish(_ entry: Entry) -> Bool {
        // The action is released after unlocking: what it holds may run a deinit.
        let (fired, action): (Bool, (@Sendable () -> Void)?) = lock.withLock {
            if entry.state == .fired { return (true, nil) }
            entry.state = .finished
            defer { entry.cancel = nil }
            return (false, entry.cancel)
        }
        withExtendedLifetime(action) {}
        return fired
    }

    private func register(_ entry: Entry) -> Entry {
        lock.withLock {
            dropFinishedTop()
            push(entry)
            if wakeAt.map({ entry.deadline < $0 }) ?? true { setTimerLocked(for: entry.deadline) }
        }
        return entry
    }

    /// Sets the timer to fire at `deadline`, the earliest pending one. Call with the lock held.
    private func setTimerLocked(for deadline: ContinuousClock.Instant) {
        wakeAt = deadline
        let timer: any DispatchSourceTimer
        if let existing = self.timer {
            timer = existing
        } else {
            timer = DispatchSource.makeTimerSource(queue: Self.queue)
            timer.setEventHandler { [weak self] in self?.fire() }
            timer.activate()
            self.timer = timer
        }
        // At most a year ahead: DispatchTime counts nanoseconds in 64 bits.
        let (seconds, attoseconds) = max(.zero, deadline - .now).components
        let nanoseconds = Int(min(seconds, 31_536_000)) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), leeway: .milliseconds(1))
    }

    /// The timer fired: runs the entries past their deadline and sets the timer for the
    /// next one, if any.
    private func fire() {
        let due: [@Sendable () -> Void] = lock.withLock {
            let now = ContinuousClock.now
            var due: [@Sendable () -> Void] = []
            while let top = heap.first, top.state != .pending || top.deadline <= now {
                if top.state == .pending {
                    top.state = .fired
                    if let cancel = top.cancel { due.append(cancel) }
                    top.cancel = nil
                }
                popTop()
            }
            if let next = heap.first?.deadline {
                setTimerLocked(for: next)
            } else {
                wakeAt = nil
            }
            return due
        }
        for cancel in due { cancel() }
    }

    private func dropFinishedTop() {
        while let top = heap.first, top.state != .pending { popTop() }
    }

    // MARK: Binary min-heap by deadline

    private func push(_ entry: Entry) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private func popTop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].deadline < heap[smallest].deadline { smallest = left }
            if right < heap.count, heap[right].deadline < heap[smallest].deadline { smallest = right }
            if smallest == parent { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}

/// The first of the outcomes of a ``DeadlineScheduler/race(timeout:onTimeout:_:)``
/// (the operation's result, its timeout, its caller's cancellation), handed to the one
/// waiter whether it waits before or after it comes.
final class RaceOutcome<Result: Sendable>: Sendable {
    private enum State {
        case running
        case waiting(CheckedContinuation<Result, any Error>)
        case ended(Swift.Result<Result, any Error>)
        case delivered
    }

    private let state = Locked(State.running)

    /// Records `result` unless an outcome came first; resumes the waiter if there is one.
    func end(_ result: Swift.Result<Result, any Error>) {
        let waiter: CheckedContinuation<Result, any Error>? = state.withLock { state in
            switch state {
            case .running:
                state = .ended(result)
                return nil
            case .waiting(let continuation):
                state = .delivered
                return continuation
            case .ended, .delivered:
                return nil
            }
        }
        waiter?.resume(with: result)
    }

    /// The outcome, when it came before anyone waited.
    func takeIfEnded() -> Swift.Result<Result, any Error>? {
        state.withLock { state in
            guard case .ended(let result) = state else { return nil }
            state = .delivered
            return result
        }
    }

    /// Waits for the outcome (at once when it has come).
    func wait() async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Swift.Result<Result, any Error>? = state.withLock { state in
                if case .ended(let result) = state {
                    state = .delivered
                    return result
                }
                state = .waiting(continuation)
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}
