import Foundation
import HTTPClient
import HTTPCore

extension CachingTransport {
    /// Starts one background validation of `entry` (RFC 5861 §3), unless one is running for
    /// it: a ``Flight`` of the coalescer sends the conditional request once and collects the
    /// answer, which freshens the entry (`304`) or replaces it.
    func revalidateInBackground(_ entry: CacheEntry, _ exchange: CacheExchange, replacing: [CacheEntry]) {
        let conditional = Self.conditional(exchange.request, for: entry)
        var options = exchange.options
        options.deadline = nil
        options.bodyDeadline = nil
        options.awaitsWholeBody = true
        options.progress = nil
        let flight: Flight? = revalidations.withLock { table in
            guard table[entry.id] == nil else { return nil }
            let flight = Flight(base: base, request: conditional, options: options) { [revalidations] flight in
                revalidations.withLock { if $0[entry.id] === flight { $0[entry.id] = nil } }
            }
            table[entry.id] = flight
            return flight
        }
        guard let flight, let waiter = flight.join() else { return }
        configuration.observer?(CacheEvent(kind: .backgroundRevalidation, url: exchange.request.url))
        let requestTime = configuration.clock.now()
        // Taken as the request goes: an invalidation before the answer is stored wins (RFC 9111 §4.4).
        let mark = storage.removalMark()
        flight.start()
        backgroundTasks.start { [self] in
            guard let shared = try? await flight.wait(waiter) else { return }
            let responseTime = configuration.clock.now()
            if shared.head.status.code == 304 {
                try? storage.update(
                    Self.freshened(entry, with: shared.head, requestTime: requestTime, responseTime: responseTime))
                configuration.observer?(CacheEvent(kind: .freshened, url: exchange.request.url))
                return
            }
            let response = TransportResponse(head: shared.head, body: shared.body.map { HTTPBody($0) })
            guard
                let stored = try? await store(
                    response, exchange, requestTime: requestTime, responseTime: responseTime, mark: mark,
                    replacing: replacing, outcome: .miss, forward: "stale", counted: false)
            else { return }
            // Reading the body through is what stores it.
            _ = try? await stored.body?.collect(upTo: Int.max)
        }
    }
}

/// The background tasks of a cache, so callers can wait for them to end.
final class BackgroundTasks: Sendable {
    private struct State {
        var next: UInt64 = 0
        var running: [UInt64: Task<Void, Never>] = [:]
    }

    private let state = Locked(State())

    /// The tasks running now.
    var count: Int { state.withLock { $0.running.count } }

    /// Starts `operation` in a task of its own, registered under the lock before it can
    /// end: its removal, once it ends, always finds it.
    /// - Parameter operation: The work.
    func start(_ operation: @escaping @Sendable () async -> Void) {
        state.withLock { current in
            current.next &+= 1
            let id = current.next
            current.running[id] = Task { [state] in
                await operation()
                _ = state.withLock { $0.running.removeValue(forKey: id) }
            }
        }
    }

    /// Returns once every task started before the call, or while it waits, has ended. Each
    /// task is awaited once: a round that finds only tasks already awaited ends the wait.
    func waitForAll() async {
        var awaited = Set<UInt64>()
        while true {
            let pending = state.withLock { $0.running.filter { !awaited.contains($0.key) } }
            if pending.isEmpty { return }
            for (id, task) in pending {
                await task.value
                awaited.insert(id)
            }
        }
    }
}
