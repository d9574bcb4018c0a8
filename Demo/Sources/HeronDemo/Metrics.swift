import Foundation
import HTTPEndpoints

/// What the client's observer saw: every event of every call, counted and kept in order.
///
/// Observers get events on a queue of their own, up to about 50 ms after the fact, so a step
/// that reports its call's events first waits for the call's `finished` event (``settle()``).
actor Metrics {
    private(set) var events: [ClientEvent] = []
    private var started: Set<UInt64> = []
    private var finished: Set<UInt64> = []
    private(set) var bytesSent: Int64 = 0
    private(set) var bytesReceived: Int64 = 0

    /// The observer to give a client.
    nonisolated var observer: EventObserver { EventObserver { [self] event in await self.record(event) } }

    func record(_ event: ClientEvent) {
        events.append(event)
        started.insert(event.requestID)
        if case .finished(_, _, let metrics) = event.kind {
            finished.insert(event.requestID)
            bytesSent += metrics.bytesSent ?? 0
            bytesReceived += metrics.bytesReceived ?? 0
        }
    }

    /// Waits (at most a second) until every call seen so far has finished.
    func settle() async {
        let deadline = ContinuousClock.now + .seconds(1)
        while started != finished, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        // A call that ended after its last delivery may not be in `started` yet.
        try? await Task.sleep(for: .milliseconds(60))
    }

    /// The events after the first `mark`.
    func events(since mark: Int) -> ArraySlice<ClientEvent> { events[min(mark, events.count)...] }

    /// `12 sent, 12 received, 3 retries scheduled, 10 finished`.
    var counts: String {
        var sent = 0
        var received = 0
        var retries = 0
        var failedAttempts = 0
        var calls = 0
        for event in events {
            switch event.kind {
            case .sent: sent += 1
            case .responseReceived: received += 1
            case .retryScheduled: retries += 1
            case .transportError: failedAttempts += 1
            case .finished: calls += 1
            case .prepared, .redirected, .queued, .reconnecting, .cookiesRefused, .proxied: break
            }
        }
        return
            "\(events.count) events: \(calls) calls, \(sent) sent, \(received) responses, "
            + "\(failedAttempts) transport errors, \(retries) retries scheduled"
    }
}
