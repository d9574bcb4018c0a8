import NIOConcurrencyHelpers
import NIOCore

/// The time limits of one transfer that AsyncHTTPClient does not enforce itself: a deadline
/// that also covers the body, and the idle timeout. When one passes, the guard records why
/// and cancels the task doing the transfer's work (``cancelling(_:)``), which then fails with
/// ``reason``.
///
/// Activity (``touch()``) pushes the idle limit back; while the transfer waits for its
/// body's reader (``pause()``) it is not idle. A ``Watchdog`` checks the guard.
final class TransferGuard: Sendable {
    /// Why the guard ended its transfer.
    enum Reason: Sendable, Hashable {
        /// The deadline passed.
        case deadline
        /// The head's deadline passed before the head arrived.
        case head
        /// Nothing moved for the idle timeout.
        case idle
    }

    private struct State {
        var lastActivity: NIODeadline
        var paused = 0
        var headArrived = false
        var reason: Reason?
        var cancel: (@Sendable () -> Void)?
    }

    /// When the transfer must have ended, if ever.
    let deadline: NIODeadline?
    /// The longest the transfer may go without activity, if limited.
    let idleTimeout: TimeAmount?
    /// When the response head must have arrived, if the guard enforces it (``headArrived()``
    /// ends it).
    let headDeadline: NIODeadline?
    /// Whether the idle timeout bounds the wait for the head too: when no deadline does.
    let idleBeforeHead: Bool
    private let state: NIOLockedValueBox<State>

    /// A guard with at least one of `deadline`, `idleTimeout` and `headDeadline`, the idle time
    /// counted from now.
    init(
        deadline: NIODeadline?, idleTimeout: TimeAmount?, headDeadline: NIODeadline? = nil, idleBeforeHead: Bool = true,
        now: NIODeadline = .now()
    ) {
        self.deadline = deadline
        self.idleTimeout = idleTimeout
        self.headDeadline = headDeadline
        self.idleBeforeHead = idleBeforeHead
        state = NIOLockedValueBox(State(lastActivity: now))
    }

    /// Why the guard ended the transfer, if it did.
    var reason: Reason? { state.withLockedValue { $0.reason } }

    /// When a limit passes as things stand: the deadline, or the idle timeout after the last
    /// activity unless the transfer is paused for its reader.
    var due: NIODeadline { state.withLockedValue { due(of: $0) } }

    /// When a ``Watchdog`` must look at this guard again, from `now`: when it is due, or,
    /// while it is paused, one idle timeout from now (it may have resumed by then, and its
    /// idle limit counts from that moment).
    func wakeUp(now: NIODeadline) -> NIODeadline {
        state.withLockedValue { state in
            guard let idleTimeout, state.paused > 0 else { return due(of: state) }
            return min(deadline ?? .distantFuture, now + idleTimeout, headDue(of: state))
        }
    }

    private func headDue(of state: State) -> NIODeadline {
        guard let headDeadline, !state.headArrived else { return .distantFuture }
        return headDeadline
    }

    private func due(of state: State) -> NIODeadline {
        var due = min(deadline ?? .distantFuture, headDue(of: state))
        if let idleTimeout, state.paused == 0, state.headArrived || idleBeforeHead {
            due = min(due, state.lastActivity + idleTimeout)
        }
        return due
    }

    /// The response head arrived: its deadline no longer applies, the idle timeout does.
    func headArrived() {
        state.withLockedValue { $0.headArrived = true }
    }

    /// Bytes moved: the idle time starts again. (Nothing to do without an idle timeout.)
    func touch(now: @autoclosure () -> NIODeadline = .now()) {
        guard idleTimeout != nil else { return }
        let now = now()
        state.withLockedValue { $0.lastActivity = now }
    }

    /// The transfer waits for its body's reader: it is not idle until ``resume()``.
    func pause() {
        guard idleTimeout != nil else { return }
        state.withLockedValue { $0.paused += 1 }
    }

    /// The reader took what the transfer waited to hand over: the idle time starts again.
    func resume(now: @autoclosure () -> NIODeadline = .now()) {
        guard idleTimeout != nil else { return }
        let now = now()
        state.withLockedValue { state in
            state.paused -= 1
            state.lastActivity = now
        }
    }

    /// Makes `cancel` what ends the transfer's current work; called at once if a limit
    /// passed already.
    func cancelling(_ cancel: @escaping @Sendable () -> Void) {
        let ended = state.withLockedValue { state in
            state.cancel = cancel
            return state.reason != nil
        }
        if ended { cancel() }
    }

    /// Ends the transfer if a limit passed by `now`.
    /// - Returns: Whether it did (or had already).
    @discardableResult
    func expire(now: NIODeadline) -> Bool {
        let (expired, cancel): (Bool, (@Sendable () -> Void)?) = state.withLockedValue { state in
            if state.reason != nil { return (true, nil) }
            guard due(of: state) <= now else { return (false, nil) }
            if deadline.map({ $0 <= now }) == true {
                state.reason = .deadline
            } else if headDue(of: state) <= now {
                state.reason = .head
            } else {
                state.reason = .idle
            }
            return (true, state.cancel)
        }
        cancel?()
        return expired
    }
}

/// One timer for every guarded transfer of a transport, rather than one per transfer: a
/// transfer registers its ``TransferGuard`` (a lock and a dictionary entry); the timer is set
/// again only when the new guard is due before it, which transfers with the same timeout
/// never are. When it fires it ends the guards that are due and sets itself for the next
/// (for a guard paused for its reader, one idle timeout later, to see whether it resumed).
final class Watchdog: Sendable {
    private struct State {
        var watched: [ObjectIdentifier: TransferGuard] = [:]
        var armed: NIODeadline?
        var timer: Scheduled<Void>?
    }

    private let eventLoop: any EventLoop
    private let state = NIOLockedValueBox(State())

    /// A watchdog whose timer runs on `eventLoop`.
    init(eventLoop: any EventLoop) { self.eventLoop = eventLoop }

    /// Guards being watched.
    var count: Int { state.withLockedValue { $0.watched.count } }

    /// Watches `guard` until ``unwatch(_:)``.
    func watch(_ guard: TransferGuard) {
        let due = `guard`.wakeUp(now: .now())
        let arm: NIODeadline? = state.withLockedValue { state in
            state.watched[ObjectIdentifier(`guard`)] = `guard`
            if let armed = state.armed, armed <= due { return nil }
            state.armed = due
            return due
        }
        if let arm { schedule(at: arm) }
    }

    /// Stops watching `guard` (its transfer ended). The timer stays set: it fires for nothing
    /// at worst, and sets itself for the next guard then.
    func unwatch(_ guard: TransferGuard) {
        state.withLockedValue { _ = $0.watched.removeValue(forKey: ObjectIdentifier(`guard`)) }
    }

    private func schedule(at due: NIODeadline) {
        let timer = eventLoop.scheduleTask(deadline: due) { [weak self] () -> Void in self?.check(now: .now()) }
        let superseded: Scheduled<Void>? = state.withLockedValue { state in
            // A guard due earlier may have set the timer meanwhile: this one is not needed.
            guard state.armed == due else { return timer }
            defer { state.timer = timer }
            return state.timer
        }
        superseded?.cancel()
    }

    /// Ends the guards due by `now` and sets the timer for the earliest of the rest.
    func check(now: NIODeadline) {
        var expired: [TransferGuard] = []
        let next: NIODeadline? = state.withLockedValue { state in
            state.armed = nil
            state.timer = nil
            var next: NIODeadline?
            for (key, watched) in state.watched {
                if watched.due <= now {
                    expired.append(watched)
                    state.watched[key] = nil
                } else {
                    let wakeUp = watched.wakeUp(now: now)
                    next = min(next ?? wakeUp, wakeUp)
                }
            }
            state.armed = next
            return next
        }
        if let next { schedule(at: next) }
        for watched in expired { watched.expire(now: now) }
    }
}
