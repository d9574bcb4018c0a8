import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import HTTPClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Thrown by ``withWatchdog(seconds:_:)`` when the work did not finish in time.
struct WatchdogExpired: Error, CustomStringConvertible {
    let seconds: Double
    var description: String { "the work did not finish within \(seconds) s: it hangs" }
}

/// Runs `work` in a task of its own and returns its result, or throws ``WatchdogExpired``
/// after `seconds` without waiting for it: a hang fails the test instead of stalling the run.
func withWatchdog<T: Sendable>(seconds: Double, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
    let once = ResumeOnce<T>()
    let task = Task { once.resume(with: await Result { try await work() }) }
    DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
        once.resume(with: .failure(WatchdogExpired(seconds: seconds)))
    }
    do {
        return try await once.value()
    } catch let error as WatchdogExpired {
        task.cancel()
        throw error
    }
}

/// A continuation resumed by whichever result comes first.
private final class ResumeOnce<T: Sendable>: @unchecked Sendable {
    // Invariant: `result` and `continuation` are only touched under `lock`.
    private let lock = NSLock()
    private var result: Result<T, any Error>?
    private var continuation: CheckedContinuation<T, any Error>?

    func resume(with outcome: Result<T, any Error>) {
        lock.lock()
        guard result == nil else {
            lock.unlock()
            return
        }
        result = outcome
        let continuation = self.continuation
        self.continuation = nil
        lock.unlock()
        continuation?.resume(with: outcome)
    }

    func value() async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            lock.lock()
            if let result {
                lock.unlock()
                continuation.resume(with: result)
            } else {
                self.continuation = continuation
                lock.unlock()
            }
        }
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

@Suite("URLSessionTransport: cancellation")
struct URLSessionTransportCancellationTests {
    /// Waits up to `seconds` for the transport's session to have no task in flight.
    private func drained(_ transport: URLSessionTransport, within seconds: Double) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if transport.delegate.activeTransferCount == 0 { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return transport.delegate.activeTransferCount == 0
    }

    @Test func cancellingTheTaskStopsTheRequestPromptly() async throws {
        let transport = URLSessionTransport()
        let request = try TransportFixture.request(.get, TransportFixture.fault("/delay?seconds=60"))
        let task = Task { try await transport.send(request, options: TransportOptions()) }
        try await Task.sleep(for: .milliseconds(200))
        let cancelledAt = Date()
        task.cancel()
        let result = try await withWatchdog(seconds: 20) { await task.result }
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(Date().timeIntervalSince(cancelledAt) < 30)  // the server would answer after 60 s
        #expect(try await drained(transport, within: 20))
    }

    @Test func alreadyCancelledTaskSendsNothing() async throws {
        let key = UUID().uuidString
        let request = try TransportFixture.request(.get, TransportFixture.fault("/delay?seconds=0&key=\(key)"))
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await TransportFixture.transport.send(request, options: TransportOptions())
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        let count = try await TransportFixture.json(
            try await TransportFixture.transport.send(
                try TransportFixture.request(.get, TransportFixture.fault("/count?key=\(key)")),
                options: TransportOptions()))
        #expect(count["count"] as? Int == 0)
    }

    @Test func cancellingDuringAStalledStreamUploadUnblocksIt() async throws {
        let transport = URLSessionTransport()
        let (chunks, continuation) = AsyncStream<Data>.makeStream()
        continuation.yield(Data(repeating: 1, count: 1000))  // then nothing: the reader blocks
        let body = HTTPBody(stream: chunks, length: .unknown)
        let request = try TransportFixture.request(.post, TransportFixture.fault("/hash"), body: body)
        let task = Task { try await transport.send(request, options: TransportOptions()) }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        let result = try await withWatchdog(seconds: 20) { await task.result }
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(try await drained(transport, within: 20))
        continuation.finish()
    }

    @Test func cancellingAStreamedResponseReaderStopsTheTransfer() async throws {
        let transport = URLSessionTransport()
        // 100 chunks half a second apart: the body outlasts any stall of a starved test run,
        // so the cancellation always comes while the reader waits for a chunk.
        let request = try TransportFixture.request(
            .get, TransportFixture.fault("/slow?bytes=100000&chunks=100&interval=0.5"))
        let response = try await transport.send(request, options: TransportOptions())
        let stream = try #require(response.body).chunks()
        let reader = Task {
            var total = 0
            for try await chunk in stream { total += chunk.count }
            return total
        }
        try await Task.sleep(for: .milliseconds(300))
        reader.cancel()
        let result = try await withWatchdog(seconds: 20) { await reader.result }
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(try await drained(transport, within: 20))
    }

    @Test func aReaderThatCancelsItselfMidBodyGetsCancellationErrorNotTheRest() async throws {
        let transport = URLSessionTransport()
        let request = try TransportFixture.request(
            .get, TransportFixture.fault("/slow?bytes=100000&chunks=100&interval=0.01"))
        let response = try await transport.send(request, options: TransportOptions())
        let stream = try #require(response.body).chunks()
        let reader = Task {
            var total = 0
            for try await chunk in stream {
                total += chunk.count
                withUnsafeCurrentTask { $0?.cancel() }
            }
            return total
        }
        let result = try await withWatchdog(seconds: 20) { await reader.result }
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(try await drained(transport, within: 20))
    }

    @Test func aCancelledReaderStopsEvenWhenTheWholeBodyIsAlreadyHere() async throws {
        let transport = URLSessionTransport()
        let request = try TransportFixture.request(.get, TransportFixture.fault("/slow?bytes=3000&chunks=3&interval=0"))
        let response = try await transport.send(request, options: TransportOptions())
        let body = try #require(response.body)
        #expect(try await drained(transport, within: 20))  // the task completed: every chunk is buffered
        let reader = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            var total = 0
            for try await chunk in body.chunks() { total += chunk.count }
            return total
        }
        await #expect(throws: CancellationError.self) { try await reader.value }
    }

    /// The storm that deadlocks `URLSession.data(for:)` on swift-corelibs-foundation 6.3:
    /// many concurrent requests, about a fifth cancelled at random moments, round after round.
    /// `HERON_STORM_ROUNDS` sets the number of rounds (5 by default).
    @Test func cancellationStormNeverHangs() async throws {
        let rounds = ProcessInfo.processInfo.environment["HERON_STORM_ROUNDS"].flatMap(Int.init) ?? 5
        let transport = URLSessionTransport()
        let base = try TransportFixture.fault("/delay")
        for round in 1...rounds {
            let outcome = try await withWatchdog(seconds: 60) {
                try await Self.storm(transport: transport, base: base, requests: 300, concurrency: 50)
            }
            #expect(outcome.succeeded + outcome.cancelled == 300, "round \(round): \(outcome)")
            #expect(outcome.failures.isEmpty, "round \(round): \(outcome.failures.prefix(3))")
            #expect(outcome.cancelled > 0, "round \(round) cancelled nothing")
        }
        #expect(try await drained(transport, within: 20))
    }

    struct StormOutcome: Sendable, CustomStringConvertible {
        var succeeded = 0
        var cancelled = 0
        var failures: [String] = []
        var description: String { "\(succeeded) succeeded, \(cancelled) cancelled, \(failures.count) failed" }
    }

    private static func storm(
        transport: URLSessionTransport, base: URL, requests: Int, concurrency: Int
    ) async throws -> StormOutcome {
        try await withThrowingTaskGroup(of: Result<TransportResponse, any Error>.self) { group in
            var outcome = StormOutcome()
            var started = 0
            func launch() throws {
                let delay = Double.random(in: 0...0.1)
                let url = try #require(URL(string: base.absoluteString + "?seconds=\(delay)"))
                let request = HTTPRequest(url: url)
                let cancelAfter: Double? = Double.random(in: 0..<1) < 0.2 ? Double.random(in: 0...0.12) : nil
                group.addTask {
                    let send = Task { try await transport.send(request, options: TransportOptions()) }
                    if let cancelAfter {
                        try? await Task.sleep(for: .seconds(cancelAfter))
                        send.cancel()
                    }
                    return await send.result
                }
                started += 1
            }
            for _ in 0..<min(concurrency, requests) { try launch() }
            while let result = try await group.next() {
                switch result {
                case .success(let response) where response.head.status == .ok: outcome.succeeded += 1
                case .success(let response): outcome.failures.append("status \(response.head.status)")
                case .failure(is CancellationError): outcome.cancelled += 1
                case .failure(let error): outcome.failures.append("\(error)")
                }
                if started < requests { try launch() }
            }
            return outcome
        }
    }
}
