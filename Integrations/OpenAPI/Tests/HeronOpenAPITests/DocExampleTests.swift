import Foundation
import HTTPClient
import HeronOpenAPI
import OpenAPIRuntime
import Testing

// The examples of the package's documentation comments and DocC catalog, held verbatim and run
// against the local httpbin (`IntegrationsGuideTests.everyExampleIsHere` checks they are here).

/// OpenAPIOperationID's example.
struct OperationField: Interceptor {
    func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) async throws {
        if let operation = context.values[OpenAPIOperationID.self] {
            try request.headerFields.set(HTTPFieldName("X-Operation"), operation)
        }
    }
}

@Suite("The examples of HeronOpenAPI's documentation comments and catalog")
struct DocExampleTests {
    @Test("HeronTransport's example: the Heron client's BearerAuth and Logging act on the generated calls")
    func transportExample() async throws {
        let serverURL = try TestServers.httpbin()
        let printed = Collector<String>()
        @Sendable func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let heron = HTTPClient.Client(
            baseURL: serverURL,  // credentials go to this origin only
            interceptors: [BearerAuth(token: "s3cret"), Logging(.line) { print($0) }],
            retry: [.transportErrors(max: 2), .status([503], max: 2), .backoff(.exponential(base: 0.5, cap: 4))])
        let api = Client(serverURL: serverURL, transport: HeronTransport(client: heron))
        let headers = try await api.echoHeaders().ok.body.json.headers.additionalProperties
        print(headers["Authorization"] ?? "")  // Bearer s3cret

        let lines = printed.values
        #expect(lines.count == 3)
        #expect(lines.first == "-> GET \(serverURL.absoluteString)/headers (attempt 1)")
        #expect(lines.last == "Bearer s3cret")
    }

    @Test("OpenAPIOperationID's example: the interceptor sends the operation's identifier")
    func operationIDExample() async throws {
        let serverURL = try TestServers.httpbin()
        let heron = HTTPClient.Client(baseURL: serverURL, interceptors: [OperationField()])
        let api = Client(serverURL: serverURL, transport: HeronTransport(client: heron))
        let headers = try await api.echoHeaders().ok.body.json.headers.additionalProperties
        #expect(headers["X-Operation"] == "echoHeaders")
    }

    @Test("The catalog's example prints the query httpbin received")
    func catalogExample() async throws {
        let serverURL = try TestServers.httpbin()
        let printed = Collector<String>()
        @Sendable func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let api = Client(serverURL: serverURL, transport: HeronTransport(client: HTTPClient.Client(baseURL: serverURL)))
        let echo = try await api.getEcho(query: .init(greeting: "hi")).ok.body.json
        print(echo.args.additionalProperties)  // ["greeting": "hi"]

        #expect(printed.values == ["[\"greeting\": \"hi\"]"])
    }
}
