import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import HTTPClient

/// The transport enforces ``TransportOptions/deadline`` itself (the client then runs no task
/// of its own per attempt), and runs callers' progress callbacks off URLSession's queues.
@Suite("URLSessionTransport: deadlines and callbacks")
struct URLSessionTransportDeadlineTests {
    @Test func transportSaysItEnforcesDeadlines() {
        #expect(URLSessionTransport().enforcesDeadline)
        #expect(!StubTransport().enforcesDeadline)
    }

    @Test func deadlinePassingFailsWithTimedOutPromptlyAndEndsTheTask() async throws {
        let transport = URLSessionTransport()
        let request = try TransportFixture.request(.get, TransportFixture.fault("/delay?seconds=40"))
        let start = ContinuousClock.now
        let error = try await withWatchdog(seconds: 35) {
            await #expect(throws: ClientError.self) {
                try await transport.send(request, options: TransportOptions(deadline: .now + .milliseconds(300)))
            }
        }
        let elapsed = ContinuousClock.now - start
        // The server answers 200 after 40 s: `timedOut` well before that is the deadline's
        // doing. (Bounds are loose: the whole suite starts at once on 2 cores, and its first
        // seconds may starve this test for ten seconds or more.)
        #expect(error?.code == .timedOut)
        #expect(elapsed >= .milliseconds(250))
        #expect(elapsed < .seconds(30))
        // The URLSession task was cancelled, not left to run until the server answers.
        try await withWatchdog(seconds: 20) {
            while transport.delegate.activeTransferCount > 0 { try await Task.sleep(for: .milliseconds(20)) }
        }
    }

    @Test func deadlineAlreadyPastFailsAtOnce() async throws {
        let transport = URLSessionTransport()
        let request = try TransportFixture.request(.get, TransportFixture.fault("/delay?seconds=40"))
        let error = try await withWatchdog(seconds: 30) {
            await #expect(throws: ClientError.self) {
                try await transport.send(request, options: TransportOptions(deadline: .now - .seconds(1)))
            }
        }
        #expect(error?.code == .timedOut)
    }

    @Test func deadlineOnlyCoversAStreamedResponseUntilItsHead() async throws {
        let transport = URLSessionTransport()
        // 3 chunks 2.5 s apart: the body outlasts the deadline, the head (sent at once) does not.
        let request = try TransportFixture.request(
            .get, TransportFixture.fault("/slow?bytes=3000&chunks=3&interval=2.5"))
        let received = try await withWatchdog(seconds: 40) {
            let response = try await transport.send(
                request, options: TransportOptions(deadline: .now + .seconds(4)))
            var count = 0
            for try await chunk in try #require(response.body).chunks() { count += chunk.count }
            return count
        }
        #expect(received == 3000)
    }

    /// On Linux the delegate runs on URLSession's work queue, shared by every session of the
    /// process: a slow progress callback there would stall all of them.
    @Test func slowProgressCallbackDoesNotStallOtherRequests() async throws {
        let slow = URLSessionTransport()
        let other = URLSessionTransport()
        let upload = try TransportFixture.request(
            .post, TransportFixture.fault("/hash"), body: HTTPBody(TransportFixture.pattern(200_000)))
        // Blocked for 15 s; the other request must not wait for that (12 s allows for a
        // starved suite).
        let blocking = BlockingProgress(seconds: 15)
        async let uploaded = slow.send(upload, options: TransportOptions(progress: blocking.callback))
        try await withWatchdog(seconds: 30) { await blocking.waitUntilBlocked() }
        let start = ContinuousClock.now
        let quick = try await other.send(
            try TransportFixture.request(.get, TransportFixture.fault("/bytes?n=10")), options: TransportOptions())
        #expect(quick.head.status == .ok)
        #expect(ContinuousClock.now - start < .seconds(12))
        let response = try await uploaded
        #expect(try await TransportFixture.json(response)["bytes"] as? Int == 200_000)
    }

    @Test func everyUploadReportArrivesBeforeSendReturns() async throws {
        let transport = URLSessionTransport()
        let recorder = ProgressRecorder()
        let request = try TransportFixture.request(
            .post, TransportFixture.fault("/hash"), body: HTTPBody(TransportFixture.pattern(300_000)))
        _ = try await transport.send(request, options: TransportOptions(progress: recorder.callback))
        let last = try #require(recorder.reports(.upload).last)
        #expect(last.completed == 300_000)
        #expect(last.expected == 300_000)
    }

    @Test func everyDownloadReportArrivesBeforeTheClientReturns() async throws {
        let recorder = ProgressRecorder()
        let request = try TransportFixture.request(.get, TransportFixture.fault("/bytes?n=300000"))
        _ = try await Client(transport: URLSessionTransport()).send(
            request, options: RequestOptions(progress: recorder.destination))
        let last = try #require(recorder.reports(.download).last)
        #expect(last.completed == 300_000)
        #expect(last.expected == 300_000)
    }
}

/// A progress callback that blocks its thread for a while on its first call.
private final class BlockingProgress: @unchecked Sendable {
    // Invariant: `blocked` and `waiters` are only touched under `lock`.
    private let lock = NSLock()
    private var blocked = false
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private let seconds: Double

    init(seconds: Double) { self.seconds = seconds }

    var callback: @Sendable (TransferProgress) -> Void {
        { [self] _ in
            let first = lock.withLock {
                defer { blocked = true }
                return !blocked
            }
            guard first else { return }
            let waiting = lock.withLock {
                defer { waiters = [] }
                return waiters
            }
            for waiter in waiting { waiter.resume() }
            Thread.sleep(forTimeInterval: seconds)
        }
    }

    func waitUntilBlocked() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            if blocked {
                lock.unlock()
                continuation.resume()
            } else {
                waiters.append(continuation)
                lock.unlock()
            }
        }
    }
}
