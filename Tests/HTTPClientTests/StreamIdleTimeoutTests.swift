import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import HTTPClient

@Suite("A streamed body's idle timeout")
struct StreamIdleTimeoutTests {
    @Test("with URLSessionTransport the attempt's timeout ends a streamed body whose server goes quiet for longer")
    func quietServerTimesOut() async throws {
        let base = try TestServers.faultServer()
        let client = Client(timeout: .seconds(1))
        // 3 bytes in 3 chunks, 20 s apart: the first arrives at once, then nothing for 20 s.
        let url = base.appending(path: "slow").appending(queryItems: [
            URLQueryItem(name: "bytes", value: "3"), URLQueryItem(name: "chunks", value: "3"),
            URLQueryItem(name: "interval", value: "20"),
        ])
        // What is tested is the body's end; the head must come within the same second. On a
        // starved 2-core machine the head alone can miss it, so up to three tries get one.
        let body = try await StarvedStart.retryingTimeouts {
            try await client.stream(HTTPRequest(method: .get, url: url))
        }.body
        let clock = ContinuousClock()
        let start = clock.now
        var received = 0
        let error = await #expect(throws: ClientError.self) {
            for try await chunk in body { received += chunk.count }
        }
        #expect(error?.code == .timedOut)
        #expect(received == 1)
        // Ended by the timeout, long before the next chunk was due (20 s).
        #expect(clock.now - start < .seconds(15))
    }

    @Test("an idle timeout below a second ends a quiet stream on any transport and cancels its body")
    func subSecondIdleTimeoutOnAnyTransport() async throws {
        let transport = QuietBodyTransport()
        let client = Client(transport: transport, timeout: .seconds(60))
        let response = try await client.stream(.get("https://quiet.test/feed").idleTimeout(.milliseconds(300)))
        let clock = ContinuousClock()
        let start = clock.now
        var received = Data()
        let error = await #expect(throws: ClientError.self) {
            for try await chunk in response.body { received.append(chunk) }
        }
        let waited = clock.now - start
        #expect(error?.code == .timedOut)
        #expect(error?.message.contains("idle timeout of 0.3 seconds") == true)
        #expect(received == Data("first".utf8))
        #expect(waited >= .milliseconds(250))
        #expect(waited < .seconds(20))
        // The body's producer learns that nobody reads any more.
        try await waitUntil(seconds: 20) { transport.terminated.withLock { $0 } }
    }

    @Test("a stream read after its idle timeout ends gives nothing more")
    func endedAfterTimeout() async throws {
        let client = Client(transport: QuietBodyTransport())
        let response = try await client.stream(
            .get("https://quiet.test/feed"), options: RequestOptions(idleTimeout: .milliseconds(100)))
        var iterator = response.body.makeAsyncIterator()
        #expect(try await iterator.next() == Data("first".utf8))
        await #expect(throws: ClientError.self) { _ = try await iterator.next() }
        #expect(try await iterator.next() == nil)
    }

    @Test("the idle timeout on the fault server: chunks 20 s apart end after the idle timeout, not the attempt's")
    func idleTimeoutShorterThanTheAttempt() async throws {
        let base = try TestServers.faultServer()
        let client = Client(timeout: .seconds(120))
        let response = try await client.stream(
            HTTPRequest(method: .get, url: Self.slow(base, bytes: 3, chunks: 3, interval: "20"))
                .idleTimeout(.milliseconds(700)))
        let clock = ContinuousClock()
        let start = clock.now
        var received = 0
        let error = await #expect(throws: ClientError.self) {
            for try await chunk in response.body { received += chunk.count }
        }
        #expect(error?.code == .timedOut)
        #expect(error?.message.contains("idle timeout") == true)
        #expect(received == 1)
        #expect(clock.now - start < .seconds(15))
    }

    @Test("a drip that keeps within the idle timeout is read whole")
    func dripWithinTheIdleTimeout() async throws {
        let base = try TestServers.faultServer()
        let client = Client()
        let response = try await client.stream(
            HTTPRequest(method: .get, url: Self.slow(base, bytes: 6, chunks: 6, interval: "0.2"))
                .idleTimeout(.seconds(10)))
        var received = 0
        for try await chunk in response.body { received += chunk.count }
        #expect(received == 6)
    }

    /// Rewritten for issue 41: the timeout no longer bounds a buffered body that keeps
    /// arriving (the contract suite's trickle tests show it completes); the call's deadline does.
    @Test("a buffered send against a drip of one byte a second ends at the call's deadline")
    func dripUnderSend() async throws {
        let base = try TestServers.faultServer()
        let client = Client(retry: .none)
        let clock = ContinuousClock()
        let start = clock.now
        let error = await #expect(throws: ClientError.self) {
            _ = try await client.send(
                HTTPRequest(method: .get, url: Self.slow(base, bytes: 30, chunks: 30, interval: "1"))
                    .timeout(.seconds(2)).deadline(.seconds(3)))
        }
        #expect(error?.code == .timedOut)
        #expect(error?.message.contains("deadline") == true, "got \(String(describing: error))")
        // 30 bytes would take 29 s, every gap within the timeout; the deadline covers the body.
        #expect(clock.now - start < .seconds(20))
    }

    private static func slow(_ base: URL, bytes: Int, chunks: Int, interval: String) -> URL {
        base.appending(path: "slow").appending(queryItems: [
            URLQueryItem(name: "bytes", value: String(bytes)), URLQueryItem(name: "chunks", value: String(chunks)),
            URLQueryItem(name: "interval", value: interval),
        ])
    }
}

@Suite("A streamed body read under its idle timeout, cancelled")
struct StreamIdleCancellationTests {
    /// A transport whose body is an endless run of chunks, all there at once.
    struct EndlessBody: ClientTransport {
        func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
            let chunks = AsyncThrowingStream<Data, any Error> { continuation in
                for _ in 0..<10_000 { continuation.yield(Data("chunk".utf8)) }
            }
            return TransportResponse(head: HTTPResponse(status: .ok), body: HTTPBody(stream: chunks, length: .unknown))
        }
    }

    @Test("a reader whose task is cancelled gets CancellationError, not more chunks")
    func cancelledReaderStops() async throws {
        let client = Client(transport: EndlessBody())
        let response = try await client.stream(.get("https://endless.test/").idleTimeout(.seconds(30)))
        let reader = Task {
            var afterCancel = 0
            var count = 0
            do {
                for try await _ in response.body {
                    count += 1
                    if count == 3 { withUnsafeCurrentTask { $0?.cancel() } } else if count > 3 { afterCancel += 1 }
                }
                return (afterCancel, false)
            } catch is CancellationError {
                return (afterCancel, true)
            }
        }
        let (afterCancel, threw) = try await reader.value
        #expect(afterCancel == 0)
        #expect(threw)
    }
}

/// A transport whose response body sends one chunk and then nothing, until it is cancelled.
private struct QuietBodyTransport: ClientTransport {
    let terminated = Locked(false)

    func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
        let terminated = self.terminated
        let chunks = AsyncThrowingStream<Data, any Error> { continuation in
            continuation.yield(Data("first".utf8))
            continuation.onTermination = { _ in terminated.withLock { $0 = true } }
        }
        return TransportResponse(
            head: HTTPResponse(status: .ok), body: HTTPBody(stream: chunks, length: .unknown))
    }
}

private func waitUntil(seconds: Int, _ condition: @Sendable () -> Bool) async throws {
    let end = ContinuousClock.now + .seconds(seconds)
    while !condition() {
        guard ContinuousClock.now < end else {
            Issue.record("the condition did not hold within \(seconds) s")
            return
        }
        try await Task.sleep(for: .milliseconds(20))
    }
}
