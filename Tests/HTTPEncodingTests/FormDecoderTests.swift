import Foundation
import HTTPCore
import HTTPEncoding
import Testing

@Suite("FormDecoder")
struct FormDecoderTests {
    struct Filter: Decodable, Equatable {
        var query: String
        var tags: [String]
        var page: Int
        var exact: Bool
    }

    @Test(
        "arrays are read in every style",
        arguments: [
            "tags%5B%5D=a&tags%5B%5D=b", "tags[]=a&tags[]=b", "tags=a&tags=b", "tags[0]=a&tags[1]=b",
            "tags[1]=b&tags[0]=a",
        ])
    func arrayStyles(query: String) throws {
        #expect(try FormDecoder().decode([String: [String]].self, from: query) == ["tags": ["a", "b"]])
    }

    @Test("indexed arrays are ordered by number, not text")
    func numericIndexOrder() throws {
        let query = (0..<12).map { "a[\($0)]=\($0)" }.reversed().joined(separator: "&")
        #expect(try FormDecoder().decode([String: [Int]].self, from: query) == ["a": Array(0..<12)])
    }

    @Test(
        "plus is a space and percent-escapes are decoded",
        arguments: [
            ("q=a+b", "a b"), ("q=a%2Bb", "a+b"), ("q=%26%3D%23", "&=#"), ("q=%C3%A9", "é"), ("q=", ""),
            ("q=100%", "100%"), ("q=%zz", "%zz"), ("q=%FF", "\u{FFFD}"), ("q=a=b", "a=b"),
        ])
    func percentDecoding(query: String, expected: String) throws {
        #expect(try FormDecoder().decode([String: String].self, from: query) == ["q": expected])
    }

    @Test("a leading question mark and empty pairs are ignored")
    func leadingMark() throws {
        #expect(try FormDecoder().decode([String: String].self, from: "?&a=1&&b=2&") == ["a": "1", "b": "2"])
    }

    @Test("a missing key names its full key path")
    func keyNotFound() {
        struct Outer: Decodable {
            struct Inner: Decodable { var value: Int }
            var inner: Inner
        }
        let error = #expect(throws: HTTPEncodingError.self) {
            try FormDecoder().decode(Outer.self, from: "inner[other]=1")
        }
        #expect(error?.code == .keyNotFound)
        #expect(error?.keyPath == ["inner", "value"])
    }

    @Test("a value of the wrong type names its key path and the value")
    func typeMismatch() {
        let error = #expect(throws: HTTPEncodingError.self) {
            try FormDecoder().decode(Filter.self, from: "query=x&page=two&exact=0")
        }
        #expect(error?.code == .typeMismatch)
        #expect(error?.keyPath == ["page"])
        #expect(error?.value == "two")
        #expect(error?.description == #"typeMismatch at page: "two": expected Int"#)
    }

    @Test("an element of the wrong type names its index")
    func elementMismatch() {
        let error = #expect(throws: HTTPEncodingError.self) {
            try FormDecoder().decode([String: [Int]].self, from: "ids[]=1&ids[]=x")
        }
        #expect(error?.keyPath == ["ids", "1"])
    }

    @Test(
        "a key used both as a value and as a container is malformed input",
        arguments: ["a=1&a[b]=2", "a[b]=2&a=1", "a[]=1&a[b]=2", "a[b]=1&a[]=2"])
    func conflicts(query: String) {
        let error = #expect(throws: HTTPEncodingError.self) {
            try FormDecoder().decode([String: [String: String]].self, from: query)
        }
        #expect(error?.code == .malformedInput)
    }

    @Test("arrays of objects with empty brackets group members as Rack does")
    func rackArraysOfObjects() throws {
        struct Line: Decodable, Equatable {
            var sku: String
            var quantity: Int
        }
        let query = "lines[][sku]=A&lines[][quantity]=2&lines[][sku]=B&lines[][quantity]=1"
        let decoded = try FormDecoder().decode([String: [Line]].self, from: query)
        #expect(decoded == ["lines": [Line(sku: "A", quantity: 2), Line(sku: "B", quantity: 1)]])
    }

    @Test("missing keys decode as empty arrays and dictionaries, and nil optionals")
    func missingContainers() throws {
        struct Holder: Decodable, Equatable {
            var list: [String]
            var map: [String: Int]
            var optional: String?
            var name: String
        }
        #expect(
            try FormDecoder().decode(Holder.self, from: "name=x")
                == Holder(list: [], map: [:], optional: nil, name: "x"))
    }

    @Test(
        "nil spellings read as nil for the matching style",
        arguments: [
            (FormStyle.Nils.omit, "n=", "" as String?), (.emptyValue, "n=", nil), (.keyOnly, "n", nil),
            (.keyOnly, "n=", ""),
            (.omit, "other=1", nil),
        ])
    func nilSpellings(nils: FormStyle.Nils, query: String, expected: String?) throws {
        struct Holder: Decodable { var n: String? }
        #expect(try FormDecoder(style: FormStyle(nils: nils)).decode(Holder.self, from: query).n == expected)
    }

    @Test("dotted nesting is read when the style says so")
    func dots() throws {
        let decoded = try FormDecoder(style: FormStyle(nesting: .dots)).decode(
            [String: [String: [String]]].self, from: "user.tags[]=a&user.tags[]=b")
        #expect(decoded == ["user": ["tags": ["a", "b"]]])
    }

    @Test("dots are part of the key with bracket nesting")
    func dotsLiteralWithBrackets() throws {
        #expect(try FormDecoder().decode([String: String].self, from: "a.b=1") == ["a.b": "1"])
    }

    @Test("the query of a URL is decoded")
    func fromURL() throws {
        let url = URL(string: "https://example.com/s?query=swift+http&tags%5B%5D=a&page=3&exact=true#top")!
        let filter = try FormDecoder().decode(Filter.self, fromQueryOf: url)
        #expect(filter == Filter(query: "swift http", tags: ["a"], page: 3, exact: true))
    }

    @Test("as a response decoder it checks the content type")
    func responseDecoder() throws {
        let body = Data("query=a&page=1&exact=0".utf8)
        let form = HTTPResponse(
            status: .ok, headerFields: try HTTPFields(["Content-Type": "application/x-www-form-urlencoded"]))
        #expect(try FormDecoder().decode(Filter.self, from: body, response: form).page == 1)
        let html = HTTPResponse(status: .ok, headerFields: try HTTPFields(["Content-Type": "text/html"]))
        let error = #expect(throws: HTTPEncodingError.self) {
            try FormDecoder().decode(Filter.self, from: body, response: html)
        }
        #expect(error?.code == .unexpectedContentType)
    }

    @Test("numbers, URLs and decimals decode from their text")
    func scalars() throws {
        struct Scalars: Decodable, Equatable {
            var int8: Int8
            var uint: UInt64
            var double: Double
            var url: URL
            var decimal: Decimal
        }
        let decoded = try FormDecoder().decode(
            Scalars.self, from: "int8=-5&uint=18446744073709551615&double=2.5e3&url=https%3A%2F%2Fa.b%2F&decimal=1.25")
        #expect(
            decoded
                == Scalars(
                    int8: -5, uint: .max, double: 2500, url: URL(string: "https://a.b/")!,
                    decimal: Decimal(string: "1.25")!))
    }

    @Test("an out-of-range number is a type mismatch")
    func outOfRange() {
        let error = #expect(throws: HTTPEncodingError.self) {
            try FormDecoder().decode([String: Int8].self, from: "a=300")
        }
        #expect(error?.code == .typeMismatch)
        #expect(error?.keyPath == ["a"])
    }

    @Test("a key nested deeper than FormStyle.maximumDepth levels is refused before decoding recurses")
    func depthLimit() throws {
        let deep = "a" + String(repeating: "[a]", count: 600) + "=1"
        let error = #expect(throws: HTTPEncodingError.self) {
            try FormDecoder().decode([String: String].self, from: deep)
        }
        #expect(error?.code == .malformedInput)
        let fine = "a" + String(repeating: "[a]", count: FormStyle.maximumDepth - 1) + "=1"
        #expect(throws: Never.self) { try FormDecoder().decode(FormTree.self, from: fine) }
    }
}
