import Foundation
import HTTPCore
import Testing

@testable import HTTPClient

/// The timeout's meaning over a transport that enforces no limit itself (a test double, a
/// user's own): the client's guard bounds the wait for the head with the timeout, each wait
/// for a body chunk with the idle timeout, and the whole body only with the call's deadline.
/// The transport contract suite checks the same over URLSession and AsyncHTTPClient.
@Suite("Timeouts over a transport that enforces none", .serialized)
struct GuardedTimeoutTests {
    /// Answers with a body of `chunks` chunks of 10 bytes, one every `gap`, after a head sent
    /// after `headDelay`; enforces nothing. The chunks come from a dispatch queue, on time
    /// however busy the suite keeps Swift's cooperative pool.
    struct TricklingTransport: ClientTransport {
        var headDelay: Duration = .zero
        let chunks: Int
        let gap: Duration

        func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
            if headDelay > .zero { try await Task.sleep(for: headDelay) }
            let (chunks, gap) = (self.chunks, self.gap)
            let milliseconds = Int(gap.components.seconds * 1000 + gap.components.attoseconds / 1_000_000_000_000_000)
            let stream = AsyncThrowingStream<Data, any Error> { continuation in
                @Sendable func send(_ index: Int) {
                    guard index < chunks else {
                        continuation.finish()
                        return
                    }
                    guard case .enqueued = continuation.yield(Data(repeating: UInt8(index), count: 10)) else { return }
                    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds)) {
                        send(index + 1)
                    }
                }
                send(0)
            }
            return TransportResponse(head: HTTPResponse(status: .ok), body: HTTPBody(stream: stream, length: .unknown))
        }
    }

    private func client(_ transport: TricklingTransport, timeout: Duration) -> Client {
        Client(transport: transport, retry: .none, timeout: timeout)
    }

    private let url = URL(string: "https://api.example.com/trickle")!

    /// Runs `reads` under a guard of `idle` (and `bodyDeadline`), as the client's attempt runs
    /// a body: each element is how long the reader waits for a chunk, then how long it spends on
    /// it. Nothing here waits on a thread: every wait is a `Task.sleep`.
    private func read(
        _ reads: [(wait: Duration, work: Duration)], idle: Duration?, bodyDeadline: Duration? = nil
    ) async throws -> Int {
        let attemptGuard = AttemptGuard(
            headTimeout: .seconds(30), idleTimeout: idle, bodyDeadline: bodyDeadline.map { .now + $0 }, start: .now,
            scheduler: DeadlineScheduler(), request: HTTPRequest(url: url))
        return try await attemptGuard.run {
            attemptGuard.headArrived()
            var taken = 0
            for read in reads {
                attemptGuard.waiting()
                try await Task.sleep(for: read.wait)
                attemptGuard.take(Data(count: 10))
                taken += 1
                try await Task.sleep(for: read.work)
            }
            attemptGuard.end(failure: nil)
            return taken
        }
    }

    @Test("a body whose every gap is within the idle timeout completes, however long it takes")
    func tricklingBodyCompletes() async throws {
        // 8 gaps of 150 ms under a 30 s idle timeout, 1.2 s in all. (A limit that must not pass
        // is far above the waits: early in the full suite, Swift's cooperative pool, which
        // resumes each `Task.sleep`, can be busy for seconds.)
        let taken = try await read(Array(repeating: (.milliseconds(150), .zero), count: 8), idle: .seconds(30))
        #expect(taken == 8)
    }

    @Test("a gap longer than the idle timeout fails timedOut, naming the idle timeout")
    func gapFails() async throws {
        let error = await #expect(throws: ClientError.self) {
            try await read([(.milliseconds(10), .zero), (.seconds(30), .zero)], idle: .milliseconds(300))
        }
        #expect(error?.code == .timedOut)
        #expect(error?.message.contains("idle timeout") == true, "got \(String(describing: error))")
    }

    @Test("the body's deadline ends a body still arriving, each gap within the idle timeout")
    func deadlineEndsTheBody() async throws {
        let error = await #expect(throws: ClientError.self) {
            try await read(
                Array(repeating: (.milliseconds(100), .zero), count: 100), idle: .seconds(5),
                bodyDeadline: .milliseconds(500))
        }
        #expect(error?.code == .timedOut)
        #expect(error?.message.contains("deadline") == true, "got \(String(describing: error))")
    }

    @Test("the timeout does not bound the body: a stub's trickle completes past it")
    func stubTrickleCompletes() async throws {
        // A transport that enforces nothing: the client's guard bounds the head by the 300 ms
        // timeout and each gap by the 60 s idle timeout; the body (4 chunks 200 ms apart) ends
        // past the timeout.
        let transport = TricklingTransport(chunks: 4, gap: .milliseconds(200))
        let response = try await client(transport, timeout: .milliseconds(300)).send(
            HTTPRequest(url: url), options: RequestOptions(idleTimeout: .seconds(60)))
        #expect(response.body.count == 40)
    }

    @Test("a head later than the timeout fails timedOut, naming the timeout")
    func lateHeadFails() async throws {
        let transport = TricklingTransport(headDelay: .seconds(5), chunks: 1, gap: .zero)
        let error = await #expect(throws: ClientError.self) {
            try await client(transport, timeout: .milliseconds(200)).send(HTTPRequest(url: url))
        }
        #expect(error?.code == .timedOut)
        #expect(error?.message.contains("no response within the timeout") == true, "got \(String(describing: error))")
    }

    @Test("a reader slow to take each chunk (a slow disk) is not idle: only its waits for a chunk count")
    func slowReaderIsNotIdle() async throws {
        // The guard itself, as the client drives it: a 200 ms idle timeout, a reader that gets
        // each chunk at once and then spends 400 ms on it (writing to a slow disk).
        let scheduler = DeadlineScheduler()
        let attemptGuard = AttemptGuard(
            headTimeout: nil, idleTimeout: .milliseconds(200), bodyDeadline: nil, start: .now, scheduler: scheduler,
            request: HTTPRequest(url: url))
        let chunks = try await attemptGuard.run {
            attemptGuard.headArrived()
            var taken = 0
            for _ in 0..<3 {
                attemptGuard.waiting()
                attemptGuard.take(Data(count: 10))
                taken += 1
                try await Task.sleep(for: .milliseconds(400))
            }
            attemptGuard.end(failure: nil)
            return taken
        }
        #expect(chunks == 3)
        // The same guard times a reader that waits: it ends the attempt with timedOut.
        let waitingGuard = AttemptGuard(
            headTimeout: nil, idleTimeout: .milliseconds(200), bodyDeadline: nil, start: .now, scheduler: scheduler,
            request: HTTPRequest(url: url))
        let error = await #expect(throws: ClientError.self) {
            try await waitingGuard.run {
                waitingGuard.headArrived()
                waitingGuard.waiting()
                try await Task.sleep(for: .seconds(30))
            }
        }
        #expect(error?.code == .timedOut)
    }

    @Test("a transport that enforces every limit gets them as options and no guard")
    func enforcingTransportGetsTheLimits() async throws {
        let seen = Locked<TransportOptions?>(nil)
        struct Recording: ClientTransport {
            let seen: Locked<TransportOptions?>
            var enforcedLimits: TransportLimits { .all }
            func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
                seen.withLock { $0 = options }
                return TransportResponse(head: HTTPResponse(status: .ok), body: HTTPBody("ok"))
            }
        }
        let client = Client(transport: Recording(seen: seen), retry: .none, timeout: .seconds(7))
        let before = ContinuousClock.now
        _ = try await client.send(HTTPRequest(url: url), options: RequestOptions(deadline: .now + .seconds(30)))
        let options = try #require(seen.withLock { $0 })
        #expect(options.idleTimeout == .seconds(7))
        let head = try #require(options.deadline)
        #expect(head > before + .seconds(6) && head <= ContinuousClock.now + .seconds(7))
        let body = try #require(options.bodyDeadline)
        #expect(body > before + .seconds(29))
        // A stream's body belongs to its reader: no body deadline.
        _ = try await client.stream(HTTPRequest(url: url), options: RequestOptions(deadline: .now + .seconds(30)))
        #expect(seen.withLock { $0?.bodyDeadline } == nil)
    }
}
