import Foundation
import HTTPClientTesting
import HTTPCore
import Testing

@testable import HTTPClient

private enum Marker: RequestValueKey {
    typealias Value = [String]
}

@Suite("Interceptor chain")
struct InterceptorChainTests {
    @Test("prepare runs in array order and decide in reverse order")
    func order() async throws {
        let log = Collector<String>()
        let stub = StubTransport(fallback: .status(.ok))
        let client = Fixtures.client(
            stub,
            interceptors: [
                ProbeInterceptor(name: "a", log: log), ProbeInterceptor(name: "b", log: log),
                ProbeInterceptor(name: "c", log: log),
            ])
        _ = try await client.send(Fixtures.request("x"))
        #expect(
            log.values == ["prepare a #1", "prepare b #1", "prepare c #1", "decide c #1", "decide b #1", "decide a #1"])
        #expect(stub.requests.first?.headerFields[values: try HTTPFieldName("X-Trail")] == ["a", "b", "c"])
    }

    @Test("the first decision other than proceed wins and later interceptors are not asked")
    func firstDecisionWins() async throws {
        let log = Collector<String>()
        let stub = StubTransport(fallback: .status(.ok))
        let failing = ProbeInterceptor(name: "b", log: log) { _, _ in
            .fail(ClientError(.validationFailed, "rejected by b"))
        }
        let client = Fixtures.client(
            stub, interceptors: [ProbeInterceptor(name: "a", log: log), failing, ProbeInterceptor(name: "c", log: log)])
        let error = await #expect(throws: ClientError.self) { _ = try await client.send(Fixtures.request("x")) }
        #expect(error?.message == "rejected by b")
        #expect(log.values.filter { $0.hasPrefix("decide") } == ["decide c #1", "decide b #1"])
    }

    @Test("an interceptor's retry re-runs the whole prepare chain with the next attempt number")
    func retryRerunsPrepare() async throws {
        let log = Collector<String>()
        let stub = StubTransport(fallback: .status(.ok))
        let retryOnce = ProbeInterceptor(name: "r", log: log) { _, context in context.attempt == 1 ? .retry : .proceed }
        let client = Fixtures.client(stub, interceptors: [retryOnce])
        let response = try await client.send(Fixtures.request("x"))
        #expect(response.metrics.attempts.count == 2)
        #expect(log.values == ["prepare r #1", "decide r #1", "prepare r #2", "decide r #2"])
        #expect(stub.requests.count == 2)
        #expect(stub.requests.allSatisfy { $0.headerFields[values: try! HTTPFieldName("X-Trail")] == ["r"] })
    }

    @Test("retryAfter waits the requested delay before the next attempt")
    func retryAfterWaits() async throws {
        let log = Collector<String>()
        let stub = StubTransport(fallback: .status(.ok))
        let interceptor = ProbeInterceptor(name: "r", log: log) { _, context in
            context.attempt == 1 ? .retryAfter(.milliseconds(200)) : .proceed
        }
        let clock = ContinuousClock()
        let elapsed = try await clock.measure {
            _ = try await Fixtures.client(stub, interceptors: [interceptor]).send(Fixtures.request("x"))
        }
        #expect(elapsed >= .milliseconds(200))
        #expect(stub.requests.count == 2)
    }

    @Test("values set in prepare are seen by decide and by later attempts, seeded from the options")
    func sharedValues() async throws {
        struct Writer: Interceptor {
            let seen: Collector<[String]>
            func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) async throws {
                context.values[Marker.self, default: []].append("p\(context.attempt)")
            }
            func decide(
                _ outcome: AttemptOutcome, context: inout InterceptorContext
            ) async throws
                -> InterceptorDecision
            {
                seen.append(context.values[Marker.self] ?? [])
                return context.attempt < 2 ? .retry : .proceed
            }
        }
        let seen = Collector<[String]>()
        var options = RequestOptions()
        options.values[Marker.self] = ["seed"]
        _ = try await Fixtures.client(StubTransport(fallback: .status(.ok)), interceptors: [Writer(seen: seen)])
            .send(Fixtures.request("x"), options: options)
        #expect(seen.values == [["seed", "p1"], ["seed", "p1", "p2"]])
    }

    @Test("the context carries the original request, the sent request and the elapsed time")
    func contextContents() async throws {
        struct Inspector: Interceptor {
            let seen: Collector<String>
            func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) async throws {
                try request.headerFields.set(.userAgent, "probe")
            }
            func decide(
                _ outcome: AttemptOutcome, context: inout InterceptorContext
            ) async throws
                -> InterceptorDecision
            {
                seen.append(context.originalRequest.url.absoluteString)
                seen.append(context.originalRequest.headerFields[.userAgent] ?? "none")
                seen.append(context.request.headerFields[.userAgent] ?? "none")
                seen.append(context.elapsed >= .milliseconds(50) ? "waited" : "fast")
                return .proceed
            }
        }
        let seen = Collector<String>()
        let stub = StubTransport(fallback: .status(.ok, delay: .milliseconds(50)))
        _ = try await Fixtures.client(stub, interceptors: [Inspector(seen: seen)]).send(Fixtures.request("x"))
        #expect(seen.values == ["https://api.test/v2/x", "none", "probe", "waited"])
    }

    @Test("a non-ClientError thrown by an interceptor is wrapped as interceptorFailed")
    func thrownErrorWrapped() async throws {
        struct Boom: Error {}
        struct Thrower: Interceptor {
            func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) async throws { throw Boom() }
        }
        let stub = StubTransport(fallback: .status(.ok))
        let error = await #expect(throws: ClientError.self) {
            _ = try await Fixtures.client(stub, interceptors: [Thrower()]).send(Fixtures.request("x"))
        }
        #expect(error?.code == .interceptorFailed)
        #expect(error?.underlying is Boom)
        #expect(stub.requests.isEmpty)
    }

    @Test("a failure decided by an interceptor is still retried when the retry stack wants it")
    func failThenRetryByStack() async throws {
        let log = Collector<String>()
        let stub = StubTransport()
        stub.enqueue(.status(.serviceUnavailable), .status(.ok))
        let validator = ProbeInterceptor(name: "v", log: log) { outcome, _ in
            outcome.response?.status == .ok ? .proceed : .fail(ClientError(.validationFailed, "not ok"))
        }
        let client = Fixtures.client(stub, interceptors: [validator], retry: [.status(), .attempts(max: 3)])
        let response = try await client.send(Fixtures.request("x"))
        #expect(response.status == .ok)
        #expect(stub.requests.count == 2)
    }
}

extension RequestValues {
    fileprivate subscript<Key: RequestValueKey>(_ key: Key.Type, default value: Key.Value) -> Key.Value {
        get { self[key] ?? value }
        set { self[key] = newValue }
    }
}
