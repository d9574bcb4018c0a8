import Foundation
import HTTPClientTesting
import HTTPCore
import TestSupport
import Testing

@testable import HTTPClient

@Suite("Per-host limits")
struct HostLimiterTests {
    static func json(_ data: Data) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }

    @Test("50 concurrent requests with a limit of 4 per host: never more than 4 in flight at the server, none failed")
    func fourInFlight() async throws {
        let fault = try TestServers.faultServer()
        let client = Client(
            baseURL: fault, transport: HostLimiter(wrapping: URLSessionTransport(), maxConcurrentPerHost: 4))
        let key = "limit-\(UUID().uuidString)"
        let statuses = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    (try? await client.send(.get("inflight?key=\(key)&seconds=0.05")).status.code) ?? 0
                }
            }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.count == 50 && statuses.allSatisfy { $0 == 200 })
        let stats = Self.json(try await client.send(.get("inflight-max?key=\(key)")).body)
        #expect(stats["total"] as? Int == 50)
        #expect(stats["max"] as? Int == 4)
    }

    /// A stub whose replies to `path` wait until the gate opens.
    static func gatedStub(_ path: String) -> (StubTransport, AsyncStream<Void>.Continuation) {
        let (gate, open) = AsyncStream<Void>.makeStream()
        let stub = StubTransport(fallback: .status(.ok))
        stub.on(
            .path(path),
            reply: .handler { _ in
                for await _ in gate { break }
                return .status(.ok)
            })
        return (stub, open)
    }

    /// Waits until `count` requests wait in `limiter`'s line for `url`'s host.
    static func waitUntilQueued(_ limiter: HostLimiter, _ url: URL, _ count: Int) async throws {
        let end = ContinuousClock.now + .seconds(60)
        while limiter.waiting(for: url) < count {
            guard ContinuousClock.now < end else {
                Issue.record("\(count) requests never queued")
                return
            }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    @Test("waiters start in the order they came, and the wait is in the metrics and events")
    func firstComeFirstServed() async throws {
        let (stub, open) = Self.gatedStub("/hold")
        let base = URL(string: "https://api.example.com")!
        let limiter = HostLimiter(wrapping: stub, maxConcurrentPerHost: 1)
        let events = Locked<[String]>([])
        let client = Client(
            baseURL: base, transport: limiter,
            observers: [EventObserver { event in events.withLock { $0.append(event.description) } }])
        let holder = Task { try await client.send(.get("hold")) }
        try await Self.waitUntilQueued(limiter, base, 0)
        while stub.requests.isEmpty { try await Task.sleep(for: .milliseconds(2)) }
        var tasks: [Task<ClientResponse<Data>, any Error>] = []
        for index in 0..<5 {
            tasks.append(Task { try await client.send(.get("item/\(index)")) })
            try await Self.waitUntilQueued(limiter, base, index + 1)
        }
        try await Task.sleep(for: .milliseconds(50))
        open.yield()
        _ = try await holder.value
        var queued: [Duration] = []
        for task in tasks { queued.append(try await task.value.metrics.queued) }
        #expect(stub.requests.map(\.url.lastPathComponent) == ["hold"] + (0..<5).map(String.init))
        #expect(queued.allSatisfy { $0 >= .milliseconds(50) })
        try await Task.sleep(for: .milliseconds(200))
        #expect(events.withLock { $0 }.contains { $0.contains("queued") && $0.contains("item/4") })
    }

    @Test("a request cancelled while it waits leaves the queue at once; the one behind it goes next")
    func cancelWhileWaiting() async throws {
        let (stub, open) = Self.gatedStub("/first")
        let base = URL(string: "https://api.example.com")!
        let limiter = HostLimiter(wrapping: stub, maxConcurrentPerHost: 1)
        let client = Client(baseURL: base, transport: limiter)
        let first = Task { try await client.send(.get("first")) }
        while stub.requests.isEmpty { try await Task.sleep(for: .milliseconds(2)) }
        let cancelled = Task { try await client.send(.get("cancelled")) }
        try await Self.waitUntilQueued(limiter, base, 1)
        let third = Task { try await client.send(.get("third")) }
        try await Self.waitUntilQueued(limiter, base, 2)
        cancelled.cancel()
        if case .failure(let error as ClientError) = await cancelled.result {
            #expect(error.code == .cancelled)
        } else {
            Issue.record("expected the waiting request to be cancelled")
        }
        // It left the line at once: only the third waits now, while the first still holds.
        #expect(limiter.waiting(for: base) == 1)
        #expect(stub.requests.count == 1)
        open.yield()
        _ = try await first.value
        _ = try await third.value
        #expect(stub.requests.map(\.url.lastPathComponent) == ["first", "third"])
    }

    @Test("a token bucket: a burst of 2, then 5 a second")
    func tokenBucket() async throws {
        let stub = StubTransport(fallback: .status(.ok))
        let client = Client(
            baseURL: URL(string: "https://api.example.com")!,
            transport: HostLimiter(wrapping: stub, rate: HostLimiter.Rate(requests: 5, per: .seconds(1), burst: 2)))
        let clock = ContinuousClock()
        let start = clock.now
        var finished: [Duration] = []
        for index in 0..<6 {
            _ = try await client.send(.get("n/\(index)"))
            finished.append(clock.now - start)
        }
        // Two at once, then one every 200 ms: the sixth at 0.8 s at the earliest.
        #expect(finished[1] < .milliseconds(150))
        #expect(finished[5] >= .milliseconds(780))
        // A hang guard, not a speed claim.
        #expect(finished[5] < .seconds(60))
    }

    @Test("a 429 with Retry-After pauses its host (when asked), not the others")
    func tooManyRequestsPauses() async throws {
        let stub = StubTransport(fallback: .status(.ok))
        stub.on(
            .host("busy.example"),
            reply: [
                .status(.tooManyRequests, headerFields: [try HTTPField(name: .retryAfter, value: "1")]),
                .status(.ok),
            ])
        let client = Client(
            transport: HostLimiter(wrapping: stub, pausesOnTooManyRequests: true), retry: .none)
        let clock = ContinuousClock()
        let first = try await client.send(.get("https://busy.example/a"))
        #expect(first.status.code == 429)
        let start = clock.now
        let other = try await client.send(.get("https://calm.example/b"))
        // The other host did not wait (its wait is measured by the limiter, not the wall clock).
        #expect(other.status == .ok && other.metrics.queued == .zero)
        let second = try await client.send(.get("https://busy.example/c"))
        #expect(second.status == .ok)
        #expect(clock.now - start >= .milliseconds(900))
        #expect(second.metrics.queued >= .milliseconds(800))
    }

    @Test("a streamed body holds its place until it is read to the end")
    func streamHoldsItsPlace() async throws {
        let (chunks, feed) = AsyncThrowingStream<Data, any Error>.makeStream()
        let stub = StubTransport(fallback: .status(.ok))
        let base = URL(string: "https://api.example.com")!
        let limiter = HostLimiter(wrapping: StreamingBodyTransport(stub: stub, chunks: chunks), maxConcurrentPerHost: 1)
        let client = Client(baseURL: base, transport: limiter)
        let stream = try await client.stream(.get("feed"))
        let next = Task { try await client.send(.get("next")) }
        try await Self.waitUntilQueued(limiter, base, 1)
        try await Task.sleep(for: .milliseconds(100))
        // The stream still holds the only place.
        #expect(limiter.waiting(for: base) == 1)
        feed.yield(Data("ab".utf8))
        feed.finish()
        var received = 0
        for try await chunk in stream.body { received += chunk.count }
        let response = try await next.value
        #expect(received == 2)
        #expect(response.metrics.queued >= .milliseconds(100))
    }
}

/// A transport whose response to `/feed` streams the given chunks, and to anything else
/// answers as the stub does.
private struct StreamingBodyTransport: ClientTransport {
    let stub: StubTransport
    let chunks: AsyncThrowingStream<Data, any Error>

    func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
        guard request.url.path == "/feed" else { return try await stub.send(request, options: options) }
        return TransportResponse(head: HTTPResponse(status: .ok), body: HTTPBody(stream: chunks, length: .unknown))
    }
}

@Suite("Per-host limits: deadlines and bookkeeping")
struct HostLimiterDeadlineTests {
    /// A transport that claims to enforce deadlines, as URLSessionTransport does, so the
    /// client leaves the attempt's deadline to it.
    struct DeadlineKeeping: ClientTransport {
        let base: StubTransport
        var enforcedLimits: TransportLimits { .all }
        func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
            try await base.send(request, options: options)
        }
    }

    @Test("a request that waits past its attempt's deadline fails with timedOut and leaves the line")
    func deadlineWhileWaiting() async throws {
        let (stub, open) = HostLimiterTests.gatedStub("/hold")
        let base = URL(string: "https://api.example.com")!
        let limiter = HostLimiter(wrapping: DeadlineKeeping(base: stub), maxConcurrentPerHost: 1)
        let client = Client(baseURL: base, transport: limiter, retry: .none)
        let holder = Task { try await client.send(.get("hold").timeout(.seconds(60))) }
        while stub.requests.isEmpty { try await Task.sleep(for: .milliseconds(2)) }
        let error = await #expect(throws: ClientError.self) {
            _ = try await client.send(.get("waits").timeout(.milliseconds(200)))
        }
        #expect(error?.code == .timedOut)
        #expect(limiter.waiting(for: base) == 0)
        open.yield()
        _ = try await holder.value
        #expect(stub.requests.map(\.url.lastPathComponent) == ["hold"])
    }

    @Test("a request that never waited reports no wait and no queued event")
    func noWaitNoEvent() async throws {
        let events = Locked<[String]>([])
        let client = Client(
            baseURL: URL(string: "https://api.example.com")!,
            transport: HostLimiter(wrapping: StubTransport(fallback: .status(.ok)), maxConcurrentPerHost: 4),
            observers: [EventObserver { event in events.withLock { $0.append(event.description) } }])
        let response = try await client.send(.get("free"))
        #expect(response.metrics.queued == .zero)
        try await Task.sleep(for: .milliseconds(200))
        #expect(!events.withLock { $0 }.contains { $0.contains("queued") })
    }
}
