import Foundation
import HTTPClientTesting
import HTTPCore
import Testing

@testable import HTTPClient

@Suite("Timeouts and cancellation")
struct TimeoutCancellationTests {
    @Test("the client default timeout fails a slow attempt with timedOut, promptly")
    func clientTimeout() async throws {
        let stub = StubTransport(fallback: .status(.ok, delay: .seconds(30)))
        let client = Fixtures.client(stub, timeout: .milliseconds(200))
        let clock = ContinuousClock()
        let start = clock.now
        let error = await #expect(throws: ClientError.self) { _ = try await client.send(Fixtures.request("slow")) }
        #expect(error?.code == .timedOut)
        #expect(clock.now - start < .seconds(20))
    }

    @Test("a per-request timeout overrides the client default")
    func perRequestTimeout() async throws {
        let stub = StubTransport(fallback: .status(.ok, delay: .milliseconds(300)))
        let client = Fixtures.client(stub, timeout: .milliseconds(50))
        let response = try await client.send(Fixtures.request("x"), options: RequestOptions(timeout: .seconds(25)))
        #expect(response.status == .ok)
        let slowStub = StubTransport(fallback: .status(.ok, delay: .seconds(30)))
        let error = await #expect(throws: ClientError.self) {
            _ = try await Fixtures.client(slowStub, timeout: .seconds(5)).send(
                Fixtures.request("x"), options: RequestOptions(timeout: .milliseconds(50)))
        }
        #expect(error?.code == .timedOut)
    }

    @Test("a timed-out attempt is retried when timedOut is listed")
    func timeoutRetried() async throws {
        let stub = StubTransport()
        stub.enqueue(.status(.ok, delay: .seconds(5)), .status(.ok))
        let client = Fixtures.client(
            stub, retry: [.transportErrors(max: 1, codes: [.timedOut])], timeout: .milliseconds(100))
        let response = try await client.send(Fixtures.request("x"))
        #expect(response.status == .ok)
        #expect(response.metrics.attempts.map(\.failure) == ["timedOut", nil])
    }

    @Test("cancelling the awaiting task ends the request promptly with cancelled")
    func cancellation() async throws {
        let stub = StubTransport(fallback: .status(.ok, delay: .seconds(30)))
        let client = Fixtures.client(stub, retry: .default)
        let task = Task { try await client.send(Fixtures.request("x")) }
        try await Task.sleep(for: .milliseconds(100))
        let clock = ContinuousClock()
        let start = clock.now
        task.cancel()
        let result = await task.result
        #expect(clock.now - start < .seconds(20))
        #expect(throws: ClientError.self) { try result.get() }
        if case .failure(let error as ClientError) = result { #expect(error.code == .cancelled) }
    }

    @Test("cancelling during a retry wait ends the request with cancelled and no further attempt")
    func cancellationDuringBackoff() async throws {
        let stub = StubTransport(fallback: .status(.serviceUnavailable))
        let client = Fixtures.client(stub, retry: [.status(), .backoff(.constant(10), jitter: .none)])
        let task = Task { try await client.send(Fixtures.request("x")) }
        try await Task.sleep(for: .milliseconds(100))
        task.cancel()
        let result = await task.result
        if case .failure(let error as ClientError) = result {
            #expect(error.code == .cancelled)
            #expect(error.attempts.count == 1)
        } else {
            Issue.record("expected a ClientError, got \(result)")
        }
        #expect(stub.requests.count == 1)
    }

    @Test("a transport's CancellationError surfaces as cancelled and is not retried")
    func transportCancellationNotRetried() async throws {
        let stub = StubTransport(fallback: .failure(CancellationError()))
        let error = await #expect(throws: ClientError.self) {
            _ = try await Fixtures.client(stub, retry: [.transportErrors(max: 3)]).send(Fixtures.request("x"))
        }
        #expect(error?.code == .cancelled)
        #expect(stub.requests.count == 1)
    }

    @Test("a timeout too large for the clock counts as no timeout")
    func hugeTimeout() async throws {
        let client = Fixtures.client(StubTransport(fallback: .status(.ok)), timeout: .seconds(Int64.max))
        #expect(try await client.send(Fixtures.request("x")).status == .ok)
    }
}
