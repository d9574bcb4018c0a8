import Foundation
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

    @Test("waiters start in the order they came, and the wait is in the metrics and events")
    func firstComeFirstServed() async throws {
        let stub = StubTransport(fallback: .status(.ok, delay: .milliseconds(30)))
        let events = Locked<[String]>([])
        let client = Client(
            baseURL: URL(string: "https://api.example.com")!,
            transport: HostLimiter(wrapping: stub, maxConcurrentPerHost: 1),
            observers: [EventObserver { event in events.withLock { $0.append(event.description) } }])
        var tasks: [Task<ClientResponse<Data>, any Error>] = []
        for index in 0..<6 {
            tasks.append(Task { try await client.send(.get("item/\(index)")) })
            // Each is queued before the next is made.
            try await Task.sleep(for: .milliseconds(5))
        }
        var queued: [Duration] = []
        for task in tasks { queued.append(try await task.value.metrics.queued) }
        #expect(stub.requests.map(\.url.lastPathComponent) == (0..<6).map(String.init))
        #expect(queued.last! >= .milliseconds(100))
        try await Task.sleep(for: .milliseconds(200))
        #expect(events.withLock { $0 }.contains { $0.contains("queued") && $0.contains("item/5") })
    }

    @Test("a request cancelled while it waits leaves the queue at once; the one behind it goes next")
    func cancelWhileWaiting() async throws {
        let stub = StubTransport(fallback: .status(.ok, delay: .milliseconds(300)))
        let client = Client(
            baseURL: URL(string: "https://api.example.com")!,
            transport: HostLimiter(wrapping: stub, maxConcurrentPerHost: 1))
        let first = Task { try await client.send(.get("first")) }
        try await Task.sleep(for: .milliseconds(50))
        let cancelled = Task { try await client.send(.get("cancelled")) }
        try await Task.sleep(for: .milliseconds(20))
        let third = Task { try await client.send(.get("third")) }
        try await Task.sleep(for: .milliseconds(20))
        let clock = ContinuousClock()
        let start = clock.now
        cancelled.cancel()
        let result = await cancelled.result
        #expect(clock.now - start < .milliseconds(200))
        if case .failure(let error as ClientError) = result {
            #expect(error.code == .cancelled)
        } else {
            Issue.record("expected cancelled, got \(result)")
        }
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
        #expect(finished[5] < .seconds(10))
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
        #expect(other.status == .ok && clock.now - start < .milliseconds(500))
        let second = try await client.send(.get("https://busy.example/c"))
        #expect(second.status == .ok)
        #expect(clock.now - start >= .milliseconds(900))
        #expect(second.metrics.queued >= .milliseconds(800))
    }

    @Test("a streamed body holds its place until it is read to the end")
    func streamHoldsItsPlace() async throws {
        let fault = try TestServers.faultServer()
        let client = Client(
            baseURL: fault, transport: HostLimiter(wrapping: URLSessionTransport(), maxConcurrentPerHost: 1))
        let stream = try await client.stream(.get("slow?bytes=2&chunks=2&interval=0.3"))
        let clock = ContinuousClock()
        let start = clock.now
        async let next = client.send(.get("bytes?n=3"))
        var received = 0
        for try await chunk in stream.body { received += chunk.count }
        let response = try await next
        #expect(received == 2)
        #expect(response.body.count == 3)
        // The second request waited for the stream's end.
        #expect(clock.now - start >= .milliseconds(250))
        #expect(response.metrics.queued >= .milliseconds(200))
    }
}
