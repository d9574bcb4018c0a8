import HTTPCore
import HTTPTypes
import HeronHTTPTypes
import Testing

@Suite("Responses between HTTPCore and swift-http-types")
struct ResponseConversionTests {
    @Test("Every status from 100 to 599 survives both ways with its reason phrase")
    func everyStatusRoundTrips() throws {
        for code in 100...599 {
            let core = HTTPCore.HTTPResponse(status: try HTTPStatus(code: code))
            let types = try HTTPTypes.HTTPResponse(core)
            #expect(types.status.code == code)
            #expect(types.status.reasonPhrase == core.status.reasonPhrase)
            let back = try HTTPCore.HTTPResponse(types)
            #expect(back.status.code == code)
            #expect(back.status.reasonPhrase == core.status.reasonPhrase)
        }
    }

    @Test("A custom reason phrase and an empty one are kept both ways")
    func reasonPhrasesAreKept() throws {
        let custom = HTTPTypes.HTTPResponse(status: .init(code: 599, reasonPhrase: "Network Connect Timeout Error"))
        let unicode = HTTPCore.HTTPResponse(status: try HTTPStatus(code: 200, reasonPhrase: "Très bien ☕"))
        #expect(try HTTPCore.HTTPResponse(HTTPTypes.HTTPResponse(unicode)).status.reasonPhrase == "Très bien ☕")
        let core = try HTTPCore.HTTPResponse(custom)
        #expect(core.status.code == 599 && core.status.reasonPhrase == "Network Connect Timeout Error")
        #expect(try HTTPTypes.HTTPResponse(core).status.reasonPhrase == "Network Connect Timeout Error")

        let bare = try HTTPCore.HTTPResponse(HTTPTypes.HTTPResponse(status: 404))
        #expect(bare.status == .notFound && bare.status.reasonPhrase.isEmpty)
        #expect(try HTTPTypes.HTTPResponse(bare).status.reasonPhrase.isEmpty)
    }

    @Test("Header fields and the given URL are carried into an HTTPCore response")
    func fieldsAndURLAreCarried() throws {
        let types = HTTPTypes.HTTPResponse(
            status: .ok, headerFields: [.setCookie: "a=1", .contentType: "application/json", .setCookie: "b=2"])
        let url = URL(string: "https://example.com/items")!
        let core = try HTTPCore.HTTPResponse(types, url: url)
        #expect(core.url == url)
        #expect(core.headerFields.map(\.value) == ["a=1", "application/json", "b=2"])
        #expect(try HTTPTypes.HTTPResponse(core) == types)
    }

    @Test("A status outside 100...599 is refused with its code")
    func outOfRangeStatusIsRefused() throws {
        for code in [0, 99, 600, 999] {
            let error = #expect(throws: HTTPTypesConversionError.self) {
                try HTTPCore.HTTPResponse(HTTPTypes.HTTPResponse(status: .init(code: code)))
            }
            #expect(error?.code == .invalidStatus)
            #expect(error?.value == String(code))
        }
    }

    @Test("A reason phrase swift-http-types would alter is refused")
    func alteredReasonPhraseIsRefused() throws {
        for phrase in ["Bad\r\nX-Injected: 1", "Nul\u{0}", "Bell\u{7}"] {
            let core = HTTPCore.HTTPResponse(status: try HTTPStatus(code: 200, reasonPhrase: phrase))
            let error = #expect(throws: HTTPTypesConversionError.self) { try HTTPTypes.HTTPResponse(core) }
            #expect(error?.code == .invalidReasonPhrase)
        }
    }
}
