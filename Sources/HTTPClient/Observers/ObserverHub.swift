/// Fans events out to observers, one unbounded stream and one draining task each.
///
/// Events travel in batches (see `EventBuffer`): one yield, and at most one wake-up of
/// an observer's task, per batch.
final class ObserverHub: Sendable {
    private let continuations: [AsyncStream<[ClientEvent]>.Continuation]

    init(_ observers: [any ClientObserver]) {
        var continuations: [AsyncStream<[ClientEvent]>.Continuation] = []
        continuations.reserveCapacity(observers.count)
        for observer in observers {
            let (stream, continuation) = AsyncStream.makeStream(of: [ClientEvent].self, bufferingPolicy: .unbounded)
            Task.detached {
                for await batch in stream {
                    for event in batch { await observer.receive(event) }
                }
            }
            continuations.append(continuation)
        }
        self.continuations = continuations
    }

    deinit {
        for continuation in continuations { continuation.finish() }
    }

    var isEmpty: Bool { continuations.isEmpty }

    func emit(_ events: [ClientEvent]) {
        for continuation in continuations { continuation.yield(events) }
    }
}
