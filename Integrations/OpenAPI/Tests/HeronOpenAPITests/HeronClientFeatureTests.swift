import Foundation
import HTTPClient
import HeronOpenAPI
import OpenAPIRuntime
import Testing

/// Adds `X-Operation` with the call's OpenAPI operation ID, and records every attempt.
struct OperationStamp: Interceptor {
    let seen: Collector<String>

    func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) async throws {
        let operation = context.values[OpenAPIOperationID.self] ?? "none"
        seen.append("\(operation) #\(context.attempt)")
        try request.headerFields.set(HTTPFieldName("X-Operation"), operation)
    }
}

/// What Heron's client does to the calls of a generated client: interceptors, retries, logging,
/// and the errors it throws.
@Suite("Heron's interceptors, retries and errors under a generated client")
struct HeronClientFeatureTests {
    @Test("An interceptor sees each call with its operation ID, and the field it adds is sent")
    func interceptorAddsField() async throws {
        let url = try TestServers.httpbin()
        let seen = Collector<String>()
        let heron = HTTPClient.Client(baseURL: url, interceptors: [OperationStamp(seen: seen)])
        let api = Client(serverURL: url, transport: HeronTransport(client: heron))

        let headers = try await api.echoHeaders().ok.body.json.headers.additionalProperties
        _ = try await api.status(path: .init(code: 200)).ok
        #expect(headers["X-Operation"] == "echoHeaders")
        #expect(seen.values == ["echoHeaders #1", "status #1"])
    }

    @Test("Heron's Logging writes the generated client's calls")
    func logging() async throws {
        let url = try TestServers.httpbin()
        let lines = Collector<String>()
        let heron = HTTPClient.Client(baseURL: url, interceptors: [Logging(.line) { lines.append($0) }])
        let api = Client(serverURL: url, transport: HeronTransport(client: heron))
        _ = try await api.getEcho(query: .init(count: 1)).ok
        #expect(lines.values.count == 2)
        #expect(lines.values.first == "-> GET \(url.absoluteString)/get?count=1 (attempt 1)")
        #expect(lines.values.last?.hasPrefix("<- 200 OK GET \(url.absoluteString)/get?count=1 (") == true)
    }

    @Test("A 503 is retried by Heron's retry policy; the generated code sees the final 200")
    func retryOf503() async throws {
        let url = try TestServers.faultServer()
        let seen = Collector<String>()
        let heron = HTTPClient.Client(
            baseURL: url, interceptors: [OperationStamp(seen: seen)], retry: [.status([503]), .attempts(max: 3)])
        let api = Client(serverURL: url, transport: HeronTransport(client: heron))
        let key = "openapi-retry-\(UUID().uuidString)"
        let attempt = try await api.flaky(query: .init(key: key, fail: 1)).ok.body.json
        #expect(attempt.attempt == 2)
        #expect(seen.values == ["flaky #1", "flaky #2"])
    }

    @Test("Without a retry for it, a 503 reaches the generated code as its documented case, body and all")
    func documented503WithoutRetry() async throws {
        let url = try TestServers.faultServer()
        let heron = HTTPClient.Client(baseURL: url, retry: [.transportErrors(max: 2)])
        let api = Client(serverURL: url, transport: HeronTransport(client: heron))
        let key = "openapi-no-retry-\(UUID().uuidString)"
        let refused = try await api.flaky(query: .init(key: key, fail: 1)).serviceUnavailable.body.json
        #expect(refused == Components.Schemas.Attempt(attempt: 1, status: 503))
    }

    @Test("Retries run out on a status: the generated code decodes the last response's documented case")
    func retriesRunOutOnADocumentedStatus() async throws {
        let url = try TestServers.faultServer()
        let heron = HTTPClient.Client(baseURL: url, retry: [.status([503], max: 1)])
        let api = Client(serverURL: url, transport: HeronTransport(client: heron))
        let key = "openapi-run-out-\(UUID().uuidString)"
        // Two attempts (one retry), both refused: the second answer is what the code sees.
        let refused = try await api.flaky(query: .init(key: key, fail: 5)).serviceUnavailable.body.json
        #expect(refused == Components.Schemas.Attempt(attempt: 2, status: 503))
        // The client alone, outside the transport, still fails such a call.
        #expect(heron.retry.whenExhausted == .fail)
    }

    @Test("Retries given up with whenRetriesRunOut .fail: OpenAPIRuntime's ClientError, tooManyRetries beneath")
    func retriesGivenUp() async throws {
        let url = try TestServers.faultServer()
        let heron = HTTPClient.Client(baseURL: url, retry: [.status([503], max: 1)])
        let api = Client(serverURL: url, transport: HeronTransport(client: heron, whenRetriesRunOut: .fail))
        let key = "openapi-give-up-\(UUID().uuidString)"
        let error = await #expect(throws: OpenAPIRuntime.ClientError.self) {
            _ = try await api.flaky(query: .init(key: key, fail: 5))
        }
        #expect(error?.operationID == "flaky")
        let heronError = try #require(error?.underlyingError as? HTTPClient.ClientError)
        #expect(heronError.code == .tooManyRetries)
        #expect(heronError.response?.status.code == 503)
        #expect(heronError.attempts.map { $0.status?.code } == [503, 503])
    }

    @Test("ResponseValidation turns a documented 404 into an error: a client for generated code leaves it out")
    func responseValidation() async throws {
        let url = try TestServers.httpbin()
        let heron = HTTPClient.Client(baseURL: url, interceptors: [ResponseValidation()], retry: .none)
        let api = Client(serverURL: url, transport: HeronTransport(client: heron))
        let error = await #expect(throws: OpenAPIRuntime.ClientError.self) {
            _ = try await api.status(path: .init(code: 404))
        }
        #expect((error?.underlyingError as? HTTPClient.ClientError)?.code == .validationFailed)
    }

    @Test("A refused connection: Heron's cannotConnect beneath OpenAPIRuntime's ClientError")
    func cannotConnect() async throws {
        // Port 1 (tcpmux) is privileged and nothing listens there, as in Heron's transport tests.
        let url = try #require(URL(string: "http://127.0.0.1:1"))
        let api = Client(
            serverURL: url, transport: HeronTransport(client: HTTPClient.Client(baseURL: url, retry: .none)))
        let error = await #expect(throws: OpenAPIRuntime.ClientError.self) {
            _ = try await api.echoHeaders()
        }
        let heronError = try #require(error?.underlyingError as? HTTPClient.ClientError)
        #expect(heronError.code == .cannotConnect)
        #expect(heronError.url?.absoluteString == "http://127.0.0.1:1/headers")
    }
}
