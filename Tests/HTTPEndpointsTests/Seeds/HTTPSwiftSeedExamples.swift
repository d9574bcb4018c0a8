import HTTPClientTesting
import HTTPEndpoints
import Testing

// The usage examples of HTTPSwift's README, each rewritten with Heron's public API.
// Between `// seed:` and `// end seed` is only the code that does the example's job.

// seed: HTTPSwift 1
// what: a GET read as JSON, a 204 read as nil, and a 4xx body read as one of two error types
func httpSwift1(client: Client) async throws {
    struct Response: Decodable {}

    _ = try await client.get("https://example.ios", as: Response.self)

    // An optional type reads a 204 or an empty body as nil.
    _ = try await client.get("https://example.ios", as: Response?.self)

    struct OneTypeOfErrorBody: Decodable {
        let message: String
    }

    struct AnotherTypeOfErrorBody: Decodable {
        let code: Int
    }

    // `send` returns any status; `get(_:as:)` would throw an EndpointError holding the body.
    let result = try await client.send(.get("https://example.ios"))
    switch result.status.kind {
    case .successful:
        break
    case .clientError:
        if let errorBody = try? result.body(as: OneTypeOfErrorBody.self) {
            print(errorBody.message)
        } else if let errorBody = try? result.body(as: AnotherTypeOfErrorBody.self) {
            print(errorBody.code)
        } else {
            print(try result.text())
        }
    default:
        break
    }
}
// end seed

// seed: HTTPSwift 2
// what: an interceptor that sets User-Agent, and one that retries transport errors at most 5 times, 1 s apart
// differs: one interceptor per step, each a closure; the retry stack is off (`.none`), so the
// interceptor's own limit is the only one, as in the original
func httpSwift2(transport: any ClientTransport = URLSessionTransport()) async throws {
    let client = Client(
        transport: transport,
        interceptors: [
            .prepare { $0 = $0.header(.userAgent, "My User-Agent") },
            .decide { outcome, context in
                outcome.error != nil && context.attempt <= 5 ? .retryAfter(.seconds(1)) : .proceed
            },
        ], retry: .none)
    try await client.send(.get("https://example.ios"))
}
// end seed

// seed: HTTPSwift 3
// what: an observer that prints each prepared request, transport error and response
func httpSwift3() async throws {
    let client = Client(observers: [
        EventObserver { event in
            switch event.kind {
            case .prepared(let request, _):
                print("Did prepare request:", request)
            case .transportError(let error, _):
                print("Did encounter transport error:", error)
            case .responseReceived(let response, _):
                print("Did receive response:", response)
            default:
                break
            }
        }
    ])

    _ = try await client.send(.get("https://example.ios"))
}
// end seed

// seed: HTTPSwift 4
// what: an endpoint that POSTs a JSON value and maps the JSON it gets back to another type
private enum Feature {
    struct Response {
        let text: String
    }

    struct Request: Encodable {
        let text: String
    }

    static let endpoint = Endpoint<Request, Response>(
        .post, "https://example.ios/feature/endpoint", body: .json,
        response: .custom { data, _ in
            struct ActualResponse: Decodable {
                let number: Int
            }
            let actualResponse = try JSONDecoder().decode(ActualResponse.self, from: data)
            return Response(text: String(actualResponse.number))
        })
}

func httpSwift4(client: Client) async throws -> String {
    let result = try await client.call(Feature.endpoint, .init(text: "Hello World"))
    return result.text
}
// end seed

// MARK: Running the examples

@Suite("HTTPSwift's README examples, in Heron")
struct HTTPSwiftSeedExamples {
    private static func client(_ stub: StubTransport, interceptors: [any Interceptor] = []) -> Client {
        Client(transport: stub, interceptors: interceptors, retry: .none)
    }

    @Test("1: a JSON GET, an optional read of a 204, and an error body read as one of two types")
    func request() async throws {
        let stub = StubTransport()
        stub.enqueue(
            .status(.ok, body: Data("{}".utf8)), .status(.noContent),
            .status(.badRequest, body: Data(#"{"code":7}"#.utf8)))
        try await httpSwift1(client: Self.client(stub))
        #expect(stub.requests.map(\.url.absoluteString) == Array(repeating: "https://example.ios", count: 3))
    }

    @Test("2: User-Agent on every request; transport errors retried by the interceptor, 1 s apart")
    func userAgent() async throws {
        let stub = StubTransport(fallback: .status(.ok))
        let refused = ClientError(.cannotConnect, "refused")
        stub.enqueue(.failure(refused), .failure(refused))
        let started = ContinuousClock.now
        try await httpSwift2(transport: stub)
        #expect(stub.requests.count == 3)
        #expect(stub.requests.allSatisfy { $0.headerFields[.userAgent] == "My User-Agent" })
        #expect(ContinuousClock.now - started >= .seconds(2))
        // After 5 retries the interceptor proceeds and the error is the call's.
        let failing = StubTransport(fallback: .failure(refused))
        await #expect(throws: ClientError.self) { try await httpSwift2(transport: failing) }
        #expect(failing.requests.count == 6)
    }

    @Test("4: the endpoint sends the value as JSON and maps the number it reads to text")
    func endpoint() async throws {
        let stub = StubTransport(fallback: .status(.ok, body: Data(#"{"number":42}"#.utf8)))
        #expect(try await httpSwift4(client: Self.client(stub)) == "42")
        #expect(stub.requests.first?.method == .post)
        #expect(stub.requests.first?.url.absoluteString == "https://example.ios/feature/endpoint")
        #expect(stub.recordedRequests.first?.body == Data(#"{"text":"Hello World"}"#.utf8))
    }
}
