/// Fans events out to observers, one unbounded stream and one draining task each.
final class ObserverHub: Sendable {
    private let continuations: [AsyncStream<ClientEvent>.Continuation]

    init(_ observers: [any ClientObserver]) {
        var continuations: [AsyncStream<ClientEvent>.Continuation] = []
        continuations.reserveCapacity(observers.count)
        for observer in observers {
            let (stream, continuation) = AsyncStream.makeStream(of: ClientEvent.self, bufferingPolicy: .unbounded)
            Task.detached {
                for await event in stream { await observer.receive(event) }
            }
            continuations.append(continuation)
        }
        self.continuations = continuations
    }

    deinit {
        for continuation in continuations { continuation.finish() }
    }

    var isEmpty: Bool { continuations.isEmpty }

    func emit(_ event: ClientEvent) {
        for continuation in continuations { continuation.yield(event) }
    }
}
