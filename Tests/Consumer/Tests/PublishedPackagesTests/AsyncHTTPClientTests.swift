import Foundation
import HTTPClient
import HeronAsyncHTTPClient
import Testing

@Suite("heron-async-http-client, from its published repository")
struct AsyncHTTPClientTests {
    @Test("A GET to httpbin goes through AsyncHTTPClientTransport")
    func get() async throws {
        let transport = AsyncHTTPClientTransport()
        let client = Client(baseURL: try Servers.httpbin(), transport: transport)
        let response: ClientResponse<Data>
        do {
            response = try await client.send(.get("anything?from=heron-async-http-client"))
        } catch {
            try await transport.shutdown()
            throw error
        }
        try await transport.shutdown()

        #expect(response.status == .ok)
        #expect(try Servers.echoedArguments(response.body)["from"] == "heron-async-http-client")
    }
}
