import Foundation
import HTTPCore
import Testing

@Suite("MediaType")
struct MediaTypeTests {
    /// The four equivalent spellings of RFC 9110 §8.3.1.
    static let rfcEquivalents = [
        "text/html;charset=utf-8",
        #"Text/HTML;Charset="utf-8""#,
        #"text/html; charset="utf-8""#,
        "text/html;charset=UTF-8",
    ]

    @Test("the RFC 9110 §8.3.1 examples are equivalent", arguments: MediaTypeTests.rfcEquivalents)
    func rfcExamplesEquivalent(text: String) throws {
        let parsed = try MediaType(parsing: text)
        let reference = try MediaType(parsing: MediaTypeTests.rfcEquivalents[0])
        #expect(parsed == reference)
        #expect(parsed.hashValue == reference.hashValue)
        #expect(parsed == .html)
        #expect(parsed.type == "text")
        #expect(parsed.subtype == "html")
        #expect(parsed.charset?.lowercased() == "utf-8")
        #expect(parsed.stringEncoding == .utf8)
    }

    @Test(
        "parses and prints in canonical form",
        arguments: [
            ("application/json", "application/json"),
            ("APPLICATION/JSON", "application/json"),
            ("  application/json  ", "application/json"),
            ("text/plain;charset=us-ascii", "text/plain; charset=us-ascii"),
            ("text/plain ; Charset = ", nil),
            (#"multipart/form-data; boundary="simple boundary""#, #"multipart/form-data; boundary="simple boundary""#),
            (#"multipart/form-data; boundary="token""#, "multipart/form-data; boundary=token"),
            (#"a/b; x="""#, #"a/b; x="""#),
            ("a/b;;; x=1;", "a/b; x=1"),
            ("a/b\t;\tx=1", "a/b; x=1"),
            (
                "application/vnd.api+json; ext=\"https://a.example/ext\"",
                "application/vnd.api+json; ext=\"https://a.example/ext\""
            ),
        ] as [(String, String?)])
    func canonicalForm(text: String, printed: String?) throws {
        if let printed {
            let parsed = try MediaType(parsing: text)
            #expect(parsed.description == printed)
            #expect(try MediaType(parsing: printed) == parsed)
        } else {
            #expect(throws: HTTPCoreError.self) { try MediaType(parsing: text) }
        }
    }

    @Test("parameter values keep their case except charset comparison")
    func parameterValueCase() throws {
        let upper = try MediaType(parsing: "multipart/form-data; boundary=ABC")
        let lower = try MediaType(parsing: "multipart/form-data; boundary=abc")
        #expect(upper != lower)
        #expect(upper[parameter: "BOUNDARY"] == "ABC")
        #expect(try MediaType(parsing: "text/plain; charset=UTF-8").charset == "UTF-8")
    }

    @Test("parameter order does not matter for equality")
    func parameterOrder() throws {
        let one = try MediaType(parsing: "a/b; x=1; y=2")
        let two = try MediaType(parsing: "a/b; y=2; x=1")
        #expect(one == two)
        #expect(Set([one, two]).count == 1)
        #expect(one.description == "a/b; x=1; y=2")
        #expect(two.description == "a/b; y=2; x=1")
    }

    @Test("quoted strings unescape quoted-pairs (RFC 9110 §5.6.4)")
    func unescapesQuotedPairs() throws {
        let parsed = try MediaType(parsing: #"a/b; q="say \"hi\" \\ \o""#)
        #expect(parsed[parameter: "q"] == #"say "hi" \ o"#)
    }

    @Test(
        "printing quotes and escapes values that are not tokens",
        arguments: [
            ("plain", "plain"),
            ("two words", #""two words""#),
            (#"say "hi""#, #""say \"hi\"""#),
            (#"back\slash"#, #""back\\slash""#),
            ("", #""""#),
            ("a;b=c", #""a;b=c""#),
            ("naïve", "\"naïve\""),
            ("tab\there", "\"tab\there\""),
        ])
    func quoting(value: String, printed: String) throws {
        let type = try MediaType(type: "a", subtype: "b", parameters: ["p": value])
        #expect(type.description == "a/b; p=\(printed)")
        #expect(try MediaType(parsing: type.description)[parameter: "p"] == value)
    }

    @Test("a quote followed by a combining mark is still escaped")
    func combiningMarkAfterQuote() throws {
        let value = "x\"\u{301}; evil=1"
        let type = try MediaType(type: "a", subtype: "b", parameters: ["p": value])
        let reparsed = try MediaType(parsing: type.description)
        #expect(reparsed[parameter: "p"] == value)
        #expect(reparsed[parameter: "evil"] == nil)
        #expect(reparsed.parameters.count == 1)
    }

    @Test(
        "rejects text that is not a media type",
        arguments: [
            "", "text", "text/", "/html", "text /html", "text/ html", "text/html extra", "text/html; charset",
            "text/html; charset =utf-8", "text/html; charset= utf-8", #"text/html; charset="utf-8"#,
            "text/html; charset=\"a\rb\"", "text/html; q=\"a\\\u{7F}\"", "te(x)t/html", "text/html; =x", "tëxt/html",
            "text/html, text/plain",
        ])
    func rejectsMalformed(text: String) {
        let error = #expect(throws: HTTPCoreError.self) { try MediaType(parsing: text) }
        #expect(error?.code == .invalidMediaType)
        #expect(error?.value == text)
    }

    @Test("parse errors say where the text stops being a media type")
    func errorGivesOffset() {
        let error = #expect(throws: HTTPCoreError.self) { try MediaType(parsing: "text/html x") }
        #expect(error?.reason.contains("offset 10") == true)
    }

    @Test("init from parts lowercases type, subtype and parameter names")
    func initFromParts() throws {
        let type = try MediaType(type: "Application", subtype: "JSON", parameters: ["Charset": "UTF-8"])
        #expect(type.type == "application")
        #expect(type.subtype == "json")
        #expect(type.parameters.map(\.name) == ["charset"])
        #expect(type.description == "application/json; charset=UTF-8")
        #expect(type.essence == "application/json")
    }

    @Test("init from parts rejects a bad type, parameter name or value")
    func initFromPartsRejects() {
        #expect(throws: HTTPCoreError.self) { try MediaType(type: "a b", subtype: "c") }
        #expect(throws: HTTPCoreError.self) { try MediaType(type: "a", subtype: "") }
        let name = #expect(throws: HTTPCoreError.self) {
            try MediaType(type: "a", subtype: "b", parameters: ["x y": "1"])
        }
        #expect(name?.value == "x y")
        let value = #expect(throws: HTTPCoreError.self) {
            try MediaType(type: "a", subtype: "b", parameters: ["x": "1\r\nInjected: 1"])
        }
        #expect(value?.code == .invalidMediaType)
        #expect(value?.value == "1\r\nInjected: 1")
    }

    @Test("setParameter replaces a parameter of the same name")
    func setParameterReplaces() throws {
        var type = try MediaType(parsing: "a/b; X=1; y=2")
        try type.setParameter("x", "3")
        #expect(type.description == "a/b; x=3; y=2")
        let copy = try type.withParameter("z", "4")
        #expect(copy.description == "a/b; x=3; y=2; z=4")
        #expect(type.parameters.count == 2)
    }

    @Test("multipart with a boundary built from the constant")
    func multipartBoundary() throws {
        let type = try MediaType.multipartFormData.withParameter("boundary", "----heron")
        #expect(type.description == "multipart/form-data; boundary=----heron")
        #expect(type.matches(.multipartFormData))
    }

    @Test(
        "constants print as registered",
        arguments: [
            (MediaType.json, "application/json"),
            (.formURLEncoded, "application/x-www-form-urlencoded"),
            (.multipartFormData, "multipart/form-data"),
            (.octetStream, "application/octet-stream"),
            (.plainText, "text/plain; charset=utf-8"),
            (.html, "text/html; charset=utf-8"),
            (.xml, "application/xml"),
            (.any, "*/*"),
        ])
    func constants(type: MediaType, printed: String) throws {
        #expect(type.description == printed)
        #expect(try MediaType(parsing: printed) == type)
    }

    @Test(
        "matches wildcards and required parameters",
        arguments: [
            ("text/html; charset=utf-8", "*/*", true),
            ("text/html; charset=utf-8", "text/*", true),
            ("text/html; charset=utf-8", "text/html", true),
            ("text/html; charset=utf-8", "text/html; charset=UTF-8", true),
            ("text/html; charset=utf-8", "text/html; charset=latin1", false),
            ("text/html", "text/html; charset=utf-8", false),
            ("text/html", "image/*", false),
            ("text/html", "text/plain", false),
            ("application/json", "application/*", true),
        ])
    func matching(type: String, pattern: String, expected: Bool) throws {
        #expect(try MediaType(parsing: type).matches(MediaType(parsing: pattern)) == expected)
    }

    @Test(
        "maps charsets to string encodings",
        arguments: [
            ("utf-8", String.Encoding.utf8),
            ("UTF8", .utf8),
            ("utf-16", .utf16),
            ("UTF-16BE", .utf16BigEndian),
            ("utf-16le", .utf16LittleEndian),
            ("utf-32", .utf32),
            ("US-ASCII", .ascii),
            ("ISO-8859-1", .isoLatin1),
            ("windows-1252", .windowsCP1252),
        ])
    func stringEncoding(charset: String, encoding: String.Encoding) throws {
        #expect(try MediaType(parsing: "text/plain; charset=\(charset)").stringEncoding == encoding)
    }

    @Test("an unknown or missing charset has no string encoding")
    func noStringEncoding() throws {
        #expect(try MediaType(parsing: "text/plain; charset=klingon").stringEncoding == nil)
        #expect(MediaType.json.charset == nil)
        #expect(MediaType.json.stringEncoding == nil)
    }

    @Test("a media type takes up to maximumParameterCount parameters; a hostile field of thousands is refused")
    func parameterCap() throws {
        func field(_ count: Int) -> String {
            "text/plain" + (0..<count).map { "; p\($0)=v" }.joined()
        }
        let most = try MediaType(parsing: field(MediaType.maximumParameterCount))
        #expect(most.parameters.count == MediaType.maximumParameterCount)
        #expect(most[parameter: "p63"] == "v")
        let error = #expect(throws: HTTPCoreError.self) {
            try MediaType(parsing: field(MediaType.maximumParameterCount + 1))
        }
        #expect(error?.code == .invalidMediaType)
        #expect(error?.reason.contains("more than 64 parameters") == true)
        #expect(throws: HTTPCoreError.self) { try MediaType(parsing: field(32_000)) }
    }
}
