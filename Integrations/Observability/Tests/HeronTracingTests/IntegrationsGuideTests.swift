import Foundation
import HTTPClient
import HTTPClientTesting
import HeronTracing
import Testing
import Tracing

/// The HeronTracing example in `Docs/Integrations.md`, kept compiling and run.
@Suite("The Integrations guide's HeronTracing example")
struct IntegrationsGuideTests {
    @Test("The guide's example runs (with the no-op tracer, as nothing is bootstrapped)")
    func guideExample() async throws {
        // The guide's example, verbatim; InMemoryTracer checks what it says in the other tests.
        let client = Client(
            baseURL: URL(string: "https://api.example.com")!,
            transport: StubTransport(fallback: .status(.ok)),  // URLSessionTransport() by default
            interceptors: [BearerAuth(token: "s3cret"), TracingInterceptor()])
        try await withSpan("checkout") { _ in
            _ = try await client.send(HTTPRequest(url: URL(string: "cart")!))
        }

        #expect(client.interceptors.last is TracingInterceptor)
    }
}
