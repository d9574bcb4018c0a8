import Foundation
import HTTPEncoding
import Testing

/// Untyped `[String: Any]` parameters through the same encoder and options.
@Suite("Untyped form parameters")
struct FormParameterTests {
    private let literal = FormEncoder(style: FormStyle(brackets: .literal))

    @Test("common Swift values encode like their typed equivalents")
    func commonValues() throws {
        let parameters: [String: Any] = [
            "page": 1, "tags": ["a", "b"], "date": Date(timeIntervalSince1970: 0), "disabled": false, "ratio": 0.5,
            "nested": ["x": ["y": "z w"]], "blob": Data("hi".utf8),
            "id": UUID(uuidString: "00000000-0000-0000-0000-000000000001")!,
            "link": URL(string: "https://a.b/c")!, "big": UInt64.max, "small": Int8(-3), "float": Float(0.25),
            "substring": "abc".dropFirst(), "character": Character("é"),
        ]
        let query = try literal.encodeQuery(parameters: parameters)
        #expect(
            query == "big=18446744073709551615&blob=aGk%3D&character=%C3%A9&date=1970-01-01T00%3A00%3A00Z&disabled=0"
                + "&float=0.25&id=00000000-0000-0000-0000-000000000001&link=https%3A%2F%2Fa.b%2Fc"
                + "&nested[x][y]=z%20w&page=1&ratio=0.5&small=-3&substring=bc&tags[]=a&tags[]=b")
    }

    @Test(
        "untyped parameters follow every style option",
        arguments: [
            (
                FormStyle(arrays: .indexed, bools: .literal, brackets: .literal),
                "flag=true&list[0]=x&list[1]=y&obj[k]=v"
            ),
            (FormStyle(arrays: .noBrackets, nesting: .dots), "flag=1&list=x&list=y&obj.k=v"),
        ])
    func styles(style: FormStyle, expected: String) throws {
        let parameters: [String: Any] = ["flag": true, "list": ["x", "y"], "obj": ["k": "v"]]
        #expect(try FormEncoder(style: style).encodeQuery(parameters: parameters) == expected)
    }

    @Test(
        "NSNull and nil optionals follow the nil style",
        arguments: [
            (FormStyle.Nils.omit, "a=1"), (.emptyValue, "a=1&b=&c="), (.keyOnly, "a=1&b&c"),
        ])
    func nils(nils: FormStyle.Nils, expected: String) throws {
        let parameters: [String: Any] = ["a": 1, "b": NSNull(), "c": Optional<Int>.none as Any]
        #expect(try FormEncoder(style: FormStyle(nils: nils)).encodeQuery(parameters: parameters) == expected)
    }

    @Test("a present optional is unwrapped")
    func someOptional() throws {
        let value: Int? = 5
        #expect(try literal.encodeQuery(parameters: ["a": value as Any]) == "a=5")
    }

    @Test("NSNumber bools and numbers from JSONSerialization keep their kind")
    func jsonSerializationValues() throws {
        let object = try JSONSerialization.jsonObject(with: Data(#"{"on":true,"n":3,"x":1.5}"#.utf8))
        let parameters = try #require(object as? [String: Any])
        let encoder = FormEncoder(style: FormStyle(bools: .literal))
        #expect(try encoder.encodeQuery(parameters: parameters) == "n=3&on=true&x=1.5")
    }

    @Test("Encodable values inside parameters use the Codable encoder")
    func encodableInside() throws {
        struct Point: Encodable {
            var x: Int
            var y: Int
        }
        #expect(
            try literal.encodeQuery(parameters: ["p": Point(x: 1, y: 2), "q": [Point(x: 3, y: 4)]])
                == "p[x]=1&p[y]=2&q[][x]=3&q[][y]=4")
    }

    @Test("a value of an unsupported type fails naming its key path and type")
    func unsupported() {
        final class Opaque {}
        let error = #expect(throws: HTTPEncodingError.self) {
            try FormEncoder().encodeQuery(parameters: ["filter": ["ids": [1, Opaque()]]])
        }
        #expect(error?.code == .unsupportedValue)
        #expect(error?.keyPath == ["filter", "ids", "1"])
        #expect(error?.value == "Opaque")
        #expect(error?.description.contains("filter[ids][1]") == true)
    }

    @Test("a non-finite number in parameters fails naming its key")
    func nonFinite() {
        let error = #expect(throws: HTTPEncodingError.self) {
            try FormEncoder().encodeQuery(parameters: ["ratio": Double.nan])
        }
        #expect(error?.code == .unsupportedValue)
        #expect(error?.keyPath == ["ratio"])
    }

    @Test("a dictionary with Int keys encodes through Codable; one holding Any is refused")
    func nonStringKeys() throws {
        #expect(try literal.encodeQuery(parameters: ["m": [1: "one"]]) == "m[1]=one")
        let error = #expect(throws: HTTPEncodingError.self) {
            try FormEncoder().encodeQuery(parameters: ["m": [1: "one"] as [Int: Any]])
        }
        #expect(error?.code == .unsupportedValue)
        #expect(error?.keyPath == ["m"])
    }

    @Test("bracketed keys passed flat are written as given")
    func flatBracketKeys() throws {
        #expect(try literal.encodeQuery(parameters: ["filter[status]": "open"]) == "filter%5Bstatus%5D=open")
    }

    @Test("parameters give the same bytes as the equivalent Codable value")
    func sameAsCodable() throws {
        struct Value: Encodable {
            var page = 1
            var tags = ["a", "b"]
            var disabled = false
        }
        #expect(
            try FormEncoder().encodeQuery(parameters: ["page": 1, "tags": ["a", "b"], "disabled": false])
                == FormEncoder().encodeQuery(Value()))
    }
}
