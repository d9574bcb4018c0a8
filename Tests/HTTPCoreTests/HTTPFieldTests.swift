import HTTPCore
import Testing

@Suite("HTTPField")
struct HTTPFieldTests {
    @Test(
        "rejects a value that could end the field or split the request",
        arguments: [
            ("a\rb", "CR (0x0D)", 1),
            ("a\nb", "LF (0x0A)", 1),
            ("ok\r\nInjected: yes", "CR (0x0D)", 2),
            ("ok\r\n\r\nGET /admin HTTP/1.1", "CR (0x0D)", 2),
            ("\nX-Evil: 1", "LF (0x0A)", 0),
            ("a\0b", "NUL (0x00)", 1),
            ("a\u{7F}", "control character 0x7F", 1),
            ("a\u{01}", "control character 0x01", 1),
            ("a\u{1B}[31m", "control character 0x1B", 1),
            ("a\u{0B}", "control character 0x0B", 1),
            ("a\u{0C}", "control character 0x0C", 1),
        ])
    func rejectsControlCharacters(value: String, what: String, offset: Int) {
        let error = #expect(throws: HTTPCoreError.self) { try HTTPField(name: "X-Trace", value: value) }
        #expect(error?.code == .invalidFieldValue)
        #expect(error?.value == value)
        #expect(error?.reason.contains("X-Trace") == true)
        #expect(error?.reason.contains("\(what) at offset \(offset)") == true)
    }

    @Test("rejects every control character but tab", arguments: Array(UInt8(0)..<0x20).filter { $0 != 0x09 } + [0x7F])
    func rejectsEveryControl(byte: UInt8) {
        let value = "v" + String(UnicodeScalar(byte)) + "v"
        let error = #expect(throws: HTTPCoreError.self) { try HTTPField(name: .accept, value: value) }
        #expect(error?.code == .invalidFieldValue)
        #expect(error?.value == value)
    }

    @Test(
        "an error about a credential field names the field and offset, not the secret",
        arguments: [HTTPFieldName.authorization, .proxyAuthorization, .cookie, .setCookie])
    func redactsCredentials(name: HTTPFieldName) {
        let secret = "Bearer s3cr3t\r\nX-Evil: 1"
        let error = #expect(throws: HTTPCoreError.self) { try HTTPField(name: name, value: secret) }
        #expect(error?.code == .invalidFieldValue)
        #expect(error?.value == "<redacted 24 bytes>")
        #expect(error?.description.contains("s3cr3t") == false)
        #expect(error?.reason.contains("\(name.rawName) contains CR (0x0D) at offset 13") == true)
    }

    @Test("rejects a bad name before looking at the value")
    func rejectsBadNameString() {
        let error = #expect(throws: HTTPCoreError.self) { try HTTPField(name: "Bad:Name", value: "x\r\n") }
        #expect(error?.code == .invalidFieldName)
        #expect(error?.value == "Bad:Name")
    }

    @Test("accepts an inner tab, visible ASCII and non-ASCII text (obs-text)")
    func acceptsFieldContent() throws {
        let visible = String((0x20...0x7E).map { Character(UnicodeScalar(UInt8($0))) })
        #expect(try HTTPField(name: .userAgent, value: "a\tb").value == "a\tb")
        #expect(try HTTPField(name: .userAgent, value: "x" + visible).value == "x" + visible)
        #expect(try HTTPField(name: .contentDisposition, value: "naïve 文字").value == "naïve 文字")
    }

    @Test(
        "trims surrounding spaces and tabs only",
        arguments: [
            ("  value", "value"),
            ("value \t ", "value"),
            ("\t a b \t", "a b"),
            ("   ", ""),
            ("", ""),
            ("a  b", "a  b"),
        ])
    func trims(input: String, trimmed: String) throws {
        #expect(try HTTPField(name: .accept, value: input).value == trimmed)
    }

    @Test("renders as Name: value with the name's spelling")
    func description() throws {
        let field = try HTTPField(name: "x-custom", value: "1")
        #expect(field.description == "x-custom: 1")
        #expect(field.name == (try HTTPFieldName("X-Custom")))
    }

    @Test("equality uses the canonical name and the value")
    func equality() throws {
        #expect(try HTTPField(name: "ACCEPT", value: "a") == HTTPField(name: .accept, value: "a"))
        #expect(try HTTPField(name: .accept, value: "a") != HTTPField(name: .accept, value: "A"))
    }

    @Test("surrounding whitespace is trimmed by bytes, even before a combining mark")
    func trimsBeforeCombiningMark() throws {
        #expect(try HTTPField(name: .accept, value: " \u{301}x \t").value == "\u{301}x")
        #expect(try HTTPField(name: .accept, value: "\t\t").value == "")
        #expect(try HTTPField(name: .accept, value: " caf\u{E9} ").value == "caf\u{E9}")
    }
}
