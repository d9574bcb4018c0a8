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
        #expect(InterceptorChain(inline).runsInline)
        #expect(Client(transport: StubTransport(), interceptors: inline).chain.runsInline)
        let provider = DefaultHeaderFields(.accept) { _ in "x" }
        #expect(!InterceptorChain([provider]).runsInline)
        #expect(!InterceptorChain([BearerAuth(TokenRefresher(token: "t") { _ in "u" })]).runsInline)
        let mixed = Client(transport: StubTransport(), interceptors: inline + [provider]).chain
        #expect(!mixed.runsInline)
        #expect(mixed.firstWaiting == inline.count && mixed.lastWaiting == inline.count)
    }
}

/// Records which task ran each step, in order.
private final class StepLog: @unchecked Sendable {
    // Invariant: `steps` is only touched under `lock`.
    private let lock = NSLock()
    private var steps: [(name: String, task: Int?)] = []

    func record(_ name: String) {
        let task = withUnsafeCurrentTask { $0?.hashValue }
        lock.withLock { steps.append((name, task)) }
    }

    var names: [String] { lock.withLock { steps.map(\.name) } }

    /// The steps that ran in the task whose hash is `task`.
    func ran(in task: Int?) -> [String] { lock.withLock { steps.filter { $0.task == task }.map(\.name) } }
}

private struct Marker: SynchronousInterceptor {
    let name: String
    let log: StepLog

    func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) throws {
        log.record("prepare \(name)")
        request = request.header("X-\(name)", "1")
    }

    func decide(_ outcome: AttemptOutcome, context: inout InterceptorContext) throws -> InterceptorDecision {
        log.record("decide \(name)")
        return .proceed
    }
}

private struct Waiter: Interceptor {
    let log: StepLog

    func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) async throws {
        await Task.yield()
        log.record("prepare waiter")
    }

    func decide(_ outcome: AttemptOutcome, context: inout InterceptorContext) async throws -> InterceptorDecision {
        await Task.yield()
        log.record("decide waiter")
        return .proceed
    }
}

@Suite("Synchronous interceptors run in the call's own task")
struct SynchronousInterceptorTests {
    @Test("a chain of synchronous interceptors runs every step in the caller's task, in order")
    func allInline() async throws {
        let log = StepLog()
        let stub = StubTransport(fallback: .status(.ok))
        let client = Fixtures.client(stub, interceptors: [Marker(name: "A", log: log), Marker(name: "B", log: log)])
        let caller = withUnsafeCurrentTask { $0?.hashValue }
        let response = try await client.send(Fixtures.request("x"))
        #expect(response.request.headerFields["X-A"] == "1" && response.request.headerFields["X-B"] == "1")
        #expect(log.names == ["prepare A", "prepare B", "decide B", "decide A"])
        #expect(log.ran(in: caller) == log.names)
    }

    @Test(
        "in a mixed chain the steps before the first that may wait (prepare) and after the last (decide) run inline, the rest in a task"
    )
    func mixedChain() async throws {
        let log = StepLog()
        let stub = StubTransport(fallback: .status(.ok))
        let client = Fixtures.client(
            stub, interceptors: [Marker(name: "A", log: log), Waiter(log: log), Marker(name: "B", log: log)],
            timeout: .seconds(30))
        let caller = withUnsafeCurrentTask { $0?.hashValue }
        _ = try await client.send(Fixtures.request("x"))
        #expect(
            log.names == [
                "prepare A", "prepare waiter", "prepare B", "decide B", "decide waiter", "decide A",
            ])
        #expect(log.ran(in: caller) == ["prepare A", "decide B"])
    }

    @Test("a synchronous interceptor's async steps (Interceptor's) call its synchronous ones")
    func asyncRequirementsForward() async throws {
        let log = StepLog()
        let marker: any Interceptor = Marker(name: "A", log: log)
        var request = Fixtures.request("x")
        var context = InterceptorContext(request: request)
        try await marker.prepare(&request, context: &context)
        let decision = try await marker.decide(.failure(ClientError(.timedOut, "slow")), context: &context)
        #expect(request.headerFields["X-A"] == "1")
        #expect(log.names == ["prepare A", "decide A"])
        if case .proceed = decision {} else { Issue.record("expected proceed, got \(decision)") }
    }
}
