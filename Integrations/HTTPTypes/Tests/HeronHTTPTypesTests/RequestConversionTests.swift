import HTTPCore
import HTTPTypes
import HeronHTTPTypes
import Testing

@Suite("Requests between HTTPCore and swift-http-types")
struct RequestConversionTests {
    static let standardMethods: [HTTPMethod] = [.get, .head, .post, .put, .delete, .connect, .options, .trace, .patch]

    @Test("Every standard method and an extension method survive both ways", arguments: standardMethods)
    func methodRoundTrips(_ method: HTTPMethod) throws {
        let core = HTTPCore.HTTPRequest(method: method, url: URL(string: "https://example.com/")!)
        let types = try HTTPTypes.HTTPRequest(core)
        #expect(types.method.rawValue == method.rawValue)
        #expect(try HTTPCore.HTTPRequest(types).method == method)
    }

    @Test("An extension method such as PROPFIND survives both ways")
    func extensionMethodRoundTrips() throws {
        let types = HTTPTypes.HTTPRequest(
            method: .init("PROPFIND")!, scheme: "https", authority: "dav.example.com", path: "/files/")
        let core = try HTTPCore.HTTPRequest(types)
        #expect(core.method == (try HTTPMethod("PROPFIND")))
        #expect(try HTTPTypes.HTTPRequest(core) == types)
    }

    @Test(
        "Absolute-form URLs become the same pseudo-header fields and back",
        arguments: [
            ("https://example.com/items", "https", "example.com", "/items"),
            ("http://example.com:8080/a/b?x=1&y=2", "http", "example.com:8080", "/a/b?x=1&y=2"),
            ("https://[::1]:8443/v1/", "https", "[::1]:8443", "/v1/"),
            (
                "https://example.com/caf%C3%A9/a%20b?q=%2F%3F&empty=", "https", "example.com",
                "/caf%C3%A9/a%20b?q=%2F%3F&empty="
            ),
            ("https://example.com/search?", "https", "example.com", "/search?"),
            ("https://xn--caf-dma.example/", "https", "xn--caf-dma.example", "/"),
        ])
    func absoluteURLRoundTrips(url: String, scheme: String, authority: String, path: String) throws {
        let core = HTTPCore.HTTPRequest(url: URL(string: url)!)
        let types = try HTTPTypes.HTTPRequest(core)
        #expect(types.scheme == scheme)
        #expect(types.authority == authority)
        #expect(types.path == path)
        #expect(try HTTPCore.HTTPRequest(types).url.absoluteString == url)
    }

    @Test("A Unicode host is sent in its IDNA form")
    func unicodeHostBecomesIDNA() throws {
        let types = try HTTPTypes.HTTPRequest(HTTPCore.HTTPRequest(url: URL(string: "https://café.example/")!))
        #expect(types.authority == "xn--caf-dma.example")
        #expect(try HTTPCore.HTTPRequest(types).url.absoluteString == "https://xn--caf-dma.example/")
    }

    @Test("An absolute URL with no path gets / and keeps it after")
    func emptyPathBecomesSlash() throws {
        let types = try HTTPTypes.HTTPRequest(HTTPCore.HTTPRequest(url: URL(string: "https://example.com")!))
        #expect(types.path == "/")
        #expect(try HTTPCore.HTTPRequest(types).url.absoluteString == "https://example.com/")
    }

    @Test("Origin-form, authority-form and asterisk-form targets survive both ways")
    func otherFormsRoundTrip() throws {
        let origin = HTTPTypes.HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/items?page=2")
        #expect(try HTTPCore.HTTPRequest(origin).url.relativeString == "/items?page=2")
        #expect(try HTTPTypes.HTTPRequest(HTTPCore.HTTPRequest(origin)) == origin)

        let connect = HTTPTypes.HTTPRequest(method: .connect, scheme: nil, authority: "example.com:443", path: nil)
        let core = try HTTPCore.HTTPRequest(connect)
        #expect(core.authority == "example.com:443")
        #expect(try HTTPTypes.HTTPRequest(core) == connect)

        let asterisk = HTTPTypes.HTTPRequest(method: .options, scheme: nil, authority: nil, path: "*")
        #expect(try HTTPTypes.HTTPRequest(HTTPCore.HTTPRequest(asterisk)) == asterisk)
    }

    @Test("Header fields keep order, repeats and spelling through a request")
    func requestFieldsRoundTrip() throws {
        var core = HTTPCore.HTTPRequest(method: .post, url: URL(string: "https://example.com/upload")!)
        core.headerFields = try HTTPCore.HTTPFields(["accept": "a/b", "X-Trace": "1", "Accept": "c/d"])
        core.body = HTTPBody("hello")
        let types = try HTTPTypes.HTTPRequest(core)
        #expect(types.headerFields.map(\.name.rawName) == ["accept", "X-Trace", "Accept"])
        let back = try HTTPCore.HTTPRequest(types, body: HTTPBody("hello"))
        #expect(back.headerFields.map(\.description) == core.headerFields.map(\.description))
        #expect(back.body != nil)
        #expect(try HTTPCore.HTTPRequest(types).body == nil)
    }

    @Test(
        "URLs swift-http-types cannot express are refused, not trimmed",
        arguments: [
            "https://user:pw@example.com/", "https://example.com/a#top", "items?x=1", "mailto:someone@example.com",
        ]
    )
    func inexpressibleURLIsRefused(url: String) throws {
        let core = HTTPCore.HTTPRequest(url: URL(string: url)!)
        let error = #expect(throws: HTTPTypesConversionError.self) { try HTTPTypes.HTTPRequest(core) }
        #expect(error?.code == .invalidURL)
        #expect(error?.description.contains("pw") == false)
    }

    @Test("Pseudo-header fields no URL keeps are refused")
    func inexpressiblePseudoHeadersAreRefused() throws {
        let cases: [HTTPTypes.HTTPRequest] = [
            .init(method: .get, scheme: "https", authority: "example.com", path: ""),
            .init(method: .get, scheme: "https", authority: "example.com", path: "/a b"),
            .init(method: .get, scheme: "https", authority: nil, path: nil),
            .init(method: .options, scheme: "https", authority: "example.com", path: "*"),
        ]
        for request in cases {
            let error = #expect(throws: HTTPTypesConversionError.self) { try HTTPCore.HTTPRequest(request) }
            #expect(error?.code == .invalidURL)
        }
    }

    @Test("Extended CONNECT's :protocol is refused")
    func extendedConnectIsRefused() throws {
        var request = HTTPTypes.HTTPRequest(method: .connect, scheme: "https", authority: "example.com", path: "/chat")
        request.extendedConnectProtocol = "websocket"
        let error = #expect(throws: HTTPTypesConversionError.self) { try HTTPCore.HTTPRequest(request) }
        #expect(error?.code == .unsupportedPseudoHeaderField)
        #expect(error?.value == "websocket")
    }

    @Test("A request with a pending fluent error is refused with that error")
    func pendingErrorIsRefused() throws {
        var core = HTTPCore.HTTPRequest(url: URL(string: "https://example.com/")!)
        core.pendingError = HTTPCoreError(.invalidFieldValue, value: "x", reason: "test")
        let error = #expect(throws: HTTPTypesConversionError.self) { try HTTPTypes.HTTPRequest(core) }
        #expect(error?.code == .pendingError)
        #expect(error?.underlying is HTTPCoreError)
    }
}
