import Foundation
import HTTPCore

extension CachingTransport {
    /// Starts one background validation of `entry` (RFC 5861 §3), unless one is running for
    /// it: a ``Flight`` of the coalescer sends the conditional request once and collects the
    /// answer, which freshens the entry (`304`) or replaces it.
    func revalidateInBackground(_ entry: CacheEntry, _ exchange: CacheExchange, replacing: [CacheEntry]) {
        let conditional = Self.conditional(exchange.request, for: entry)
        var options = exchange.options
        options.deadline = nil
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
        flight.start()
        let id = taskCounter.withLock { counter in
            counter &+= 1
            return counter
        }
        let task = Task { [self] in
            defer { _ = backgroundTasks.withLock { $0.removeValue(forKey: id) } }
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
                    response, exchange, requestTime: requestTime, responseTime: responseTime, replacing: replacing,
                    outcome: .miss, forward: "stale", counted: false)
            else { return }
            // Reading the body through is what stores it.
            _ = try? await stored.body?.collect(upTo: Int.max)
        }
        backgroundTasks.withLock { $0[id] = task }
    }
}
