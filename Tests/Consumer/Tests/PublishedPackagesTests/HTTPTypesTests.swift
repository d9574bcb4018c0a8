import Foundation
import HTTPClient
import HTTPCore
import HTTPTypes
import HeronHTTPTypes
import Testing

@Suite("heron-http-types, from its published repository")
struct HTTPTypesTests {
    @Test("A swift-http-types request, converted, is sent, and its response converted back")
    func convertAndSend() async throws {
        let httpbin = try Servers.httpbin()
        let head = HTTPTypes.HTTPRequest(
            method: .post, scheme: httpbin.scheme, authority: "\(httpbin.host!):\(httpbin.port!)",
            path: "/anything?from=heron-http-types", headerFields: [.contentType: "text/plain"])
        let request = try HTTPCore.HTTPRequest(head, body: HTTPBody("hello"))
        let response = try await Client(retry: .none).send(request)

        let responseHead = try HTTPTypes.HTTPResponse(response.head)
        #expect(responseHead.status == .ok)
        let echo = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        #expect(echo?["method"] as? String == "POST")
        #expect(echo?["data"] as? String == "hello")
        #expect(try Servers.echoedArguments(response.body)["from"] == "heron-http-types")
    }
}
