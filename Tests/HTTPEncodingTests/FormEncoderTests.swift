import Foundation
import HTTPCore
import HTTPEncoding
import Testing

@Suite("FormEncoder basics")
struct FormEncoderTests {
    struct Search: Codable, Equatable {
        var query: String
        var tags: [String]
        var page: Int
        var exact: Bool
    }

    struct User: Codable, Equatable {
        struct Address: Codable, Equatable {
            var city: String
            var zip: String
        }

        var name: String
        var address: Address
    }

    @Test("a struct encodes to sorted pairs with bracket arrays and numeric bools")
    func defaults() throws {
        let query = try FormEncoder().encodeQuery(Search(query: "swift", tags: ["z", "a"], page: 2, exact: true))
        #expect(query == "exact=1&page=2&query=swift&tags%5B%5D=z&tags%5B%5D=a")
    }

    @Test("nested objects use brackets around each key")
    func nested() throws {
        let query = try FormEncoder().encodeQuery(User(name: "Ada", address: .init(city: "Paris", zip: "75001")))
        #expect(query == "address%5Bcity%5D=Paris&address%5Bzip%5D=75001&name=Ada")
    }

    @Test(
        "reserved characters in values are always percent-encoded",
        arguments: [
            ("a&b", "a%26b"), ("a=b", "a%3Db"), ("a+b", "a%2Bb"), ("a#b", "a%23b"), ("a/b", "a%2Fb"),
            ("a?b", "a%3Fb"), ("a[b]", "a%5Bb%5D"), ("100%", "100%25"), ("é", "%C3%A9"), ("🦩", "%F0%9F%A6%A9"),
            ("-._~", "-._~"), ("", ""), ("a\nb", "a%0Ab"),
        ])
    func reserved(value: String, expected: String) throws {
        #expect(try FormEncoder().encodeQuery(["v": value]) == "v=\(expected)")
    }

    @Test("reserved characters in keys are percent-encoded too")
    func reservedKeys() throws {
        #expect(try FormEncoder().encodeQuery(["a&b=c": "1"]) == "a%26b%3Dc=1")
    }

    @Test("spaces are %20 in queries and + in bodies by default")
    func spacesDefault() async throws {
        let encoder = FormEncoder()
        #expect(try encoder.encodeQuery(["q": "a b"]) == "q=a%20b")
        let encoded = try encoder.encodeBody(["q": "a b"])
        #expect(try await encoded.body.collect(upTo: 1024) == Data("q=a+b".utf8))
        #expect(encoded.contentType == .formURLEncoded)
    }

    @Test("sorting keys never reorders array elements")
    func arraysKeepOrder() throws {
        let query = try FormEncoder().encodeQuery(["b": ["z", "a", "m"], "a": ["3", "1", "2"]])
        #expect(query == "a%5B%5D=3&a%5B%5D=1&a%5B%5D=2&b%5B%5D=z&b%5B%5D=a&b%5B%5D=m")
    }

    @Test("sorting is by the written (percent-encoded) bytes at every level")
    func sortOrder() throws {
        let query = try FormEncoder(style: FormStyle(brackets: .literal)).encodeQuery([
            "é": ["b": 1, "a": 2], "Z": ["y": 1, "x": 2], "a": ["2": 0, "10": 1],
        ])
        #expect(query == "%C3%A9[a]=2&%C3%A9[b]=1&Z[x]=2&Z[y]=1&a[10]=1&a[2]=0")
    }

    @Test("empty arrays and objects write nothing")
    func empties() throws {
        struct Holder: Encodable {
            var list: [String] = []
            var map: [String: Int] = [:]
            var name = "x"
        }
        #expect(try FormEncoder().encodeQuery(Holder()) == "name=x")
    }

    @Test("encoding a key twice in one container keeps the last value")
    func duplicateKeys() throws {
        struct Twice: Encodable {
            enum Keys: String, CodingKey { case a }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode("first", forKey: .a)
                try container.encode("second", forKey: .a)
            }
        }
        #expect(try FormEncoder().encodeQuery(Twice()) == "a=second")
    }

    @Test("a class hierarchy's superEncoder lands under the key super")
    func superEncoder() throws {
        struct Child: Encodable {
            enum Keys: String, CodingKey { case own }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode(1, forKey: .own)
                try ["base": 2].encode(to: container.superEncoder())
            }
        }
        #expect(try FormEncoder(style: FormStyle(brackets: .literal)).encodeQuery(Child()) == "own=1&super[base]=2")
    }

    @Test("a top-level array or scalar is refused with a typed error")
    func topLevel() {
        let array = #expect(throws: HTTPEncodingError.self) { try FormEncoder().encodeQuery(["a", "b"]) }
        #expect(array?.code == .unsupportedValue)
        let scalar = #expect(throws: HTTPEncodingError.self) { try FormEncoder().encodeQuery(42) }
        #expect(scalar?.code == .unsupportedValue)
    }

    @Test("a non-finite number is refused naming its key path")
    func nonFinite() {
        struct Ratio: Encodable { var values: [String: [Double]] }
        let error = #expect(throws: HTTPEncodingError.self) {
            try FormEncoder().encodeQuery(Ratio(values: ["r": [1, .infinity]]))
        }
        #expect(error?.code == .unsupportedValue)
        #expect(error?.keyPath == ["values", "r", "1"])
        #expect(error?.description.contains("values[r][1]") == true)
    }

    @Test("an error thrown by encode(to:) is wrapped with its key path")
    func userError() {
        struct Refused: Error {}
        struct Bad: Encodable { func encode(to encoder: any Encoder) throws { throw Refused() } }
        struct Outer: Encodable { var inner: [String: Bad] }
        let error = #expect(throws: HTTPEncodingError.self) {
            try FormEncoder().encodeQuery(Outer(inner: ["x": Bad()]))
        }
        #expect(error?.code == .valueCodingFailed)
        #expect(error?.keyPath == ["inner", "x"])
        #expect(error?.underlying is Refused)
    }

    @Test("numbers keep their exact text")
    func numbers() throws {
        struct Numbers: Encodable {
            var negative = -42
            var big = UInt64.max
            var small = Int8.min
            var double = 1.5
            var float: Float = 0.25
            var decimal = Decimal(string: "12.345")!
        }
        let query = try FormEncoder().encodeQuery(Numbers())
        #expect(query == "big=18446744073709551615&decimal=12.345&double=1.5&float=0.25&negative=-42&small=-128")
    }

    @Test("URLs and UUID-like strings are written as text")
    func urls() throws {
        #expect(
            try FormEncoder().encodeQuery(["u": URL(string: "https://a.b/c?d=e")!]) == "u=https%3A%2F%2Fa.b%2Fc%3Fd%3De"
        )
    }

    @Test("a lone nil in an array without brackets still writes its key")
    func loneNilKeyOnly() throws {
        let encoder = FormEncoder(style: FormStyle(arrays: .noBrackets, nils: .keyOnly))
        #expect(try encoder.encodeQuery(["a": [String?.none]]) == "a")
        #expect(try encoder.encodeQuery(["a": [String?.none], "b": ["x"]]) == "a&b=x")
    }

    @Test("a nested container asked for twice under one key fills one object")
    func nestedContainerTwice() throws {
        struct Split: Encodable {
            enum Keys: String, CodingKey { case user }
            enum UserKeys: String, CodingKey {
                case name
                case age
            }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                var first = container.nestedContainer(keyedBy: UserKeys.self, forKey: .user)
                try first.encode("Ada", forKey: .name)
                var second = container.nestedContainer(keyedBy: UserKeys.self, forKey: .user)
                try second.encode(36, forKey: .age)
            }
        }
        let encoder = FormEncoder(style: FormStyle(brackets: .literal))
        #expect(try encoder.encodeQuery(Split()) == "user[age]=36&user[name]=Ada")
    }
}
