import HTTPCore
import HTTPTypes
import HeronHTTPTypes
import Testing

@Suite("Fields between HTTPCore and swift-http-types")
struct FieldsConversionTests {
    /// Name spelling and value pairs, in order, of HTTPCore fields.
    private func pairs(_ fields: HTTPCore.HTTPFields) -> [String] { fields.map { "\($0.name.rawName)=\($0.value)" } }

    /// Name spelling and value pairs, in order, of swift-http-types fields.
    private func pairs(_ fields: HTTPTypes.HTTPFields) -> [String] { fields.map { "\($0.name.rawName)=\($0.value)" } }

    @Test("Repeated Set-Cookie and other repeated fields keep their order both ways")
    func repeatedFieldsKeepOrder() throws {
        let core = try HTTPCore.HTTPFields([
            "Set-Cookie": "a=1; Path=/", "Vary": "Accept", "Set-Cookie": "b=2; Expires=Wed, 21 Oct 2026 07:28:00 GMT",
            "vary": "Origin", "Set-Cookie": "c=3",
        ])
        let types = try HTTPTypes.HTTPFields(core)
        #expect(pairs(types) == pairs(core))
        #expect(types[values: .setCookie] == ["a=1; Path=/", "b=2; Expires=Wed, 21 Oct 2026 07:28:00 GMT", "c=3"])
        let back = try HTTPCore.HTTPFields(types)
        #expect(pairs(back) == pairs(core))
        #expect(back == core)
    }

    @Test("Mixed-case names keep their spelling both ways")
    func mixedCaseNamesKeepSpelling() throws {
        let types: HTTPTypes.HTTPFields = [
            HTTPTypes.HTTPField.Name("x-REQUEST-id")!: "1", HTTPTypes.HTTPField.Name("ETag")!: "\"v1\"",
            HTTPTypes.HTTPField.Name("content-type")!: "text/plain",
        ]
        let core = try HTTPCore.HTTPFields(types)
        #expect(core.map(\.name.rawName) == ["x-REQUEST-id", "ETag", "content-type"])
        #expect(core[.contentType] == "text/plain")
        #expect(pairs(try HTTPTypes.HTTPFields(core)) == pairs(types))
    }

    @Test("Values with tabs and non-ASCII text survive both ways")
    func unusualValuesSurvive() throws {
        let core = try HTTPCore.HTTPFields(["X-Tab": "a\tb", "X-Text": "café ☕", "X-Empty": ""])
        let back = try HTTPCore.HTTPFields(HTTPTypes.HTTPFields(core))
        #expect(pairs(back) == pairs(core))
    }

    @Test("A field value with a newline from swift-http-types is refused with the field named")
    func newlineValueIsRefused() throws {
        let field = HTTPTypes.HTTPField(name: HTTPTypes.HTTPField.Name("X-Bad")!, lenientValue: Array("a\u{1}b".utf8))
        let error = #expect(throws: HTTPTypesConversionError.self) { try HTTPCore.HTTPField(field) }
        #expect(error?.code == .invalidFieldValue)
        #expect(error?.reason.contains("X-Bad") == true)
        #expect(error?.underlying is HTTPCoreError)
    }

    @Test("A credential's refused value is shown by length only")
    func credentialValueIsRedacted() throws {
        let field = HTTPTypes.HTTPField(name: .authorization, lenientValue: Array("Bearer s3cret\u{7F}".utf8))
        let error = #expect(throws: HTTPTypesConversionError.self) { try HTTPCore.HTTPField(field) }
        #expect(error?.code == .invalidFieldValue)
        #expect(error?.description.contains("s3cret") == false)
    }

    @Test("Surrounding whitespace HTTPCore would trim is refused, not dropped")
    func surroundingWhitespaceIsRefused() throws {
        let field = HTTPTypes.HTTPField(name: .accept, lenientValue: Array(" text/plain".utf8))
        let error = #expect(throws: HTTPTypesConversionError.self) { try HTTPCore.HTTPField(field) }
        #expect(error?.code == .invalidFieldValue)
    }

    @Test("A value that is not UTF-8 is refused")
    func nonUTF8ValueIsRefused() throws {
        let field = HTTPTypes.HTTPField(name: HTTPTypes.HTTPField.Name("X-Latin1")!, value: [0x63, 0x61, 0x66, 0xE9])
        let error = #expect(throws: HTTPTypesConversionError.self) { try HTTPCore.HTTPField(field) }
        #expect(error?.code == .invalidFieldValue)
    }

    @Test("A pseudo-header field name is refused by HTTPCore with its name")
    func pseudoHeaderNameIsRefused() throws {
        let field = HTTPTypes.HTTPField(name: HTTPTypes.HTTPField.Name(parsed: ":path")!, value: "/")
        let error = #expect(throws: HTTPTypesConversionError.self) { try HTTPCore.HTTPField(field) }
        #expect(error?.code == .invalidFieldName)
        #expect(error?.value == ":path")
    }
}
