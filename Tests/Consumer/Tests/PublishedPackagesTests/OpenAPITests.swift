import Foundation
import HTTPClient
import HTTPTypes
import HeronOpenAPI
import OpenAPIRuntime
import Testing

@Suite("heron-openapi, from its published repository")
struct OpenAPITests {
    @Test("An operation sent through HeronTransport reaches httpbin")
    func send() async throws {
        let httpbin = try Servers.httpbin()
        let transport = HeronTransport(client: HTTPClient.Client(baseURL: httpbin))
        let (response, body) = try await transport.send(
            HTTPTypes.HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/get?from=heron-openapi"),
            body: nil, baseURL: httpbin, operationID: "getEcho")

        #expect(response.status == .ok)
        let bytes = try await [UInt8](collecting: try #require(body), upTo: 1 << 20)
        #expect(try Servers.echoedArguments(Data(bytes))["from"] == "heron-openapi")
    }
}
