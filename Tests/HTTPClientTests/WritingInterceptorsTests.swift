import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import HTTPClient

// Each test holds, verbatim, one ```swift block of Docs/WritingInterceptors.md and runs it
// against the local httpbin, with `print` captured to check what the comments say it prints.
// `everySnippetIsHere` fails when a block of the page is missing from this file.

@Suite("Examples in Docs/WritingInterceptors.md")
struct WritingInterceptorsTests {
    @Test("every ```swift block of the page appears verbatim in this file")
    func everySnippetIsHere() throws {
        let tests = try SnippetSource.read("Tests/HTTPClientTests/WritingInterceptorsTests.swift")
        let blocks = SnippetSource.markdownBlocks(try SnippetSource.read("Docs/WritingInterceptors.md"))
        #expect(blocks.count == 5)
        for block in blocks {
            #expect(SnippetSource.contains(block, in: tests), "snippet is not tested:\n\(block)")
        }
    }

    @Test("a logger in four lines of closures")
    func closureLogger() async throws {
        let httpbin = try TestServers.httpbin()
        let printed = Locked<[String]>([])
        @Sendable func print(_ items: Any...) {
            printed.withLock { $0.append(items.map { "\($0)" }.joined(separator: " ")) }
        }

        let logger: [any Interceptor] = [
            .prepare { request in print("→", request) },
            .decide { outcome, context in print("←", outcome, "on attempt", context.attempt) },
        ]
        let client = Client(baseURL: httpbin, interceptors: logger)
        _ = try await client.send(.get("get"))
        // → GET http://127.0.0.1:…/get
        // ← 200 OK on attempt 1

        let lines = printed.withLock { $0 }
        #expect(lines == ["→ GET \(httpbin.absoluteString)/get", "← 200 OK on attempt 1"])
    }

    @Test("a prepare closure sets a field with a fluent modifier")
    func closurePrepare() async throws {
        let httpbin = try TestServers.httpbin()
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let traced = Client(
            baseURL: httpbin,
            interceptors: [
                .prepare { request in request = request.header("X-Trace", "heron-\(request.method)") }
            ])
        let echoed = try await traced.send(.get("headers"))
        print(String(decoding: echoed.body, as: UTF8.self).contains("heron-GET"))  // true

        #expect(printed == ["true"])
    }

    @Test("an interceptor type keeps its key with the base URL")
    func interceptorType() async throws {
        let httpbin = try TestServers.httpbin()
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        struct APIKey: Interceptor {
            let key: String
            func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) async throws {
                guard context.mayCarryCredentials(request) else { return }
                request = request.header("X-Api-Key", key)
            }
        }
        let keyed = Client(baseURL: httpbin, interceptors: [APIKey(key: "k-123")])
        let sent = try await keyed.send(.get("headers"))
        print(sent.request.headerFields["X-Api-Key"] ?? "none")  // k-123

        #expect(printed == ["k-123"])
        // Another origin gets no key from the client's interceptor.
        let elsewhere = try await keyed.send(
            HTTPRequest(url: try TestServers.faultServer().appendingPathComponent("headers")))
        #expect(elsewhere.request.headerFields["X-Api-Key"] == nil)
    }

    @Test("a synchronous interceptor stamps each attempt, inline")
    func synchronousType() async throws {
        let httpbin = try TestServers.httpbin()
        let printed = Collector<String>()
        @Sendable func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        struct Stamp: SynchronousInterceptor {
            func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) throws {
                request = request.header("X-Attempt", "\(context.attempt)")
            }

            func decide(_ outcome: AttemptOutcome, context: inout InterceptorContext) throws -> InterceptorDecision {
                outcome.response?.status.code == 503 && context.attempt < 2 ? .retry : .proceed
            }
        }
        let stamped = Client(baseURL: httpbin, interceptors: [Stamp()])
        let stampedResponse = try await stamped.send(.get("headers"))
        print(stampedResponse.request.headerFields["X-Attempt"] ?? "none")  // 1

        #expect(printed.values == ["1"])
        #expect(stamped.chain.runsInline)
        // Its decide retries a 503 once, the second attempt stamped 2 (no retry policy of the
        // client's own here, so only the interceptor's retry counts).
        let strict = Client(baseURL: httpbin, interceptors: [Stamp()], retry: [])
        let retried = try await strict.send(.get("status/503"))
        #expect(retried.status.code == 503)
        #expect(retried.request.headerFields["X-Attempt"] == "2")
        #expect(retried.metrics.attempts.count == 2)
    }

    @Test("a retry closure keeps its own limit of 5 attempts")
    func retryClosure() async throws {
        let httpbin = try TestServers.httpbin()
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let patient = Client(
            baseURL: httpbin,
            interceptors: [
                .decide { outcome, context in
                    outcome.response?.status.code == 418 && context.attempt < 5 ? .retry : .proceed
                }
            ])
        let teapot = try await patient.send(.get("status/418"))
        print(teapot.status, teapot.metrics.attempts.count)  // 418 5

        #expect(printed == ["418 5"])
    }

    @Test("closures that do not await run inline; one that awaits runs under the attempt's timeout")
    func inlineOrNot() async throws {
        let inline: [any Interceptor] = [
            .prepare { request in request = request.header("A", "1") }, .decide { _, _ in },
            .decide { _, _ in .proceed },
            ClosureInterceptor(prepare: { _, _ in }, decide: { _, _ in .proceed }),
        ]
        #expect(InterceptorChain(inline).runsInline)
        let waiting: [any Interceptor] = [.prepare { _ in try await Task.sleep(for: .seconds(60)) }]
        #expect(!InterceptorChain(waiting).runsInline)
        let slow = Client(baseURL: try TestServers.httpbin(), interceptors: waiting, timeout: .milliseconds(200))
        let started = ContinuousClock.now
        let error = await #expect(throws: ClientError.self) { try await slow.send(.get("get")) }
        #expect(error?.code == .timedOut)
        // Far below the step's 60 s: the timeout ended it (with room for a loaded machine).
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    @Test("a decide closure's decision counts; a looking one proceeds")
    func decisions() async throws {
        let failing = Client(
            baseURL: try TestServers.httpbin(),
            interceptors: [
                .decide { _, _ in },
                .decide { outcome, _ in
                    outcome.response?.status.code == 404
                        ? .fail(ClientError(.validationFailed, "not found")) : .proceed
                },
            ])
        let error = await #expect(throws: ClientError.self) { try await failing.send(.get("status/404")) }
        #expect(error?.code == .validationFailed)
        #expect(try await failing.send(.get("status/204")).status.code == 204)
    }
}
