import Foundation
import HTTPClient
import HTTPClientTesting
import Testing

/// One rule bounds every retry, whoever asks for it.
@Suite("One retry rule")
struct RetryRuleTests {
    /// Asks for a retry after every attempt.
    struct AlwaysRetry: Interceptor {
        func decide(_ outcome: AttemptOutcome, context: inout InterceptorContext) async throws -> InterceptorDecision {
            .retry
        }
    }

    static let base = URL(string: "https://api.example.com")!

    @Test("an interceptor that always retries is bounded like the stack: 3 attempts when the stack sets no cap")
    func interceptorBounded() async throws {
        let stub = StubTransport(fallback: .status(.ok))
        let client = Client(baseURL: Self.base, transport: stub, interceptors: [AlwaysRetry()], retry: .none)
        let error = await #expect(throws: ClientError.self) {
            _ = try await client.send(.post("jobs").body(HTTPBody("{}")))
        }
        #expect(error?.code == .tooManyRetries)
        #expect(stub.requests.count == 3)
        let capped = Client(
            baseURL: Self.base, transport: stub, interceptors: [AlwaysRetry()], retry: [.attempts(max: 5)])
        stub.clearRecords()
        _ = try? await capped.send(.get("jobs"))
        #expect(stub.requests.count == 5)
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
        #expect(stub.requests.count == 3)
        stub.clearRecords()
        _ = try? await client.send(.post("jobs").retriesNonIdempotent())
        #expect(stub.requests.count == 3)
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
