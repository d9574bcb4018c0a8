import HTTPCore
import HTTPTypes
import HeronHTTPTypes
import Testing

/// The example in `Docs/Integrations.md`, kept compiling and checked.
@Suite("The Integrations guide's example")
struct IntegrationsGuideTests {
    @Test("The guide's PROPFIND request and 207 response convert as printed")
    func guideExample() throws {
        let head = HTTPTypes.HTTPRequest(
            method: .init("PROPFIND")!, scheme: "https", authority: "dav.example.com", path: "/files/?depth=1",
            headerFields: [.cookie: "a=1", .cookie: "b=2"])
        let request = try HTTPCore.HTTPRequest(head, body: HTTPBody("<propfind/>"))
        #expect(request.description == "PROPFIND https://dav.example.com/files/?depth=1")
        #expect(request.headerFields[values: .cookie] == ["a=1", "b=2"])

        var response = HTTPCore.HTTPResponse(status: try HTTPStatus(code: 207, reasonPhrase: "Multi-Status"))
        try response.headerFields.append(name: .setCookie, value: "c=3")
        let responseHead = try HTTPTypes.HTTPResponse(response)
        #expect("\(responseHead.status) \(responseHead.headerFields[.setCookie]!)" == "207 Multi-Status c=3")
    }
}
