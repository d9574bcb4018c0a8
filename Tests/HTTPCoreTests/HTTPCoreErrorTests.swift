import HTTPCore
import Testing

@Suite("HTTPCoreError")
struct HTTPCoreErrorTests {
    @Test("describes itself as code, quoted value and reason")
    func description() {
        let error = HTTPCoreError(.invalidMethod, value: "GE T", reason: "has a space")
        #expect(error.description == #"invalidMethod: "GE T": has a space"#)
    }

    @Test("escapes control characters, quotes and backslashes in the quoted value")
    func escapesValue() {
        let error = HTTPCoreError(.invalidFieldValue, value: "a\r\nb\0\"c\\\u{7F}\td", reason: "r")
        #expect(error.description == #"invalidFieldValue: "a\r\nb\u{00}\"c\\\u{7F}\u{09}d": r"#)
    }

    @Test("shortens a very long value to 200 characters")
    func shortensLongValue() {
        let error = HTTPCoreError(.bodyTooLarge, value: String(repeating: "x", count: 500), reason: "r")
        #expect(error.description == "bodyTooLarge: \"" + String(repeating: "x", count: 200) + "…\": r")
        #expect(error.value.count == 500)
    }

    @Test("codes are extensible and compare by identifier")
    func extensibleCodes() {
        let custom = HTTPCoreError.Code("somethingNew")
        #expect(custom == HTTPCoreError.Code("somethingNew"))
        #expect(custom != .invalidStatus)
        #expect(custom.description == "somethingNew")
        #expect(HTTPCoreError.Code.invalidFieldName.rawValue == "invalidFieldName")
    }

    @Test("every built-in code has a distinct identifier")
    func distinctCodes() {
        let codes: [HTTPCoreError.Code] = [
            .invalidFieldName, .invalidFieldValue, .invalidMethod, .invalidStatus, .invalidMediaType, .unreadableFile,
            .bodyTooLarge, .bodyAlreadyConsumed, .bodyLengthMismatch,
        ]
        #expect(Set(codes.map(\.rawValue)).count == codes.count)
    }

    @Test("a field value error names the value and the field, so a person can act on it")
    func actionableMessage() {
        let error = #expect(throws: HTTPCoreError.self) {
            try HTTPField(name: "X-Trace", value: "a\r\nInjected: yes")
        }
        #expect(
            error?.description
                == #"invalidFieldValue: "a\r\nInjected: yes": value of field X-Trace contains CR (0x0D) at offset 1"#
                + " (RFC 9110 §5.5)")
    }
}
