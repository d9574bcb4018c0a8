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

    func emit(_ events: EventBatch) {
        for drain in drains { drain.append(events) }
    }
}

/// The queue of one observer and the task that delivers it.
///
/// Events are queued in one array, which the drain takes whole and gives back emptied (its
/// storage kept), so that in the steady state queueing a call's events allocates nothing.
///
/// The queue is bounded: while it holds ``limit`` events, new ones are dropped and counted,
/// and the next event delivered says how many (``ClientEvent/eventsDroppedBefore``), so a
/// stalled observer cannot hold every finished call in memory.
///
final class ObserverDrain: Sendable {
    /// The most events queued for one observer.
    static let defaultLimit = 10_000

    /// What the lock guards.
    private struct Queue {
        var pending: [ClientEvent] = []
        /// The array the drain delivered last, emptied, its storage kept for reuse.
        var spare: [ClientEvent] = []
        var dropped = 0
        var waiter: CheckedContinuation<Void, Never>?
        var closed = false
    }

    private let limit: Int
    private let queue = Locked(Queue())

    init(_ observer: any ClientObserver, limit: Int = ObserverDrain.defaultLimit) {
        self.limit = limit
        Task.detached { [self] in await run(observer) }
    }

    /// Queues `events`, waking the drain if it is idle; drops them, counted, when full.
    func append(_ events: EventBatch) {
        let limit = self.limit
        let waiter: CheckedContinuation<Void, Never>? = queue.withLock { queue in
            let count = events.count
            guard queue.pending.count + count <= limit else {
                queue.dropped += count
                return nil
            }
            events.forEach(droppedBefore: queue.dropped) { queue.pending.append($0) }
            queue.dropped = 0
            defer { queue.waiter = nil }
            return queue.waiter
        }
        waiter?.resume()
    }

    /// Ends the drain once it has delivered what is queued.
    func close() {
        let waiter: CheckedContinuation<Void, Never>? = queue.withLock { queue in
            queue.closed = true
            defer { queue.waiter = nil }
            return queue.waiter
        }
        waiter?.resume()
    }

    private func run(_ observer: any ClientObserver) async {
        while var events = await next() {
            for event in events { await observer.receive(event) }
            events.removeAll(keepingCapacity: true)
            recycle(events)
            try? await Task.sleep(for: ObserverHub.coalescingInterval)
        }
    }

    /// Keeps `events`, emptied, as the next queue's storage.
    private func recycle(_ events: [ClientEvent]) {
        queue.withLock { queue in
            if queue.spare.capacity < events.capacity { queue.spare = events }
        }
    }

    /// The queued events, waiting for some; `nil` once closed and empty.
    private func next() async -> [ClientEvent]? {
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
        case events([ClientEvent])
        case closed
        case empty
    }

    private func take() -> Taken {
        queue.withLock { queue in
            if !queue.pending.isEmpty {
                let events = queue.pending
                queue.pending = queue.spare
                queue.spare = []
                return .events(events)
            }
            return queue.closed ? .closed : .empty
        }
    }

    /// Keeps `continuation` for the next `append` or `close`, or resumes it when one came meanwhile.
    private func park(_ continuation: CheckedContinuation<Void, Never>) {
        let parked = queue.withLock { queue in
            guard queue.pending.isEmpty && !queue.closed else { return false }
            queue.waiter = continuation
            return true
        }
        if !parked { continuation.resume() }
    }
}
