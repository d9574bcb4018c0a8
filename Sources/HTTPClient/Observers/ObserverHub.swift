import Foundation

/// Fans events out to observers: one queue and one draining task each.
///
/// Waking an observer's task costs a thread switch, more than the rest of a small
/// request's client-side work. So a drain that has just delivered events waits a moment
/// (``coalescingInterval``) before it looks again: under load it wakes about once per
/// interval and delivers what many calls queued meanwhile, instead of waking once per
/// batch. An idle drain is woken by the first batch at once.
final class ObserverHub: Sendable {
    /// How long a drain lets events gather after delivering some.
    static let coalescingInterval = Duration.milliseconds(50)

    private let drains: [ObserverDrain]

    init(_ observers: [any ClientObserver]) {
        drains = observers.map { ObserverDrain($0) }
    }

    deinit {
        for drain in drains { drain.close() }
    }

    var isEmpty: Bool { drains.isEmpty }

    func emit(_ events: [ClientEvent]) {
        for drain in drains { drain.append(events) }
    }
}

/// The queue of one observer and the task that delivers it.
///
/// Batches are queued as the arrays they came in, and events are moved out of them one
/// by one when delivered: no event is copied on its way (a copy retains every request and
/// response it carries, on two threads).
///
/// `@unchecked Sendable`: `pending`, `waiter` and `closed` are read and written under `lock`.
final class ObserverDrain: @unchecked Sendable {
    private let lock = NSLock()
    private var pending: [[ClientEvent]] = []
    private var waiter: CheckedContinuation<Void, Never>?
    private var closed = false

    init(_ observer: any ClientObserver) {
        Task.detached { [self] in await run(observer) }
    }

    /// Queues `events`, waking the drain if it is idle.
    func append(_ events: [ClientEvent]) {
        lock.lock()
        pending.append(events)
        let waiter = self.waiter
        self.waiter = nil
        lock.unlock()
        waiter?.resume()
    }

    /// Ends the drain once it has delivered what is queued.
    func close() {
        lock.lock()
        closed = true
        let waiter = self.waiter
        self.waiter = nil
        lock.unlock()
        waiter?.resume()
    }

    private func run(_ observer: any ClientObserver) async {
        while var batches = await next() {
            // Reversed, so that `popLast` moves the events out in order.
            batches.reverse()
            while var batch = batches.popLast() {
                batch.reverse()
                while let event = batch.popLast() { await observer.receive(event) }
            }
            try? await Task.sleep(for: ObserverHub.coalescingInterval)
        }
    }

    /// The queued batches, waiting for some; `nil` once closed and empty.
    private func next() async -> [[ClientEvent]]? {
        while true {
            switch take() {
            case .events(let batch): return batch
            case .closed: return nil
            case .empty: break
            }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                park(continuation)
            }
        }
    }

    private enum Taken {
        case events([[ClientEvent]])
        case closed
        case empty
    }

    private func take() -> Taken {
        lock.withLock {
            if !pending.isEmpty {
                defer { pending = [] }
                return .events(pending)
            }
            return closed ? .closed : .empty
        }
    }

    /// Keeps `continuation` for the next `append` or `close`, or resumes it when one came meanwhile.
    private func park(_ continuation: CheckedContinuation<Void, Never>) {
        lock.lock()
        if pending.isEmpty && !closed {
            waiter = continuation
            lock.unlock()
        } else {
            lock.unlock()
            continuation.resume()
        }
    }
}
