import Foundation
import HTTPClientTesting
import HTTPCore
import Testing

@testable import HTTPClient

@Suite("Observers")
struct ObserverTests {
    @Test("an observer sees every step of a retried call in order")
    func seesEverything() async throws {
        let observer = RecordingObserver()
        let stub = StubTransport()
        stub.enqueue(.status(.serviceUnavailable), .failure(ClientError(.connectionLost, "reset")), .status(.ok))
        let client = Fixtures.client(
            stub, observers: [observer], retry: [.status(), .transportErrors(max: 2), .attempts(max: 5)])
        _ = try await client.send(Fixtures.request("x"))
        let events = try await observer.waitForFinished()
        #expect(
            events.map(\.label) == [
                "prepared", "sent", "responseReceived", "retryScheduled",
                "prepared", "sent", "transportError", "retryScheduled",
                "prepared", "sent", "responseReceived", "finished",
            ])
        #expect(Set(events.map(\.requestID)).count == 1)
        guard case .finished(let status, let error, let metrics) = events.last?.kind else {
            Issue.record("no finished event")
            return
        }
        #expect(status == .ok)
        #expect(error == nil)
        #expect(metrics.attempts.count == 3)
    }

    @Test("the finished event of a failed call carries the error")
    func finishedWithError() async throws {
        let observer = RecordingObserver()
        let stub = StubTransport(fallback: .failure(ClientError(.cannotConnect, "refused")))
        _ = try? await Fixtures.client(stub, observers: [observer]).send(Fixtures.request("x"))
        let events = try await observer.waitForFinished()
        guard case .finished(_, let error, _) = events.last?.kind else {
            Issue.record("no finished event")
            return
        }
        #expect(error?.code == .cannotConnect)
    }

    @Test("a slow observer does not delay requests")
    func slowObserverDoesNotStall() async throws {
        let slow = EventObserver { _ in try? await Task.sleep(for: .seconds(30)) }
        let fast = RecordingObserver()
        let client = Fixtures.client(StubTransport(fallback: .status(.ok)), observers: [slow, fast])
        let elapsed = try await ContinuousClock().measure {
            for _ in 0..<5 { _ = try await client.send(Fixtures.request("x")) }
        }
        #expect(elapsed < .seconds(25))
        _ = try await fast.waitForFinished(5)
    }

    @Test("events still queued when the client is released are delivered, in order")
    func queuedEventsOutliveTheClient() async throws {
        let observer = RecordingObserver()
        // The first event holds the drain up, so the rest is still queued when the client goes.
        let slowFirst = EventObserver { event in
            if case .prepared(_, attempt: 1) = event.kind, event.requestID == 1 {
                try? await Task.sleep(for: .milliseconds(300))
            }
            await observer.receive(event)
        }
        do {
            let client = Fixtures.client(StubTransport(fallback: .status(.ok)), observers: [slowFirst])
            for _ in 0..<3 { _ = try await client.send(Fixtures.request("x")) }
        }
        let events = try await observer.waitForFinished(3)
        #expect(events.filter(\.isFinished).count == 3)
        #expect(events.map(\.requestID) == events.map(\.requestID).sorted())
    }

    @Test("concurrent calls get distinct request ids and each call's events stay in order")
    func concurrentCalls() async throws {
        let observer = RecordingObserver()
        let client = Fixtures.client(
            StubTransport(fallback: .status(.ok, delay: .milliseconds(10))), observers: [observer])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 { group.addTask { _ = try await client.send(Fixtures.request("x")) } }
            try await group.waitForAll()
        }
        let events = try await observer.waitForFinished(20)
        let byCall = Dictionary(grouping: events, by: \.requestID)
        #expect(byCall.count == 20)
        for (_, callEvents) in byCall {
            #expect(callEvents.map(\.label) == ["prepared", "sent", "responseReceived", "finished"])
        }
    }

    @Test("redirect hops are observed in order, with elapsed times that never go back")
    func redirectHopsInOrder() async throws {
        let observer = RecordingObserver()
        let stub = StubTransport()
        stub.on(.path("/v2/a"), reply: .status(.found, headerFields: Fixtures.fields(["Location": "/v2/b"])))
        stub.on(.path("/v2/b"), reply: .status(.ok, delay: .milliseconds(20)))
        _ = try await Fixtures.client(stub, observers: [observer]).send(Fixtures.request("a"))
        let events = try await observer.waitForFinished()
        #expect(events.map(\.label) == ["prepared", "sent", "redirected", "sent", "responseReceived", "finished"])
        let times = events.map(\.elapsed)
        #expect(times == times.sorted())
        #expect(times.last! >= .milliseconds(20))
    }
}

@Suite("A slow observer's queue is bounded")
struct BoundedObserverQueueTests {
    /// Holds its first event until released, then records what it receives.
    actor Stalled: ClientObserver {
        private var gate: CheckedContinuation<Void, Never>?
        private var released = false
        private(set) var received: [ClientEvent] = []

        func receive(_ event: ClientEvent) async {
            received.append(event)
            if !released { await withCheckedContinuation { gate = $0 } }
        }

        func release() {
            released = true
            gate?.resume()
            gate = nil
        }
    }

    @Test("past its limit a stalled observer's events are dropped, counted, and the next one says how many")
    func dropsAndSaysSo() async throws {
        let observer = Stalled()
        let drain = ObserverDrain(observer, limit: 100)
        func event(_ id: UInt64) -> ClientEvent {
            ClientEvent(requestID: id, elapsed: .zero, kind: .retryScheduled(attempt: 1, delay: .zero, reason: "r"))
        }
        drain.append(EventBatch(event(0)))
        while await observer.received.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        // (Every wait below is bounded, so a regression fails instead of hanging.)
        // The observer is stalled on event 0: 100 fit in the queue, 400 are dropped.
        for id in 1...500 { drain.append(EventBatch(event(UInt64(id)))) }
        await observer.release()
        let deadline = ContinuousClock.now + .seconds(20)
        while await observer.received.count < 101, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        drain.append(EventBatch(event(501)))
        while await observer.received.last?.requestID != 501, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        let received = await observer.received
        #expect(received.count == 102)
        #expect(received.last?.eventsDroppedBefore == 400)
        #expect(received.last?.description.contains("after 400 events dropped") == true)
        #expect(received.dropLast().allSatisfy { $0.eventsDroppedBefore == 0 })
        drain.close()
    }
}

@Suite("Event batches")
struct EventBatchTests {
    private func event(_ id: UInt64) -> ClientEvent {
        ClientEvent(requestID: id, elapsed: .zero, kind: .retryScheduled(attempt: 1, delay: .zero, reason: "r"))
    }

    @Test("a batch keeps its events in order past the three it holds inline, and marks the first with the drops")
    func order() {
        for count in 0...6 {
            var batch = EventBatch()
            for id in 0..<count { batch.append(event(UInt64(id))) }
            #expect(batch.count == count)
            #expect(batch.isEmpty == (count == 0))
            var seen: [ClientEvent] = []
            batch.forEach(droppedBefore: 7) { seen.append($0) }
            #expect(seen.map(\.requestID) == (0..<UInt64(count)).map { $0 })
            #expect(seen.first.map { $0.eventsDroppedBefore == 7 } ?? true)
            #expect(seen.dropFirst().allSatisfy { $0.eventsDroppedBefore == 0 })
        }
    }
}
