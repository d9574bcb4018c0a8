import Foundation
import HTTPClient
import HTTPClientTesting
import HeronTracing
import InMemoryTracing
import Testing
import Tracing

@Suite("TracingInterceptor")
struct TracingInterceptorTests {
    static func client(
        _ stub: StubTransport, tracer: some Tracer, retry: RetryStack = .none, secretQueryNames: Set<String> = []
    ) -> Client {
        Client(
            baseURL: URL(string: "https://api.example.com")!, transport: stub,
            interceptors: [TracingInterceptor(tracer: tracer, secretQueryNames: secretQueryNames)], retry: retry)
    }

    @Test("A call's attempt is a client span named after the method, with OpenTelemetry's HTTP client attributes")
    func spanAttributes() async throws {
        let tracer = InMemoryTracer()
        let client = Self.client(StubTransport(fallback: .status(.ok)), tracer: tracer)
        _ = try await client.send(HTTPRequest(url: URL(string: "items/42?page=2")!))

        let span = try #require(tracer.finishedSpans.only)
        #expect(span.operationName == "GET")
        #expect(span.kind == .client)
        #expect(span.attributes["http.request.method"]?.toSpanAttribute() == "GET")
        #expect(span.attributes["url.full"]?.toSpanAttribute() == "https://api.example.com/items/42?page=2")
        #expect(span.attributes["server.address"]?.toSpanAttribute() == "api.example.com")
        #expect(span.attributes["server.port"]?.toSpanAttribute() == 443)
        #expect(span.attributes["http.response.status_code"]?.toSpanAttribute() == 200)
        #expect(span.attributes["http.request.resend_count"] == nil)
        #expect(span.attributes["error.type"] == nil)
        #expect(span.status == nil)
        #expect(tracer.activeSpans.isEmpty)
    }

    @Test("The span's context is injected into the request's header fields through the tracer")
    func injection() async throws {
        let tracer = InMemoryTracer()
        let stub = StubTransport(fallback: .status(.ok))
        _ = try await Self.client(stub, tracer: tracer).send(HTTPRequest(url: URL(string: "a")!))

        let span = try #require(tracer.finishedSpans.only)
        let sent = try #require(stub.requests.only)
        #expect(sent.headerFields[try HTTPFieldName(InMemoryTracer.traceIDKey)] == span.traceID)
        #expect(sent.headerFields[try HTTPFieldName(InMemoryTracer.spanIDKey)] == span.spanID)
        #expect(tracer.performedContextInjections.count == 1)
    }

    @Test("A W3C tracer's traceparent is sent, replacing one already on the request")
    func traceparent() async throws {
        let tracer = W3CTracer()
        let stub = StubTransport(fallback: .status(.ok))
        var request = HTTPRequest(url: URL(string: "a")!)
        try request.headerFields.append(name: try HTTPFieldName("traceparent"), value: "00-stale-stale-00")
        _ = try await Self.client(stub, tracer: tracer).send(request)

        let span = try #require(tracer.recorder.finishedSpans.only)
        let sent = try #require(stub.requests.only)
        #expect(sent.headerFields[values: try HTTPFieldName("traceparent")] == ["00-\(span.traceID)-\(span.spanID)-01"])
        #expect(span.traceID.count == 32 && span.spanID.count == 16)
    }

    @Test("Each attempt gets a span; a resend carries its count, a 5xx marks its span as an error")
    func retries() async throws {
        let tracer = InMemoryTracer()
        let stub = StubTransport()
        stub.enqueue(.status(.serviceUnavailable), .status(.ok))
        let client = Self.client(stub, tracer: tracer, retry: [.status(), .attempts(max: 2)])
        _ = try await client.send(HTTPRequest(url: URL(string: "a")!))

        let spans = tracer.finishedSpans
        #expect(spans.count == 2)
        #expect(spans[0].attributes["http.response.status_code"]?.toSpanAttribute() == 503)
        #expect(spans[0].attributes["error.type"]?.toSpanAttribute() == "503")
        #expect(spans[0].status?.code == .error)
        #expect(spans[0].attributes["http.request.resend_count"] == nil)
        #expect(spans[1].attributes["http.request.resend_count"]?.toSpanAttribute() == 1)
        #expect(spans[1].status == nil)
        // Each attempt propagates its own span.
        let spanIDField = try HTTPFieldName(InMemoryTracer.spanIDKey)
        #expect(stub.requests.map { $0.headerFields[spanIDField] } == spans.map(\.spanID))
    }

    @Test("A failure without a response sets error.type to the error code and records the error")
    func failure() async throws {
        let tracer = InMemoryTracer()
        let stub = StubTransport(fallback: .failure(ClientError(.cannotConnect, "refused")))
        await #expect(throws: ClientError.self) {
            _ = try await Self.client(stub, tracer: tracer).send(HTTPRequest(url: URL(string: "a")!))
        }

        let span = try #require(tracer.finishedSpans.only)
        #expect(span.attributes["error.type"]?.toSpanAttribute() == "cannotConnect")
        #expect(span.attributes["http.response.status_code"] == nil)
        #expect(span.status?.code == .error)
        #expect((span.errors.only?.error as? ClientError)?.code == .cannotConnect)
    }

    @Test("url.full hides the user, the password and secret query values")
    func urlRedaction() async throws {
        let tracer = InMemoryTracer()
        let stub = StubTransport(fallback: .status(.ok))
        let url = URL(string: "https://alice:pass-secret@api.example.com/x?token=t0k&session=s3s&page=2")!
        _ = try await Self.client(stub, tracer: tracer, secretQueryNames: ["session"]).send(HTTPRequest(url: url))

        let span = try #require(tracer.finishedSpans.only)
        #expect(
            span.attributes["url.full"]?.toSpanAttribute()
                == "https://REDACTED:REDACTED@api.example.com/x?token=***&session=***&page=2")
    }

    @Test("A method outside the known ones is named HTTP, with _OTHER and the original method")
    func otherMethod() async throws {
        let tracer = InMemoryTracer()
        let client = Self.client(StubTransport(fallback: .status(.ok)), tracer: tracer)
        _ = try await client.send(
            HTTPRequest(method: try HTTPMethod("PROPFIND"), url: URL(string: "http://dav.test:8080/")!))

        let span = try #require(tracer.finishedSpans.only)
        #expect(span.operationName == "HTTP")
        #expect(span.attributes["http.request.method"]?.toSpanAttribute() == "_OTHER")
        #expect(span.attributes["http.request.method_original"]?.toSpanAttribute() == "PROPFIND")
        #expect(span.attributes["server.port"]?.toSpanAttribute() == 8080)
    }

    @Test("The span is a child of the span current when the call starts")
    func parentSpan() async throws {
        let tracer = InMemoryTracer()
        let client = Self.client(StubTransport(fallback: .status(.ok)), tracer: tracer)
        try await tracer.withSpan("checkout") { _ in
            _ = try await client.send(HTTPRequest(url: URL(string: "a")!))
        }

        let spans = tracer.finishedSpans
        let child = try #require(spans.first { $0.operationName == "GET" })
        let parent = try #require(spans.first { $0.operationName == "checkout" })
        #expect(child.parentSpanID == parent.spanID)
        #expect(child.traceID == parent.traceID)
    }

    @Test("A span whose decide was skipped is ended by the next attempt's prepare")
    func abandonedSpan() async throws {
        let tracer = InMemoryTracer()
        let interceptor = TracingInterceptor(tracer: tracer)
        let original = HTTPRequest(url: URL(string: "https://api.example.com/a")!)
        var context = InterceptorContext(request: original)
        var request = original
        try await interceptor.prepare(&request, context: &context)
        #expect(tracer.activeSpans.count == 1)

        var retry = original
        try await interceptor.prepare(&retry, context: &context)
        #expect(tracer.finishedSpans.count == 1)
        #expect(tracer.activeSpans.count == 1)
        #expect(tracer.finishedSpans.first?.attributes["error.type"]?.toSpanAttribute() == "abandoned")
    }

    @Test("A cancelled call, whose attempt never reaches decide, leaves no span open")
    func cancelledCallEndsItsSpan() async throws {
        let tracer = InMemoryTracer()
        let client = Self.client(StubTransport(fallback: .failure(CancellationError())), tracer: tracer)
        let error = await #expect(throws: ClientError.self) {
            _ = try await client.send(HTTPRequest(url: URL(string: "a")!))
        }
        #expect(error?.code == .cancelled)

        #expect(await Self.noSpanOpen(tracer))
        let span = try #require(tracer.finishedSpans.only)
        #expect(span.attributes["error.type"]?.toSpanAttribute() == "abandoned")
        #expect(span.status?.code == .error)
    }

    @Test("A span whose decide another interceptor's decision skipped is still ended, as abandoned")
    func skippedDecideEndsItsSpan() async throws {
        let tracer = InMemoryTracer()
        // Misplaced: first in the list, so ResponseValidation decides first and ends the chain.
        let client = Client(
            baseURL: URL(string: "https://api.example.com")!, transport: StubTransport(fallback: .status(.notFound)),
            interceptors: [TracingInterceptor(tracer: tracer), ResponseValidation()], retry: .none)
        await #expect(throws: ClientError.self) {
            _ = try await client.send(HTTPRequest(url: URL(string: "a")!))
        }

        #expect(await Self.noSpanOpen(tracer))
        let span = try #require(tracer.finishedSpans.only)
        #expect(span.attributes["error.type"]?.toSpanAttribute() == "abandoned")
        #expect(span.attributes["http.response.status_code"] == nil)
    }

    @Test("A span that decide ended is not ended again when the context is released")
    func endedOnce() async throws {
        let tracer = InMemoryTracer()
        let client = Self.client(StubTransport(fallback: .status(.ok)), tracer: tracer)
        _ = try await client.send(HTTPRequest(url: URL(string: "a")!))

        let span = try #require(tracer.finishedSpans.only)
        #expect(span.attributes["error.type"] == nil)
        #expect(span.status == nil)
    }
}

extension TracingInterceptorTests {
    /// Whether every span has ended, waiting up to 5 s: the last copy of an attempt's context
    /// may belong to the task that ran an interceptor step, released just after the call returns.
    static func noSpanOpen(_ tracer: InMemoryTracer) async -> Bool {
        let clock = ContinuousClock()
        let give = clock.now + .seconds(5)
        while !tracer.activeSpans.isEmpty {
            guard clock.now < give else { return false }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return true
    }
}

extension Collection {
    /// The one element, or `nil` when there are none or several.
    var only: Element? { count == 1 ? first : nil }
}
