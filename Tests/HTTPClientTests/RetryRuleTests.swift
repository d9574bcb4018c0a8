import Foundation
import HTTPClient
import HTTPClientTesting
import Testing

/// The rules that bound every retry, whoever asks for it; an interceptor sets its own count,
/// under a backstop.
@Suite("One retry rule")
struct RetryRuleTests {
    /// Asks for a retry after every attempt.
    struct AlwaysRetry: Interceptor {
        func decide(_ outcome: AttemptOutcome, context: inout InterceptorContext) async throws -> InterceptorDecision {
            .retry
        }
    }

    static let base = URL(string: "https://api.example.com")!

    @Test("an interceptor that always retries stops at the backstop of 10 attempts, whatever the stack's attempt cap")
    func interceptorBounded() async throws {
        let stub = StubTransport(fallback: .status(.ok))
        let client = Client(baseURL: Self.base, transport: stub, interceptors: [AlwaysRetry()], retry: .none)
        let error = await #expect(throws: ClientError.self) {
            _ = try await client.send(.post("jobs").body(HTTPBody("{}")))
        }
        #expect(error?.code == .tooManyRetries)
        #expect(error?.message.contains("backstop") == true)
        #expect(stub.requests.count == RetryStack.interceptorAttemptCap)
        let capped = Client(
            baseURL: Self.base, transport: stub, interceptors: [AlwaysRetry()], retry: [.attempts(max: 5)])
        stub.clearRecords()
        _ = try? await capped.send(.get("jobs"))
        #expect(stub.requests.count == RetryStack.interceptorAttemptCap)
        // The time budget still binds it.
        let budgeted = Client(
            baseURL: Self.base, transport: stub, interceptors: [AlwaysRetry()], retry: [.timeBudget(.zero)])
        stub.clearRecords()
        _ = try? await budgeted.send(.get("jobs"))
        #expect(stub.requests.count == 1)
    }

    @Test("a POST that failed mid-request is re-sent for an interceptor only when opted in or keyed")
    func interceptorNonIdempotentFailure() async throws {
        let stub = StubTransport(fallback: .failure(ClientError(.connectionLost, "reset")))
        let client = Client(baseURL: Self.base, transport: stub, interceptors: [AlwaysRetry()], retry: .none)
        let refused = await #expect(throws: ClientError.self) { _ = try await client.send(.post("jobs")) }
        #expect(refused?.code == .tooManyRetries)
        #expect(refused?.message.contains("Idempotency-Key") == true)
        #expect(stub.requests.count == 1)
        stub.clearRecords()
        _ = try? await client.send(.post("jobs").header(.idempotencyKey, "k-1"))
        #expect(stub.requests.count == RetryStack.interceptorAttemptCap)
        stub.clearRecords()
        _ = try? await client.send(.post("jobs").retriesNonIdempotent())
        #expect(stub.requests.count == RetryStack.interceptorAttemptCap)
    }

    @Test("a POST answered 503 with Retry-After was not processed: the stack retries it without an opt-in")
    func stackRetryAfterShowsNotProcessed() async throws {
        let stub = StubTransport()
        stub.enqueue(
            .status(.serviceUnavailable, headerFields: [try HTTPField(name: .retryAfter, value: "0")]), .status(.ok),
            .status(.serviceUnavailable), .status(.ok))
        let client = Client(baseURL: Self.base, transport: stub)
        #expect(try await client.send(.post("jobs")).status == .ok)
        #expect(stub.requests.count == 2)
        // Without Retry-After nothing shows it was not processed: returned as it is.
        #expect(try await client.send(.post("jobs")).status == .serviceUnavailable)
        #expect(stub.requests.count == 3)
    }
}
