import Foundation
import HTTPEncoding
import Testing

/// Every `FormStyle` option, alone and combined with nesting, written and read back.
@Suite("FormStyle options")
struct FormStyleTests {
    struct Profile: Codable, Equatable {
        struct Address: Codable, Equatable {
            var city: String
            var lines: [String]
        }

        var name: String
        var tags: [String]
        var address: Address
        var active: Bool
        var nickname: String?
    }

    static let profile = Profile(
        name: "Ada L", tags: ["b", "a"], address: .init(city: "Paris", lines: ["1 rue", "2e"]), active: true,
        nickname: nil)

    /// (what, style, query). Brackets are literal in most rows so the tables stay readable.
    static let rows: [(String, FormStyle, String)] = [
        (
            "defaults", FormStyle(),
            "active=1&address%5Bcity%5D=Paris&address%5Blines%5D%5B%5D=1%20rue&address%5Blines%5D%5B%5D=2e"
                + "&name=Ada%20L&tags%5B%5D=b&tags%5B%5D=a"
        ),
        (
            "literal brackets", FormStyle(brackets: .literal),
            "active=1&address[city]=Paris&address[lines][]=1%20rue&address[lines][]=2e&name=Ada%20L&tags[]=b&tags[]=a"
        ),
        (
            "arrays without brackets", FormStyle(arrays: .noBrackets, brackets: .literal),
            "active=1&address[city]=Paris&address[lines]=1%20rue&address[lines]=2e&name=Ada%20L&tags=b&tags=a"
        ),
        (
            "indexed arrays", FormStyle(arrays: .indexed, brackets: .literal),
            "active=1&address[city]=Paris&address[lines][0]=1%20rue&address[lines][1]=2e&name=Ada%20L"
                + "&tags[0]=b&tags[1]=a"
        ),
        (
            "literal bools", FormStyle(bools: .literal, brackets: .literal),
            "active=true&address[city]=Paris&address[lines][]=1%20rue&address[lines][]=2e&name=Ada%20L&tags[]=b&tags[]=a"
        ),
        (
            "dotted nesting", FormStyle(nesting: .dots, brackets: .literal),
            "active=1&address.city=Paris&address.lines[]=1%20rue&address.lines[]=2e&name=Ada%20L&tags[]=b&tags[]=a"
        ),
        (
            "dotted nesting, indexed arrays", FormStyle(arrays: .indexed, nesting: .dots, brackets: .literal),
            "active=1&address.city=Paris&address.lines[0]=1%20rue&address.lines[1]=2e&name=Ada%20L&tags[0]=b&tags[1]=a"
        ),
        (
            "dotted nesting, arrays without brackets", FormStyle(arrays: .noBrackets, nesting: .dots),
            "active=1&address.city=Paris&address.lines=1%20rue&address.lines=2e&name=Ada%20L&tags=b&tags=a"
        ),
        (
            "nil as empty value", FormStyle(nils: .emptyValue, brackets: .literal),
            "active=1&address[city]=Paris&address[lines][]=1%20rue&address[lines][]=2e&name=Ada%20L&nickname="
                + "&tags[]=b&tags[]=a"
        ),
        (
            "nil as key only", FormStyle(nils: .keyOnly, brackets: .literal),
            "active=1&address[city]=Paris&address[lines][]=1%20rue&address[lines][]=2e&name=Ada%20L&nickname"
                + "&tags[]=b&tags[]=a"
        ),
        (
            "spaces as plus", FormStyle(spaces: .plus, brackets: .literal),
            "active=1&address[city]=Paris&address[lines][]=1+rue&address[lines][]=2e&name=Ada+L&tags[]=b&tags[]=a"
        ),
        (
            "keys as encoded", FormStyle(keyOrder: .asEncoded, brackets: .literal),
            "name=Ada%20L&tags[]=b&tags[]=a&address[city]=Paris&address[lines][]=1%20rue&address[lines][]=2e&active=1"
        ),
    ]

    @Test("each option writes its documented spelling", arguments: rows)
    func writes(what: String, style: FormStyle, expected: String) throws {
        #expect(try FormEncoder(style: style).encodeQuery(Self.profile) == expected, "\(what)")
    }

    @Test("each option reads back to the same value", arguments: rows)
    func readsBack(what: String, style: FormStyle, query: String) throws {
        #expect(try FormDecoder(style: style).decode(Profile.self, from: query) == Self.profile, "\(what)")
    }

    @Test(
        "a present optional is written whatever the nil style", arguments: [FormStyle.Nils.omit, .emptyValue, .keyOnly])
    func presentOptional(nils: FormStyle.Nils) throws {
        var profile = Self.profile
        profile.nickname = "Countess"
        let query = try FormEncoder(style: FormStyle(nils: nils)).encodeQuery(profile)
        #expect(query.contains("&nickname=Countess&"))
        #expect(try FormDecoder(style: FormStyle(nils: nils)).decode(Profile.self, from: query) == profile)
    }

    @Test(
        "nil elements of arrays follow the nil style",
        arguments: [
            (FormStyle.Nils.omit, FormStyle.Arrays.indexed, "a[0]=x&a[2]=y"),
            (.emptyValue, .indexed, "a[0]=x&a[1]=&a[2]=y"),
            (.keyOnly, .brackets, "a[]=x&a[]&a[]=y"),
            (.emptyValue, .noBrackets, "a=x&a=&a=y"),
            (.keyOnly, .noBrackets, "a=x&a&a=y"),
        ])
    func nilElements(nils: FormStyle.Nils, arrays: FormStyle.Arrays, expected: String) throws {
        let style = FormStyle(arrays: arrays, nils: nils, brackets: .literal)
        #expect(try FormEncoder(style: style).encodeQuery(["a": ["x", nil, "y"]]) == expected)
    }

    @Test(
        "nil elements read back as nil with emptyValue and keyOnly", arguments: [FormStyle.Nils.emptyValue, .keyOnly])
    func nilElementsRoundTrip(nils: FormStyle.Nils) throws {
        let style = FormStyle(arrays: .indexed, nils: nils)
        let value = ["a": ["x", nil, "y"]]
        let query = try FormEncoder(style: style).encodeQuery(value)
        #expect(try FormDecoder(style: style).decode([String: [String?]].self, from: query) == value)
    }

    @Test(
        "nested nils follow the nil style inside objects",
        arguments: [
            (FormStyle.Nils.omit, "user[name]=x"), (.emptyValue, "user[age]=&user[name]=x"),
            (.keyOnly, "user[age]&user[name]=x"),
        ])
    func nestedNil(nils: FormStyle.Nils, expected: String) throws {
        struct User: Encodable {
            var name = "x"
            var age: Int?
        }
        let query = try FormEncoder(style: FormStyle(nils: nils, brackets: .literal)).encodeQuery(["user": User()])
        #expect(query == expected)
    }

    struct Line: Codable, Equatable {
        var sku: String
        var quantity: Int
    }

    @Test(
        "arrays of objects use the array style at their level",
        arguments: [
            (
                FormStyle(arrays: .indexed, brackets: .literal),
                "lines[0][quantity]=2&lines[0][sku]=A&lines[1][quantity]=1&lines[1][sku]=B"
            ),
            (FormStyle(brackets: .literal), "lines[][quantity]=2&lines[][sku]=A&lines[][quantity]=1&lines[][sku]=B"),
            (
                FormStyle(arrays: .indexed, nesting: .dots, brackets: .literal),
                "lines[0].quantity=2&lines[0].sku=A&lines[1].quantity=1&lines[1].sku=B"
            ),
        ])
    func arraysOfObjects(style: FormStyle, expected: String) throws {
        let value = ["lines": [Line(sku: "A", quantity: 2), Line(sku: "B", quantity: 1)]]
        #expect(try FormEncoder(style: style).encodeQuery(value) == expected)
        #expect(try FormDecoder(style: style).decode([String: [Line]].self, from: expected) == value)
    }

    @Test(
        "arrays of arrays round-trip with indexed and bracket arrays", arguments: [FormStyle.Arrays.indexed, .brackets])
    func arraysOfArrays(arrays: FormStyle.Arrays) throws {
        let style = FormStyle(arrays: arrays)
        let value = ["grid": [["a", "b"], ["c"]]]
        let query = try FormEncoder(style: style).encodeQuery(value)
        if arrays == .indexed {
            #expect(query == "grid%5B0%5D%5B0%5D=a&grid%5B0%5D%5B1%5D=b&grid%5B1%5D%5B0%5D=c")
            #expect(try FormDecoder(style: style).decode([String: [[String]]].self, from: query) == value)
        } else {
            // key[][]=… cannot say where an inner array ends: every element starts a new one.
            #expect(query == "grid%5B%5D%5B%5D=a&grid%5B%5D%5B%5D=b&grid%5B%5D%5B%5D=c")
        }
    }

    @Test("arrays without brackets refuse arrays of containers instead of writing an ambiguous form")
    func noBracketsRefusesContainers() {
        let encoder = FormEncoder(style: FormStyle(arrays: .noBrackets))
        let error = #expect(throws: HTTPEncodingError.self) {
            try encoder.encodeQuery(["lines": [Line(sku: "A", quantity: 2)]])
        }
        #expect(error?.code == .unsupportedValue)
        #expect(error?.keyPath == ["lines", "0"])
    }

    @Test("key order as encoded keeps struct declaration order at every level")
    func asEncodedNested() throws {
        struct Inner: Encodable {
            var zeta = 1
            var alpha = 2
        }
        struct Outer: Encodable {
            var second = Inner()
            var first = "x"
        }
        let style = FormStyle(keyOrder: .asEncoded, brackets: .literal)
        #expect(try FormEncoder(style: style).encodeQuery(Outer()) == "second[zeta]=1&second[alpha]=2&first=x")
    }

    @Test(
        "a key written twice keeps the last value in both key orders",
        arguments: [FormStyle.KeyOrder.sorted, .asEncoded])
    func duplicateKeyOrders(order: FormStyle.KeyOrder) throws {
        struct Twice: Encodable {
            enum Keys: String, CodingKey {
                case a
                case b
            }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode("1", forKey: .b)
                try container.encode("first", forKey: .a)
                try container.encode("second", forKey: .a)
            }
        }
        let query = try FormEncoder(style: FormStyle(keyOrder: order)).encodeQuery(Twice())
        #expect(query == (order == .sorted ? "a=second&b=1" : "b=1&a=second"))
    }

    @Test("bools read back from both spellings whatever the style", arguments: ["1", "true", "TRUE"])
    func boolSpellings(text: String) throws {
        #expect(try FormDecoder().decode([String: Bool].self, from: "flag=\(text)") == ["flag": true])
    }
}

@Suite("FormStyle description")
struct FormStyleDescriptionTests {
    @Test(
        "the description names the options that differ from the defaults",
        arguments: [
            (FormStyle(), "FormStyle()"),
            (FormStyle(arrays: .indexed, nesting: .dots), "FormStyle(arrays: .indexed, nesting: .dots)"),
            (
                FormStyle(
                    arrays: .noBrackets, bools: .literal, nils: .keyOnly, spaces: .plus, keyOrder: .asEncoded,
                    brackets: .literal),
                "FormStyle(arrays: .noBrackets, bools: .literal, nils: .keyOnly, spaces: .plus, keyOrder: .asEncoded, "
                    + "brackets: .literal)"
            ),
        ])
    func description(style: FormStyle, expected: String) {
        #expect(style.description == expected)
    }
}
