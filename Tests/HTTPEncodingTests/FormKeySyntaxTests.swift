import Foundation
import HTTPEncoding
import Testing

/// Keys whose own characters a decoder would read as key syntax: `[` and `]` (every
/// server percent-decodes a name before splitting it, so escaping cannot help), `.` with
/// dotted nesting, and the empty key (`a[]` means "append"). Writing them would send
/// another structure than the one encoded, so the encoder refuses them by name.
@Suite("Form keys that read back as key syntax")
struct FormKeySyntaxTests {
    struct Filters: Encodable {
        var filters: [String: Int]
    }

    static let dots = FormStyle(nesting: .dots)
    static let literal = FormStyle(brackets: .literal)

    @Test(
        "a Codable dictionary key holding key syntax is refused naming its key path",
        arguments: [
            ("a[b]", FormStyle()), ("a]", FormStyle()), ("[a", FormStyle()), ("a[b]", literal), ("", FormStyle()),
            ("a.b", dots), ("", dots),
        ])
    func codableKey(key: String, style: FormStyle) throws {
        let error = #expect(throws: HTTPEncodingError.self) {
            try FormEncoder(style: style).encodeQuery(Filters(filters: [key: 1]))
        }
        #expect(error?.code == .ambiguousKey)
        #expect(error?.keyPath == ["filters", key])
    }

    @Test(
        "an untyped parameter key holding key syntax is refused naming its key path",
        arguments: [
            ("a[b]", FormStyle()), ("b]", literal), ("", FormStyle()), ("x.y", dots),
            // Found by the form-parameters fuzz target: a bracket followed by a combining
            // mark is one Character but still a bracket, and is refused as one.
            ("k[\u{301}\u{301}", FormStyle()), ("k]\u{301}", FormStyle()),
        ])
    func untypedKey(key: String, style: FormStyle) throws {
        let parameters: [String: Any] = ["list": [["ok": 1, key: 2]]]
        let error = #expect(throws: HTTPEncodingError.self) {
            try FormEncoder(style: style).encodeQuery(parameters: parameters)
        }
        #expect(error?.code == .ambiguousKey)
        #expect(error?.keyPath == ["list", "0", key])
    }

    @Test(
        "a top-level key that is not a well-formed path is refused, in bodies too",
        arguments: [
            ("user]name", FormStyle()), ("[a]", FormStyle()), ("a[b]c", FormStyle()), ("a[b[c]]", FormStyle()),
            ("a[", FormStyle()), ("", FormStyle()), ("a..b", dots), (".a", dots), ("a.", dots),
        ])
    func topLevelBody(key: String, style: FormStyle) {
        let error = #expect(throws: HTTPEncodingError.self) {
            try FormEncoder(style: style).encodeBody(parameters: [key: "x"])
        }
        #expect(error?.code == .ambiguousKey)
        #expect(error?.keyPath == [key])
    }

    @Test(
        "a top-level key that is a well-formed path is written as given, in both ways of encoding",
        arguments: [
            ("filter[status]", FormStyle(), "filter%5Bstatus%5D=x"), ("ids[]", literal, "ids%5B%5D=x"),
            ("a[b][]", FormStyle(), "a%5Bb%5D%5B%5D=x"), ("user.name", dots, "user.name=x"),
            ("user.tags[0]", dots, "user.tags%5B0%5D=x"),
        ])
    func flatPath(key: String, style: FormStyle, expected: String) throws {
        let encoder = FormEncoder(style: style)
        #expect(try encoder.encodeQuery(parameters: [key: "x"]) == expected)
        #expect(try encoder.encodeQuery([key: "x"]) == expected)
    }

    @Test("a key strategy that writes key syntax is refused by the key it wrote")
    func strategyKey() {
        let encoder = FormEncoder(keyEncodingStrategy: .custom { $0 + "[x]" })
        let error = #expect(throws: HTTPEncodingError.self) { try encoder.encodeQuery(["m": ["a": 1]]) }
        #expect(error?.code == .ambiguousKey)
        #expect(error?.keyPath == ["m", "a"])
        #expect(error?.value == "a[x]")
    }

    @Test("a Codable value inside untyped parameters has no top-level keys")
    func codableInsideParameters() {
        let error = #expect(throws: HTTPEncodingError.self) {
            try FormEncoder().encodeQuery(parameters: ["outer": Filters(filters: ["a[b]": 1])])
        }
        #expect(error?.code == .ambiguousKey)
        #expect(error?.keyPath == ["outer", "filters", "a[b]"])
    }

    @Test("a Codable value passed through a single-value container keeps its top-level keys")
    func singleValueWrapper() throws {
        struct Wrapper: Encodable {
            var inner: [String: String]
            func encode(to encoder: any Encoder) throws {
                var single = encoder.singleValueContainer()
                try single.encode(inner)
            }
        }
        #expect(try FormEncoder().encodeQuery(Wrapper(inner: ["f[a]": "1"])) == "f%5Ba%5D=1")
        let error = #expect(throws: HTTPEncodingError.self) {
            try FormEncoder().encodeQuery(Wrapper(inner: ["f]": "1"]))
        }
        #expect(error?.keyPath == ["f]"])
    }

    @Test("a dot in a key is plain text with bracket nesting and reads back as written")
    func dotWithBrackets() throws {
        let query = try FormEncoder().encodeQuery(Filters(filters: ["a.b": 1]))
        #expect(query == "filters%5Ba.b%5D=1")
        struct Back: Decodable, Equatable { var filters: [String: Int] }
        #expect(try FormDecoder().decode(Back.self, from: query) == Back(filters: ["a.b": 1]))
    }

    @Test("the error message names the key and says why")
    func message() {
        let error = #expect(throws: HTTPEncodingError.self) {
            try FormEncoder().encodeQuery(Filters(filters: ["a[b]": 1]))
        }
        let text = error.map(String.init(describing:)) ?? ""
        #expect(text.contains("filters[a[b]]"))
        #expect(text.contains("a[b]"))
    }
}
