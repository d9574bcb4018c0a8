import Foundation
import HTTPClientTesting
import HTTPCore
import Testing

@testable import HTTPClient

/// A gate that an interceptor waits at without heeding cancellation (a hung token refresh,
/// a lock held elsewhere), opened by the test when it is done, so the abandoned step ends.
final class StuckGate: Sendable {
    private let waiters = Locked<(open: Bool, continuations: [CheckedContinuation<Void, Never>])>((false, []))

    /// Waits until ``open()``, whatever happens to the waiting task.
    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = waiters.withLock { state in
                if state.open { return true }
                state.continuations.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Lets every waiter, present and future, go on.
    func open() {
        let continuations = waiters.withLock { state in
            state.open = true
            defer { state.continuations = [] }
            return state.continuations
        }
        for continuation in continuations { continuation.resume() }
    }
}

/// An interceptor whose `prepare` or `decide` waits at a gate, ignoring cancellation.
struct StuckInterceptor: Interceptor {
    let gate: StuckGate
    let inPrepare: Bool

    func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) async throws {
        if inPrepare { await gate.wait() }
    }

    func decide(_ outcome: AttemptOutcome, context: inout InterceptorContext) async throws -> InterceptorDecision {
        if !inPrepare { await gate.wait() }
        return .proceed
    }
}

/// An interceptor that suspends (a short sleep) and writes a value, to show a step that
/// suspends still hands its request and context on.
struct SuspendingInterceptor: Interceptor {
    func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) async throws {
        try await Task.sleep(for: .milliseconds(20))
        try request.headerFields.set(try HTTPFieldName("X-Prepared"), "after-a-sleep")
        context.values[StepMarker.self] = "prepare"
    }

    func decide(_ outcome: AttemptOutcome, context: inout InterceptorContext) async throws -> InterceptorDecision {
        try await Task.sleep(for: .milliseconds(20))
        return context.values[StepMarker.self] == "prepare" && context.attempt == 1 ? .retry : .proceed
    }
}

enum StepMarker: RequestValueKey {
    typealias Value = String
}

@Suite("Interceptor steps are bounded by the timeout and by cancellation")
struct InterceptorStepTimeoutTests {
    @Test(
        "an interceptor that hangs in prepare or decide, heeding no cancellation, ends the call with timedOut naming it",
        arguments: [true, false])
    func hungStepTimesOut(inPrepare: Bool) async throws {
        let gate = StuckGate()
        defer { gate.open() }
        let stub = StubTransport(fallback: .status(.ok))
        let client = Fixtures.client(
            stub, interceptors: [StuckInterceptor(gate: gate, inPrepare: inPrepare)], timeout: .milliseconds(300))
        let clock = ContinuousClock()
        let start = clock.now
        let error = await #expect(throws: ClientError.self) { _ = try await client.send(Fixtures.request("x")) }
        let elapsed = clock.now - start
        #expect(error?.code == .timedOut)
        let step = inPrepare ? "prepare" : "decide"
        #expect(error?.message.contains("interceptor StuckInterceptor's \(step) did not end") == true)
        // Bounded by the timeout, not by the gate (opened only when the test ends); the bound
        // allows for a starved start of the whole suite on 2 cores.
        #expect(elapsed < .seconds(20))
        #expect(stub.requests.count == (inPrepare ? 0 : 1))
    }

    @Test("cancelling the caller ends a call hung in an interceptor at once, with cancelled")
    func hungStepCancelled() async throws {
        let gate = StuckGate()
        defer { gate.open() }
        let stub = StubTransport(fallback: .status(.ok))
        let client = Fixtures.client(
            stub, interceptors: [StuckInterceptor(gate: gate, inPrepare: true)], timeout: nil)
        let task = Task { try await client.send(Fixtures.request("x")) }
        try await Task.sleep(for: .milliseconds(100))
        let clock = ContinuousClock()
        let start = clock.now
        task.cancel()
        let result = await task.result
        #expect(clock.now - start < .seconds(20))
        guard case .failure(let error as ClientError) = result else {
            Issue.record("expected a ClientError, got \(result)")
            return
        }
        #expect(error.code == .cancelled)
        #expect(stub.requests.isEmpty)
    }

    @Test("a call's deadline ends a call hung in an interceptor with timedOut")
    func hungStepDeadline() async throws {
        let gate = StuckGate()
        defer { gate.open() }
        let stub = StubTransport(fallback: .status(.ok))
        let client = Fixtures.client(
            stub, interceptors: [StuckInterceptor(gate: gate, inPrepare: true)], timeout: nil)
        let error = await #expect(throws: ClientError.self) {
            _ = try await client.send(Fixtures.request("x").deadline(.now + .milliseconds(300)))
        }
        #expect(error?.code == .timedOut)
    }

    @Test("interceptors that suspend hand their request and context on, in both steps")
    func suspendingSteps() async throws {
        let stub = StubTransport(fallback: .status(.ok))
        let client = Fixtures.client(stub, interceptors: [SuspendingInterceptor()], retry: .default)
        let response = try await client.send(Fixtures.request("x"))
        #expect(response.status == .ok)
        // decide saw prepare's value and asked for one retry: two attempts, each prepared.
        #expect(stub.requests.count == 2)
        let prepared = try HTTPFieldName("X-Prepared")
        #expect(stub.requests.allSatisfy { $0.headerFields[prepared] == "after-a-sleep" })
    }

    @Test("a step that ends before the timeout leaves no deadline behind: a later slow answer is not cut short")
    func finishedStepKeepsNoDeadline() async throws {
        let stub = StubTransport(fallback: .status(.ok, delay: .milliseconds(400)))
        let client = Fixtures.client(stub, interceptors: [SuspendingInterceptor()], timeout: .seconds(30))
        let response = try await client.send(Fixtures.request("x"))
        #expect(response.status == .ok)
    }
}

@Suite("Interceptor steps that never wait run inline")
struct InlineStepsTests {
    @Test(
        "fixed fields, a fixed token, validation, logging and idempotency keys run inline; providers and refreshers do not"
    )
    func whichRunInline() throws {
        let inline: [any Interceptor] = [
            DefaultHeaderFields(try HTTPFields(["X-A": "1"])), BearerAuth(token: "t"), ResponseValidation(),
            Logging { _ in }, IdempotencyKey(), BasicAuth(username: "a", password: "b"),
        ]
        #expect(inline.stepsRunInline)
        #expect(Client(transport: StubTransport(), interceptors: inline).interceptorsRunInline)
        let provider = DefaultHeaderFields(.accept) { _ in "x" }
        #expect(![provider].stepsRunInline)
        #expect(![BearerAuth(TokenRefresher(token: "t") { _ in "u" })].stepsRunInline)
        #expect(!Client(transport: StubTransport(), interceptors: inline + [provider]).interceptorsRunInline)
    }
}
