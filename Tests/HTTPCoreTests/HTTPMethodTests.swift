import HTTPCore
import Testing

@Suite("HTTPMethod")
struct HTTPMethodTests {
    @Test(
        "registered methods have their token and RFC 9110 §9.2 properties",
        arguments: [
            (HTTPMethod.get, "GET", true, true),
            (.head, "HEAD", true, true),
            (.options, "OPTIONS", true, true),
            (.trace, "TRACE", true, true),
            (.put, "PUT", false, true),
            (.delete, "DELETE", false, true),
            (.post, "POST", false, false),
            (.patch, "PATCH", false, false),
            (.connect, "CONNECT", false, false),
        ])
    func registered(method: HTTPMethod, token: String, safe: Bool, idempotent: Bool) throws {
        #expect(method.rawValue == token)
        #expect(method.description == token)
        #expect(method.isSafe == safe)
        #expect(method.isIdempotent == idempotent)
        #expect(try HTTPMethod(token) == method)
    }

    @Test(
        "extension methods carry their registered safety and idempotency",
        arguments: [
            ("PROPFIND", true, true),
            ("REPORT", true, true),
            ("SEARCH", true, true),
            ("MKCOL", false, true),
            ("COPY", false, true),
            ("MOVE", false, true),
            ("PROPPATCH", false, true),
            ("UNLOCK", false, true),
            ("LOCK", false, false),
            ("PURGE", false, false),
        ])
    func extensionMethods(token: String, safe: Bool, idempotent: Bool) throws {
        let method = try HTTPMethod(token)
        #expect(method.rawValue == token)
        #expect(method.isSafe == safe)
        #expect(method.isIdempotent == idempotent)
    }

    @Test("every safe method is idempotent")
    func safeImpliesIdempotent() throws {
        let tokens = ["GET", "HEAD", "OPTIONS", "TRACE", "PROPFIND", "REPORT", "SEARCH", "POST", "X-CUSTOM"]
        for method in try tokens.map(HTTPMethod.init) where method.isSafe {
            #expect(method.isIdempotent, "\(method)")
        }
    }

    @Test("methods are case-sensitive (RFC 9110 §9.1)")
    func caseSensitive() throws {
        let lower = try HTTPMethod("get")
        #expect(lower != .get)
        #expect(lower.rawValue == "get")
        #expect(!lower.isSafe)
    }

    @Test(
        "rejects a method that is not a token",
        arguments: ["", "GET /", "GE T", "GET\r\n", "PO\nST", "GET\0", "DEL(ETE)", "GËT", "A:B", "A\"B", "\u{7F}"])
    func rejectsNonToken(token: String) {
        let error = #expect(throws: HTTPCoreError.self) { try HTTPMethod(token) }
        #expect(error?.code == .invalidMethod)
        #expect(error?.value == token)
    }

    @Test("accepts punctuation that tokens allow")
    func acceptsTokenPunctuation() throws {
        #expect(try HTTPMethod("M-SEARCH").rawValue == "M-SEARCH")
        #expect(try HTTPMethod("X_Y.Z~1").rawValue == "X_Y.Z~1")
    }
}
