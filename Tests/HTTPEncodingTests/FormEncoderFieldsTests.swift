import Foundation
import HTTPCore
import HTTPEncoding
import Testing

@Suite("FormEncoder.encode(_:) for string fields")
struct FormEncoderFieldsTests {
    @Test("string fields encode without try, sorted, with + for a space")
    func oneLiner() {
        #expect(FormEncoder().encode(["user": "ada", "q": "a b"]) == "q=a+b&user=ada")
    }

    @Test("no fields encode to empty text")
    func empty() {
        #expect(FormEncoder().encode([:]).isEmpty)
    }

    @Test(
        "the text is the one the encoder writes for the same dictionary as untyped parameters",
        arguments: [
            ["q": "a b", "user": "ada"],
            ["a&b=c": "1+1=2", "path": "/a/b?c#d", "pct": "100%", "keep": "-._~", "star": "*!'()"],
            ["é": "héron ☕", "Z": "🦩", "a": "", "10": "x", "2": "y"],
            ["multi": "line\r\none", "tab": "a\tb", "nul": "a\u{0}b"],
            ["filter[status]": "open", "ids[]": "1"],
        ])
    func matchesUntypedParameters(fields: [String: String]) throws {
        for spaces in [FormStyle.Spaces.plus, .percent20] {
            for brackets in [FormStyle.Brackets.percentEncoded, .literal] {
                for keys in [KeyEncodingStrategy.useDefaultKeys, .convertToSnakeCase] {
                    let style = FormStyle(spaces: spaces, brackets: brackets)
                    let encoder = FormEncoder(style: style, keyEncodingStrategy: keys)
                    #expect(encoder.encode(fields) == (try encoder.encodeQuery(parameters: fields)))
                }
            }
        }
    }

    @Test("spaces follow the style: + by default, as in a body; %20 when the style says so")
    func spaces() async throws {
        let fields = ["q": "a b"]
        let body = try FormEncoder().encodeBody(parameters: fields)
        #expect(
            FormEncoder().encode(fields) == String(decoding: try await body.body.collect(upTo: 1024), as: UTF8.self))
        #expect(FormEncoder(style: FormStyle(spaces: .percent20)).encode(fields) == "q=a%20b")
    }

    @Test("keys are sorted by their written bytes even when the style keeps the encoded order")
    func alwaysSorted() {
        let encoder = FormEncoder(style: FormStyle(keyOrder: .asEncoded))
        // Written, "é" is "%C3%A9", which sorts before "Z" and "a".
        #expect(encoder.encode(["a": "1", "é": "2", "Z": "3"]) == "%C3%A9=2&Z=3&a=1")
    }

    @Test("the same fields give the same text whatever order the dictionary holds them in")
    func deterministic() {
        var forward: [String: String] = [:]
        var backward: [String: String] = [:]
        let keys = (0..<200).map { "key\($0)" }
        for key in keys { forward[key] = "v \(key)" }
        for key in keys.reversed() { backward[key] = "v \(key)" }
        backward.reserveCapacity(4096)
        let text = FormEncoder().encode(forward)
        #expect(text == FormEncoder().encode(backward))
        #expect(text.split(separator: "&").map { String($0.prefix { $0 != "=" }) } == keys.sorted())
    }

    @Test("keys the untyped encoder refuses as ambiguous are written as text, never refused or dropped")
    func ambiguousKeysAreWritten() throws {
        let fields = ["": "x", "a]": "1", "a[": "2", "b[c]d": "3"]
        #expect(FormEncoder().encode(fields) == "=x&a%5B=2&a%5D=1&b%5Bc%5Dd=3")
        let error = #expect(throws: HTTPEncodingError.self) { try FormEncoder().encodeQuery(parameters: fields) }
        #expect(error?.code == .ambiguousKey)
    }

    @Test("two keys the key strategy writes alike are both kept, ordered by value")
    func strategyCollisionKeepsBoth() {
        let encoder = FormEncoder(keyEncodingStrategy: .convertToSnakeCase)
        #expect(encoder.encode(["userName": "b", "user_name": "a"]) == "user_name=a&user_name=b")
    }

    @Test("the text reads back as the same fields")
    func roundTrip() throws {
        let fields = ["q": "a b&c=d", "name": "Héron ☕", "plus": "1+1", "empty": "", "tilde~": "~"]
        let back = try FormDecoder().decode([String: String].self, from: FormEncoder().encode(fields))
        #expect(back == fields)
    }

    @Test("a [String: String] already goes onto a request with form(_:), literal or variable, with its Content-Type")
    func requestForm() async throws {
        let fields: [String: String] = ["user": "ada", "q": "a b"]
        for request in [
            HTTPRequest.post("login").form(fields), HTTPRequest.post("login").form(["user": "ada", "q": "a b"]),
        ] {
            #expect(request.pendingError == nil)
            #expect(request.headerFields[.contentType] == "application/x-www-form-urlencoded")
            let body = try await #require(request.body).collect(upTo: 1024)
            #expect(String(decoding: body, as: UTF8.self) == FormEncoder().encode(fields))
        }
        let percent = HTTPRequest.post("login").form(fields, encoder: FormEncoder(style: FormStyle(spaces: .percent20)))
        let body = try await #require(percent.body).collect(upTo: 1024)
        #expect(String(decoding: body, as: UTF8.self) == "q=a%20b&user=ada")
    }
}
