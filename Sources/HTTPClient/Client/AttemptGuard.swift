import Foundation
import HTTPCore

/// The limits of one attempt that its transport does not enforce itself
/// (``ClientTransport/enforcedLimits``), enforced by the client: the response head's deadline,
/// the idle timeout of every wait for a body chunk, and the call's deadline over the whole
/// body.
///
/// The attempt runs in a task of its own (``run(_:)``), which the guard cancels when a limit
/// passes; the attempt then fails with ``ClientError/Code/timedOut`` naming the limit. One
/// entry of the client's ``DeadlineScheduler`` at a time watches it, set again when it fires
/// early (a chunk came meanwhile), so a chunk costs a lock and no timer. Only the time the
/// body's reader waits for a chunk counts as idle: a reader slow to write what it took (a
/// slow disk) is not a silent server.
final class AttemptGuard: ChunkWatcher, Sendable {
    /// Which limit ended the attempt.
    enum Reason: Sendable {
        case head, idle, body
    }

    private struct State {
        /// Whether the final response head arrived.
        var headArrived = false
        /// Since when the reader waits for bytes; `nil` while it does something else.
        var waitingSince: ContinuousClock.Instant?
        var reason: Reason?
        var ended = false
        var cancel: (@Sendable () -> Void)?
        var entry: DeadlineScheduler.Entry?
    }

    /// The longest wait for the head, if the guard enforces it, and when it ends.
    private let headTimeout: Duration?
    private let headDeadline: ContinuousClock.Instant?
    /// The longest wait for bytes, if the guard enforces it.
    private let idleTimeout: Duration?
    /// When the whole body must have arrived, if the guard enforces it.
    private let bodyDeadline: ContinuousClock.Instant?
    private let scheduler: DeadlineScheduler
    private let request: HTTPRequest
    private let state: Locked<State>

    /// A guard of the given limits, from `start` (the waits for the head count from there).
    init(
        headTimeout: Duration?, idleTimeout: Duration?, bodyDeadline: ContinuousClock.Instant?,
        start: ContinuousClock.Instant, scheduler: DeadlineScheduler, request: HTTPRequest
    ) {
        self.headTimeout = headTimeout
        self.headDeadline = headTimeout.map { start + $0 }
        self.idleTimeout = idleTimeout
        self.bodyDeadline = bodyDeadline
        self.scheduler = scheduler
        self.request = request
        // The wait for the head is the head timeout's; without one, the idle timeout's.
        state = Locked(State(waitingSince: headTimeout == nil ? start : nil))
    }

    /// Runs `operation` (the attempt) in a task of its own, cancelled when a limit passes.
    /// - Throws: ``ClientError/Code/timedOut`` when a limit ended it; otherwise what the
    ///   operation throws (`CancellationError` when the caller's task is cancelled).
    func run<Result: Sendable>(_ operation: @escaping @Sendable () async throws -> Result) async throws -> Result {
        let task = DeadlineScheduler.start(operation)
        state.withLock { $0.cancel = { task.cancel() } }
        check(at: .now)
        let outcome: Swift.Result<Result, any Error>
        do {
            outcome = .success(
                try await withTaskCancellationHandler {
                    try await task.value
                } onCancel: {
                    task.cancel()
                })
        } catch {
            outcome = .failure(error)
        }
        // A limit that passed decides, whatever the operation made of its cancellation: a body
        // source may end quietly when its task is cancelled (an AsyncStream does), and a
        // result cut short is no result.
        if let reason = end() {
            if Task.isCancelled { throw CancellationError() }
            throw timedOut(reason)
        }
        return try outcome.get()
    }

    /// The final response head arrived: from now on only the body's limits apply.
    func headArrived() {
        state.withLock { state in
            state.headArrived = true
            state.waitingSince = nil
        }
    }

    /// Whether the guard times the waits for body chunks.
    var watchesBody: Bool { idleTimeout != nil }

    /// `body`, each wait for its next chunk watched by this guard.
    func watching(_ body: HTTPBody) -> HTTPBody {
        let watched = WatchedChunks(chunks: body.chunks(), watcher: self)
        return HTTPBody(
            length: body.length, iterationBehavior: .single, makeSequence: { watched },
            trailerFields: { body.trailerFields })
    }

    package func waiting() {
        guard idleTimeout != nil else { return }
        let now = ContinuousClock.now
        state.withLock { $0.waitingSince = now }
    }

    package func take(_ chunk: Data) {
        guard idleTimeout != nil else { return }
        state.withLock { $0.waitingSince = nil }
    }

    package func end(failure: (any Error)?) {
        state.withLock { $0.waitingSince = nil }
    }

    /// Ends the limit whose time passed by `now`, or watches again for the next.
    private func check(at now: ContinuousClock.Instant) {
        let (cancel, next): ((@Sendable () -> Void)?, ContinuousClock.Instant?) = state.withLock { state in
            guard !state.ended, state.reason == nil else { return (nil, nil) }
            var due = bodyDeadline
            func earliest(_ instant: ContinuousClock.Instant?) {
                guard let instant else { return }
                due = due.map { min($0, instant) } ?? instant
            }
            if !state.headArrived { earliest(headDeadline) }
            if let idleTimeout {
                // Not waiting now: it cannot end before one idle timeout from now.
                earliest((state.waitingSince ?? now) + idleTimeout)
            }
            guard let due else { return (nil, nil) }
            guard due <= now else { return (nil, due) }
            if let bodyDeadline, bodyDeadline <= now {
                state.reason = .body
            } else if !state.headArrived, let headDeadline, headDeadline <= now {
                state.reason = .head
            } else {
                state.reason = .idle
            }
            return (state.cancel, nil)
        }
        if let cancel {
            cancel()
            return
        }
        guard let next else { return }
        let entry = scheduler.schedule(at: next) { [self] in check(at: .now) }
        // The guard may have ended meanwhile: the new entry is then finished at once.
        let previous: DeadlineScheduler.Entry? = state.withLock { state in
            if state.ended { return entry }
            defer { state.entry = entry }
            return state.entry
        }
        if let previous { scheduler.finish(previous) }
    }

    /// The attempt ended: no limit applies any more. Returns the limit that ended it, if one did.
    private func end() -> Reason? {
        let (reason, entry): (Reason?, DeadlineScheduler.Entry?) = state.withLock { state in
            state.ended = true
            state.cancel = nil
            defer { state.entry = nil }
            return (state.reason, state.entry)
        }
        if let entry { scheduler.finish(entry) }
        return reason
    }

    private func timedOut(_ reason: Reason) -> ClientError {
        let what: String
        switch reason {
        case .head:
            what = "no response within the timeout of \(headTimeout ?? .zero)"
        case .idle:
            what = "no data arrived within the idle timeout of \(idleTimeout ?? .zero)"
        case .body:
            what = "the response did not end before the call's deadline"
        }
        return ClientError(.timedOut, what, request: request)
    }
}
