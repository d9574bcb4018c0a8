import HTTPCore
import Testing

@Suite("HTTPFieldName")
struct HTTPFieldNameTests {
    /// Every `tchar` of RFC 9110 §5.6.2 that is not a letter or digit.
    static let tokenPunctuation = Array("!#$%&'*+-.^_`|~")

    /// The delimiters RFC 9110 §5.6.2 excludes from tokens: DQUOTE and `(),/:;<=>?@[\]{}`.
    static let delimiters = Array("\"(),/:;<=>?@[\\]{}")

    @Test("accepts names made of every token character")
    func acceptsEveryTokenCharacter() throws {
        let name = "Aa0" + String(Self.tokenPunctuation) + "Zz9"
        let fieldName = try HTTPFieldName(name)
        #expect(fieldName.rawName == name)
    }

    @Test("accepts a single token character", arguments: HTTPFieldNameTests.tokenPunctuation)
    func acceptsSinglePunctuation(character: Character) throws {
        #expect(try HTTPFieldName(String(character)).rawName == String(character))
    }

    @Test("of all 256 byte values, exactly the RFC 9110 §5.6.2 tchar set is accepted")
    func exactlyTokenBytes() {
        // tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~"
        //       / DIGIT / ALPHA
        let tchar = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        var accepted: Set<UInt8> = []
        for byte in UInt8.min...UInt8.max {
            // Bytes above 0x7F are written as the Latin-1 character, whose UTF-8 form is two bytes.
            let name = "A" + String(UnicodeScalar(byte)) + "z"
            if (try? HTTPFieldName(name)) != nil { accepted.insert(byte) }
        }
        #expect(accepted == tchar)
        #expect(tchar.count == 77)
    }

    @Test("rejects an empty name")
    func rejectsEmpty() {
        let error = #expect(throws: HTTPCoreError.self) { try HTTPFieldName("") }
        #expect(error?.code == .invalidFieldName)
        #expect(error?.value == "")
        #expect(error?.reason.contains("empty") == true)
    }

    @Test(
        "rejects a name holding a space, colon, control character or non-ASCII",
        arguments: [
            ("X Trace", "space"),
            ("X-Trace:", "colon"),
            (":authority", "leading colon"),
            ("X-Trace\r", "CR"),
            ("X-Trace\nInjected", "LF"),
            ("X-Trace\r\nInjected", "CRLF"),
            ("X-\0Trace", "NUL"),
            ("X-\tTrace", "tab"),
            ("X-\u{7F}", "DEL"),
            ("X-\u{1B}", "ESC"),
            ("X-Tracé", "non-ASCII letter"),
            ("X-\u{00A0}", "no-break space"),
            ("😀", "emoji"),
            (" X-Trace", "leading space"),
            ("X-Trace ", "trailing space"),
        ])
    func rejectsBadByte(name: String, kind: String) {
        let error = #expect(throws: HTTPCoreError.self, "\(kind)") { try HTTPFieldName(name) }
        #expect(error?.code == .invalidFieldName, "\(kind)")
        #expect(error?.value == name, "\(kind)")
        #expect(error?.reason.contains("RFC 9110") == true, "\(kind)")
    }

    @Test("rejects each delimiter", arguments: HTTPFieldNameTests.delimiters)
    func rejectsDelimiter(delimiter: Character) {
        let name = "X\(delimiter)Y"
        let error = #expect(throws: HTTPCoreError.self) { try HTTPFieldName(name) }
        #expect(error?.code == .invalidFieldName)
        #expect(error?.value == name)
        #expect(error?.reason.contains("offset 1") == true)
    }

    @Test("rejects every ASCII control character", arguments: Array(UInt8(0)..<0x20) + [0x7F])
    func rejectsControl(byte: UInt8) {
        let name = "X" + String(UnicodeScalar(byte))
        let error = #expect(throws: HTTPCoreError.self) { try HTTPFieldName(name) }
        #expect(error?.code == .invalidFieldName)
    }

    @Test("the error says which byte at which offset")
    func errorLocatesByte() {
        let error = #expect(throws: HTTPCoreError.self) { try HTTPFieldName("Bad Name") }
        #expect(error?.reason.hasPrefix("byte 0x20 at offset 3") == true)
    }

    @Test("compares and hashes case-insensitively")
    func caseInsensitive() throws {
        let upper = try HTTPFieldName("X-REQUEST-ID")
        let mixed = try HTTPFieldName("x-Request-Id")
        #expect(upper == mixed)
        #expect(Set([upper, mixed]).count == 1)
        #expect(upper.canonicalName == "x-request-id")
        #expect(upper != (try HTTPFieldName("X-Request-IDs")))
    }

    @Test("keeps the original spelling")
    func keepsSpelling() throws {
        let name = try HTTPFieldName("x-ReQuEsT-id")
        #expect(name.rawName == "x-ReQuEsT-id")
        #expect(name.description == "x-ReQuEsT-id")
    }

    @Test("orders by canonical form")
    func ordersByCanonicalForm() throws {
        let names = try ["b", "A", "C"].map(HTTPFieldName.init)
        #expect(names.sorted().map(\.rawName) == ["A", "b", "C"])
    }

    @Test(
        "well-known constants have their registered spelling",
        arguments: [
            (HTTPFieldName.contentType, "Content-Type"),
            (.authorization, "Authorization"),
            (.retryAfter, "Retry-After"),
            (.setCookie, "Set-Cookie"),
            (.cookie, "Cookie"),
            (.contentLength, "Content-Length"),
            (.eTag, "ETag"),
            (.wwwAuthenticate, "WWW-Authenticate"),
            (.idempotencyKey, "Idempotency-Key"),
        ])
    func constants(name: HTTPFieldName, spelling: String) throws {
        #expect(name.rawName == spelling)
        #expect(name == (try HTTPFieldName(spelling.uppercased())))
    }
}
