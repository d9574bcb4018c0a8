import Foundation
import HTTPCore
import Testing

@testable import HTTPClient

@Suite("Retry stack (state machine)")
struct RetryStackTests {
    let get = HTTPRequest(url: URL(string: "https://api.test/x")!)

    func response(_ code: Int, _ fields: KeyValuePairs<String, String> = [:]) -> AttemptOutcome {
        .response(HTTPResponse(status: try! HTTPStatus(code: code), headerFields: Fixtures.fields(fields)), body: nil)
    }

    func failure(_ code: ClientError.Code) -> AttemptOutcome { .failure(ClientError(code, "test")) }

    func decide(
        _ stack: RetryStack, _ outcome: AttemptOutcome, request: HTTPRequest? = nil, attempt: Int = 1,
        elapsed: Duration = .zero, optIn: Bool = false, state: inout RetryState, now: Date = Date()
    ) -> RetryAction {
        stack.decide(
            after: outcome, of: request ?? get, attempt: attempt, elapsed: elapsed, retriesNonIdempotent: optIn,
            state: &state, now: now)
    }

    @Test("default statuses are 408, 429, 500, 502, 503 and 504")
    func defaultStatuses() {
        #expect(RetryPolicy.defaultStatuses == [408, 429, 500, 502, 503, 504])
    }

    @Test(
        "listed statuses are retried, others finish", arguments: [(503, true), (429, true), (404, false), (200, false)])
    func listedStatuses(code: Int, retried: Bool) {
        var state = RetryState()
        let action = decide([.status([429, 503])], response(code), state: &state)
        #expect(action == (retried ? .retry(after: .zero) : .finish))
    }

    @Test("transport errors are retried up to max, then the stack gives up")
    func transportErrorsUpToMax() {
        let stack: RetryStack = [.transportErrors(max: 2)]
        var state = RetryState()
        #expect(decide(stack, failure(.connectionLost), attempt: 1, state: &state) == .retry(after: .zero))
        #expect(decide(stack, failure(.connectionLost), attempt: 2, state: &state) == .retry(after: .zero))
        guard case .giveUp = decide(stack, failure(.connectionLost), attempt: 3, state: &state) else {
            Issue.record("expected giveUp")
            return
        }
        #expect(state.totalRetries == 2)
    }

    @Test("timeouts are not retried by default but can be listed")
    func timeoutsOptIn() {
        var state = RetryState()
        #expect(decide([.transportErrors(max: 3)], failure(.timedOut), state: &state) == .finish)
        #expect(
            decide([.transportErrors(max: 3, codes: [.timedOut])], failure(.timedOut), state: &state)
                == .retry(after: .zero))
    }

    @Test("the attempt cap stops retries of any trigger")
    func attemptCap() {
        let stack: RetryStack = [.status(), .attempts(max: 3)]
        var state = RetryState()
        #expect(decide(stack, response(503), attempt: 2, state: &state) == .retry(after: .zero))
        #expect(
            decide(stack, response(503), attempt: 3, state: &state)
                == .giveUp(reason: "the limit of 3 attempts was reached"))
    }

    @Test("the time budget refuses a retry whose wait would overrun it")
    func timeBudget() {
        let stack = RetryStack([.status(), .timeBudget(.seconds(2)), .backoff(.constant(1), jitter: .none)])
        var state = RetryState()
        #expect(decide(stack, response(500), elapsed: .milliseconds(500), state: &state) == .retry(after: .seconds(1)))
        guard case .giveUp = decide(stack, response(500), elapsed: .milliseconds(1500), state: &state) else {
            Issue.record("expected giveUp")
            return
        }
    }

    @Test("non-idempotent methods are not retried unless opted in")
    func nonIdempotent() {
        let post = HTTPRequest(method: .post, url: URL(string: "https://api.test/x")!)
        var state = RetryState()
        #expect(decide([.status()], response(503), request: post, state: &state) == .finish)
        #expect(decide([.status()], response(503), request: post, optIn: true, state: &state) == .retry(after: .zero))
        let put = HTTPRequest(method: .put, url: URL(string: "https://api.test/x")!)
        #expect(decide([.status()], response(503), request: put, state: &state) == .retry(after: .zero))
    }

    @Test("a one-shot stream body is never retried")
    func oneShotBody() {
        let put = HTTPRequest(method: .put, url: URL(string: "https://api.test/x")!, body: Fixtures.oneShotBody("x"))
        var state = RetryState()
        #expect(decide([.status()], response(503), request: put, state: &state) == .bodyNotReplayable)
        #expect(state.totalRetries == 0)
    }

    @Test(
        "exponential backoff grows and is capped, before jitter",
        arguments: [(1, 0.5), (2, 1.0), (3, 2.0), (4, 4.0), (7, 30.0), (40, 30.0)])
    func exponential(retry: Int, seconds: Double) {
        #expect(Backoff.exponential(base: 0.5, cap: 30).delay(forRetry: retry) == seconds)
    }

    @Test(
        "jitter: none keeps, full scales by the random number, equal keeps half",
        arguments: [
            (Jitter.none, 0.25, 8.0), (.full, 0.25, 2.0), (.full, 0.0, 0.0), (.equal, 0.25, 5.0), (.equal, 1.0, 8.0),
        ])
    func jitter(jitter: Jitter, random: Double, expected: Double) {
        #expect(jitter.apply(to: 8, random: random) == expected)
    }

    @Test("the stack applies backoff with its injected random source")
    func backoffWithInjectedRandom() {
        let stack = RetryStack([.status(), .backoff(.exponential(base: 1, cap: 10), jitter: .full)]).fixedRandom(0.5)
        var state = RetryState()
        #expect(decide(stack, response(503), attempt: 1, state: &state) == .retry(after: .milliseconds(500)))
        #expect(decide(stack, response(503), attempt: 2, state: &state) == .retry(after: .seconds(1)))
        #expect(decide(stack, response(503), attempt: 3, state: &state) == .retry(after: .seconds(2)))
    }

    @Test("Retry-After in seconds sets the wait when longer than the backoff")
    func retryAfterSeconds() {
        let stack = RetryStack([.status(honorRetryAfter: true), .backoff(.constant(1), jitter: .none)])
        var state = RetryState()
        #expect(decide(stack, response(503, ["Retry-After": "3"]), state: &state) == .retry(after: .seconds(3)))
        #expect(decide(stack, response(503, ["Retry-After": "0"]), state: &state) == .retry(after: .seconds(1)))
    }

    @Test("Retry-After as an HTTP-date waits until that date")
    func retryAfterDate() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let date = HTTPDate.format(now.addingTimeInterval(5))
        var state = RetryState()
        #expect(
            decide([.status()], response(429, ["Retry-After": date]), state: &state, now: now)
                == .retry(after: .seconds(5)))
    }

    @Test("Retry-After is ignored when not honoured")
    func retryAfterIgnored() {
        var state = RetryState()
        #expect(
            decide([.status(honorRetryAfter: false)], response(503, ["Retry-After": "30"]), state: &state)
                == .retry(after: .zero))
    }

    @Test("a Retry-After longer than the limit gives up instead of waiting")
    func retryAfterOverLimit() {
        var state = RetryState()
        let action = decide(
            [.status(retryAfterLimit: .seconds(10))], response(503, ["Retry-After": "120"]), state: &state)
        guard case .giveUp(let reason) = action else {
            Issue.record("expected giveUp, got \(action)")
            return
        }
        #expect(reason.contains("Retry-After"))
    }

    @Test("the first matching trigger claims the outcome and its own max applies")
    func firstTriggerClaims() {
        let stack: RetryStack = [.status([503], max: 1), .status([503, 500], max: 5)]
        var state = RetryState()
        #expect(decide(stack, response(503), attempt: 1, state: &state) == .retry(after: .zero))
        guard case .giveUp = decide(stack, response(503), attempt: 2, state: &state) else {
            Issue.record("expected giveUp")
            return
        }
        #expect(decide(stack, response(500), attempt: 2, state: &state) == .retry(after: .zero))
        #expect(state.retries(byPolicy: 0) == 1)
        #expect(state.retries(byPolicy: 1) == 1)
    }

    @Test(
        "interceptor retries keep their own limit: the attempt policy does not bind them, the time budget and backstop do"
    )
    func interceptorRetryLimits() {
        var state = RetryState()
        let capped: RetryStack = [.attempts(max: 2)]
        #expect(
            capped.permitInterceptorRetry(of: get, attempt: 2, elapsed: .zero, wait: .zero, state: &state)
                == .retry(after: .zero))
        let budgeted: RetryStack = [.attempts(max: 2), .timeBudget(.seconds(10))]
        guard
            case .giveUp = budgeted.permitInterceptorRetry(
                of: get, attempt: 2, elapsed: .seconds(9), wait: .seconds(2), state: &state)
        else {
            Issue.record("expected giveUp past the time budget")
            return
        }
        for stack in [RetryStack.none, capped] {
            #expect(
                stack.permitInterceptorRetry(
                    of: get, attempt: RetryStack.interceptorAttemptCap - 1, elapsed: .zero, wait: .zero, state: &state)
                    == .retry(after: .zero))
            let atCap = stack.permitInterceptorRetry(
                of: get, attempt: RetryStack.interceptorAttemptCap, elapsed: .zero, wait: .zero, state: &state)
            guard case .giveUp(let reason) = atCap else {
                Issue.record("expected giveUp at the backstop")
                return
            }
            #expect(reason.contains("backstop of 10 attempts"))
        }
    }

    @Test("the default stack retries 503 twice with backoff, then gives up")
    func defaultStack() {
        let stack = RetryStack.default.fixedRandom(1)
        var state = RetryState()
        #expect(decide(stack, response(503), attempt: 1, state: &state) == .retry(after: .milliseconds(250)))
        #expect(decide(stack, response(503), attempt: 2, state: &state) == .retry(after: .milliseconds(500)))
        guard case .giveUp = decide(stack, response(503), attempt: 3, state: &state) else {
            Issue.record("expected giveUp")
            return
        }
    }

    @Test("absurd backoffs and waits are clamped instead of overflowing")
    func absurdValuesClamped() {
        let stack = RetryStack([.status(), .backoff(.exponential(base: 1e300, cap: 1e308), jitter: .none)])
        var state = RetryState()
        #expect(decide(stack, response(503), state: &state) == .retry(after: RetryStack.longestWait))
        let budgeted: RetryStack = [.timeBudget(.seconds(60))]
        guard
            case .giveUp = budgeted.permitInterceptorRetry(
                of: get, attempt: 1, elapsed: .seconds(1), wait: .seconds(Int64.max), state: &state)
        else {
            Issue.record("expected giveUp")
            return
        }
    }
}
