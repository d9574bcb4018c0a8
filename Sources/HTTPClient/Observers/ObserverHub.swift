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
/// The queue is bounded: while it holds ``limit`` events, new ones are dropped and counted,
/// and the next event delivered says how many (``ClientEvent/eventsDroppedBefore``), so a
/// stalled observer cannot hold every finished call in memory.
///
final class ObserverDrain: Sendable {
    /// The most events queued for one observer.
    static let defaultLimit = 10_000

    /// What the lock guards.
    private struct Queue {
        var pending: [[ClientEvent]] = []
        var pendingCount = 0
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
    func append(_ events: [ClientEvent]) {
        let limit = self.limit
        let waiter: CheckedContinuation<Void, Never>? = queue.withLock { queue in
            guard queue.pendingCount + events.count <= limit else {
                queue.dropped += events.count
                return nil
            }
            var events = events
            if queue.dropped > 0, !events.isEmpty {
                events[0].eventsDroppedBefore = queue.dropped
                queue.dropped = 0
            }
            queue.pendingCount += events.count
            queue.pending.append(events)
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
        queue.withLock { queue in
            if !queue.pending.isEmpty {
                defer {
                    queue.pending = []
                    queue.pendingCount = 0
                }
                return .events(queue.pending)
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
