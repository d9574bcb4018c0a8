import Testing

@testable import HTTPEndpoints

/// What a value can and cannot do to the URI it is expanded into: every operator but `+`
/// and `#` encodes all but unreserved characters, so a value cannot add a path segment,
/// a query parameter, a fragment, a line break or a percent-escape of its own.
@Suite("URITemplate encoding")
struct URITemplateEncodingTests {
    /// A template, its variables and the exact expansion.
    struct Row: Sendable, CustomTestStringConvertible {
        let template: String
        let variables: [String: URITemplate.Value]
        let expected: String

        init(_ template: String, _ variables: [String: URITemplate.Value], _ expected: String) {
            self.template = template
            self.variables = variables
            self.expected = expected
        }

        var testDescription: String { "\(template) with \(variables) → \(expected)" }
    }

    static func expand(_ row: Row) throws -> String {
        try URITemplate(row.template).expand(row.variables)
    }

    @Test(
        "a path segment value cannot escape its segment",
        arguments: [
            Row("/users/{id}", ["id": "../admin"], "/users/..%2Fadmin"),
            Row("/users/{id}", ["id": "a/b"], "/users/a%2Fb"),
            Row("/users/{id}", ["id": "x?admin=1"], "/users/x%3Fadmin%3D1"),
            Row("/users/{id}", ["id": "#frag"], "/users/%23frag"),
            Row("/users/{id}", ["id": "%2F"], "/users/%252F"),
            Row("/users/{id}", ["id": "%2e%2e"], "/users/%252e%252e"),
            Row("/users/{id}", ["id": "a\\b"], "/users/a%5Cb"),
            Row("/users/{id}", ["id": "a;b,c"], "/users/a%3Bb%2Cc"),
            Row("/users/{id}", ["id": "[::1]@host"], "/users/%5B%3A%3A1%5D%40host"),
            Row("/users{/id}", ["id": "../admin"], "/users/..%2Fadmin"),
            Row("/files{/path*}", ["path": ["a/b", "c"]], "/files/a%2Fb/c"),
            Row("/v{.format}", ["format": "json/../x"], "/v.json%2F..%2Fx"),
            Row("/m{;id}", ["id": "1;admin=1"], "/m;id=1%3Badmin%3D1"),
        ])
    func pathValues(_ row: Row) throws {
        #expect(try Self.expand(row) == row.expected)
    }

    @Test(
        "a query value cannot add a parameter or a fragment",
        arguments: [
            Row("/search{?q}", ["q": "a&admin=1"], "/search?q=a%26admin%3D1"),
            Row("/search{?q}", ["q": "a+b"], "/search?q=a%2Bb"),
            Row("/search{?q}", ["q": "x#frag"], "/search?q=x%23frag"),
            Row("/search{?q*}", ["q": ["a&b", "c=d"]], "/search?q=a%26b&q=c%3Dd"),
            Row("/search{?f*}", ["f": ["a b": "c&d", "e=": "#"]], "/search?a%20b=c%26d&e%3D=%23"),
            Row("/search?x=1{&q}", ["q": "%41"], "/search?x=1&q=%2541"),
        ])
    func queryValues(_ row: Row) throws {
        #expect(try Self.expand(row) == row.expected)
    }

    @Test(
        "control characters, spaces and non-ASCII are percent-encoded as UTF-8",
        arguments: [
            Row("/h/{v}", ["v": "a\r\nSet-Cookie: x=1"], "/h/a%0D%0ASet-Cookie%3A%20x%3D1"),
            Row("/h/{v}", ["v": "a b\tc"], "/h/a%20b%09c"),
            Row("/h/{v}", ["v": "nul\u{0}byte"], "/h/nul%00byte"),
            Row("/h/{v}", ["v": "\u{7F}"], "/h/%7F"),
            Row("/h/{v}", ["v": "caf\u{E9}"], "/h/caf%C3%A9"),
            Row("/h/{v}", ["v": "\u{65E5}\u{672C}"], "/h/%E6%97%A5%E6%9C%AC"),
            Row("/h/{v}", ["v": "\u{1F9A9}"], "/h/%F0%9F%A6%A9"),
            Row("/h/{v}", ["v": "\u{202E}txt"], "/h/%E2%80%AEtxt"),
            Row("/h/{+v}", ["v": "a\r\n b"], "/h/a%0D%0A%20b"),
            Row("/h/{+v}", ["v": "\u{E9}"], "/h/%C3%A9"),
            Row("/h/{#v}", ["v": "\u{0}"], "/h/#%00"),
        ])
    func controlAndNonASCII(_ row: Row) throws {
        #expect(try Self.expand(row) == row.expected)
    }

    @Test(
        "{+var} and {#var} keep reserved characters and valid escapes, and nothing else",
        arguments: [
            Row("{+path}/here", ["path": "/foo/bar"], "/foo/bar/here"),
            Row("{+path}", ["path": "a/b?c=d#e"], "a/b?c=d#e"),
            Row("{+path}", ["path": "%2F%2f"], "%2F%2f"),
            Row("{+path}", ["path": "%zz%"], "%25zz%25"),
            Row("{+path}", ["path": "100%"], "100%25"),
            Row("{+path}", ["path": "a b<c>"], "a%20b%3Cc%3E"),
            Row("{+path}", ["path": "{x}|^`\""], "%7Bx%7D%7C%5E%60%22"),
            Row("{+path:2}", ["path": "a%2F"], "a%25"),
            Row("{#frag}", ["frag": "a#b/c"], "#a#b/c"),
        ])
    func reservedExpansion(_ row: Row) throws {
        #expect(try Self.expand(row) == row.expected)
    }

    @Test("every ASCII byte: unreserved copied, all else %XX in uppercase hex (RFC 6570 §3.2.1)")
    func everyASCIIByte() throws {
        let simple = try URITemplate("{v}")
        let reserved = try URITemplate("{+v}")
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".unicodeScalars)
        let reservedSet = Set(":/?#[]@!$&'()*+,;=".unicodeScalars)
        for code in UInt8(0)..<0x80 {
            let scalar = Unicode.Scalar(code)
            let value = String(Character(scalar))
            let hex = String(code, radix: 16, uppercase: true)
            let escaped = "%" + (hex.count == 1 ? "0" + hex : hex)
            #expect(try simple.expand(["v": .string(value)]) == (unreserved.contains(scalar) ? value : escaped))
            let keptByReserved = unreserved.contains(scalar) || reservedSet.contains(scalar)
            #expect(try reserved.expand(["v": .string(value)]) == (keptByReserved ? value : escaped))
        }
    }

    @Test("the byte sets written as constants match their definitions")
    func byteSetConstants() {
        let unreserved = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
        let built = URITemplate.ByteSet(unreserved)
        let builtReserved = URITemplate.ByteSet(unreserved + ":/?#[]@!$&'()*+,;=")
        #expect(URITemplate.ByteSet.unreserved.low == built.low)
        #expect(URITemplate.ByteSet.unreserved.high == built.high)
        #expect(URITemplate.ByteSet.unreservedAndReserved.low == builtReserved.low)
        #expect(URITemplate.ByteSet.unreservedAndReserved.high == builtReserved.high)
        #expect((0x80...0xFF).allSatisfy { !URITemplate.ByteSet.unreservedAndReserved.contains(UInt8($0)) })
    }

    @Test(
        "a prefix counts Unicode scalars and never splits one (RFC 6570 §2.4.1)",
        arguments: [
            Row("{v:1}", ["v": "\u{1D11E}stave"], "%F0%9D%84%9E"),
            Row("{v:2}", ["v": "\u{E9}\u{65E5}x"], "%C3%A9%E6%97%A5"),
            Row("{v:1}", ["v": "e\u{301}x"], "e"),
            Row("{v:2}", ["v": "e\u{301}x"], "e%CC%81"),
            Row("{v:3}", ["v": "ab"], "ab"),
            Row("{v:1}", ["v": ""], ""),
            Row("{?v:2}", ["v": "a b c"], "?v=a%20"),
        ])
    func prefixes(_ row: Row) throws {
        #expect(try Self.expand(row) == row.expected)
    }

    @Test(
        "literals: URI characters copied, other characters UTF-8 encoded, escapes kept (RFC 6570 §3.1)",
        arguments: [
            Row("caf\u{E9}/{var}", ["var": "value"], "caf%C3%A9/value"),
            Row("x%20y/{var}", ["var": "value"], "x%20y/value"),
            Row("%7e{var}", ["var": "v"], "%7ev"),
            Row("/a:b@c!$&'()*+,;=?q#f", [:], "/a:b@c!$&'()*+,;=?q#f"),
            Row("/\u{1F9A9}\u{E000}", [:], "/%F0%9F%A6%A9%EE%80%80"),
            Row("", [:], ""),
        ])
    func literals(_ row: Row) throws {
        #expect(try Self.expand(row) == row.expected)
    }

    @Test("a whole \"..\" value stays \"..\": RFC 6570 leaves dot segments to the caller")
    func dotSegmentValue() throws {
        // "." is unreserved, so it is copied; only "/" is what makes "../admin" harmless.
        #expect(try URITemplate("/users/{id}").expand(["id": ".."]) == "/users/..")
    }

    @Test("a long list expansion, past the stack buffer, is complete")
    func longList() throws {
        let items = (0..<2_000).map { "item \($0)" }
        let expanded = try URITemplate("/x{?items*}").expand(["items": .list(items)])
        #expect(expanded == "/x?" + (0..<2_000).map { "items=item%20\($0)" }.joined(separator: "&"))
    }

    @Test("a long value, past the stack buffer, is complete")
    func longExpansion() throws {
        let value = String(repeating: "a\u{E9}/", count: 3_000)
        let expanded = try URITemplate("/x/{v}{?v}").expand(["v": .string(value)])
        let encoded = String(repeating: "a%C3%A9%2F", count: 3_000)
        #expect(expanded == "/x/" + encoded + "?v=" + encoded)
    }
}

/// The public surface of `URITemplate` and `URITemplate.Value` beyond expansion.
@Suite("URITemplate API")
struct URITemplateAPITests {
    @Test("variableNames lists each name once, in order of first appearance")
    func variableNames() throws {
        let template = try URITemplate("{/owner,repo}/issues{?state,owner}{&Some%20Thing*,x.y:3}")
        #expect(template.variableNames == ["owner", "repo", "state", "Some%20Thing", "x.y"])
    }

    @Test("variableUses lists every specification with its operator and modifiers")
    func variableUses() throws {
        let uses = try URITemplate("{a}{+b:2}{#c*}{.d}{/e}{;f}{?g}{&a}").variableUses
        #expect(uses.map(\.name) == ["a", "b", "c", "d", "e", "f", "g", "a"])
        #expect(
            uses.map(\.operator) == [
                .simple, .reserved, .fragment, .label, .pathSegment, .pathParameter, .query, .queryContinuation,
            ])
        #expect(uses.map(\.prefix) == [nil, 2, nil, nil, nil, nil, nil, nil])
        #expect(uses.map(\.explode) == [false, false, true, false, false, false, false, false])
    }

    @Test("templates are equal and hash alike when their text is")
    func templateEquality() throws {
        #expect(try URITemplate("/a{b}") == URITemplate("/a{b}"))
        #expect(try URITemplate("/a{b}") != URITemplate("/a{+b}"))
        #expect(try Set([URITemplate("/a{b}"), URITemplate("/a{b}")]).count == 1)
        #expect(try URITemplate("/a{b}").description == "/a{b}")
    }

    @Test("literals make each kind of value; a dictionary literal keeps its order")
    func valueLiterals() {
        let string: URITemplate.Value = "x"
        let list: URITemplate.Value = ["a", "b"]
        let pairs: URITemplate.Value = ["z": "1", "a": "2"]
        #expect(string == .string("x"))
        #expect(list == .list(["a", "b"]))
        guard case .associative(let members) = pairs else {
            Issue.record("not associative")
            return
        }
        #expect(members.map(\.key) == ["z", "a"])
        #expect(members.map(\.value) == ["1", "2"])
    }

    @Test("associative values compare and hash in order")
    func valueEquality() {
        let forward: URITemplate.Value = ["a": "1", "b": "2"]
        let backward: URITemplate.Value = ["b": "2", "a": "1"]
        #expect(forward == ["a": "1", "b": "2"])
        #expect(forward != backward)
        #expect(forward.hashValue == URITemplate.Value.associative([("a", "1"), ("b", "2")]).hashValue)
        #expect(URITemplate.Value.list(["a"]) != .string("a"))
        #expect(Set<URITemplate.Value>([forward, backward, forward]).count == 2)
    }

    @Test("empty strings are defined; empty lists and associative arrays are not (RFC 6570 §2.3)")
    func definedness() throws {
        let template = try URITemplate("{?s,l,a}{;s}{.s}")
        #expect(try template.expand(["s": "", "l": [], "a": [:]]) == "?s=;s.")
        #expect(try template.expand(["l": [""], "a": ["k": ""]]) == "?l=&a=k,")
        #expect(try URITemplate("{?a*}{;a*}").expand(["a": ["k": ""]]) == "?k=;k")
        #expect(try URITemplate("{?l*}{;l*}").expand(["l": ["", "x"]]) == "?l=&l=x;l;l=x")
    }
}
