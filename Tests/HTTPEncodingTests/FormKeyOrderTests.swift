import Foundation
import HTTPEncoding
import TestSupport
import Testing

/// Key order in objects too large for the insertion sort (more than 16 members), where
/// the encoder sorts on eight-byte key prefixes taken as keys are stored.
@Suite("Key order in large objects")
struct FormKeyOrderTests {
    /// Unreserved-only keys (written as they are), many sharing their first eight bytes or
    /// being a prefix of another, in a shuffled order.
    static func keys(count: Int, seed: UInt64) -> [String] {
        var random = SplitMix64(seed: seed)
        let stems = ["longprefix", "longpref", "longprefiy", "a", "Z", "b-", "b_", "b.", "b~", ""]
        var keys = Set<String>()
        while keys.count < count {
            let stem = stems.randomElement(using: &random) ?? "a"
            keys.insert(stem + String(Int.random(in: 0..<1000, using: &random)))
        }
        return Array(keys).shuffled(using: &random)
    }

    static func pairKeys(_ query: String) -> [String] {
        query.split(separator: "&").map { String($0.split(separator: "=", omittingEmptySubsequences: false)[0]) }
    }

    @Test("a large object's keys come out sorted by their bytes, in both ways of encoding", arguments: [17, 40, 500])
    func sorted(count: Int) throws {
        let keys = Self.keys(count: count, seed: UInt64(count))
        let expected = keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        var parameters: [String: Any] = [:]
        var typed: [String: Int] = [:]
        for (index, key) in keys.enumerated() {
            parameters[key] = index
            typed[key] = index
        }
        #expect(Self.pairKeys(try FormEncoder().encodeQuery(parameters: parameters)) == expected)
        #expect(Self.pairKeys(try FormEncoder().encodeQuery(["m": typed])) == expected.map { "m%5B\($0)%5D" })
    }

    /// Encodes `keys` in order with their index as value, then the key at `repeated` again.
    struct Repeating: Encodable {
        var keys: [String]
        var repeated: Int

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: FormTree.AnyKey.self)
            for (index, key) in keys.enumerated() { try container.encode(index, forKey: .init(stringValue: key)) }
            try container.encode("again", forKey: .init(stringValue: keys[repeated]))
        }
    }

    @Test(
        "a key encoded twice in a large object is written once, with its last value",
        arguments: [FormStyle.KeyOrder.sorted, .asEncoded])
    func repeatedKey(order: FormStyle.KeyOrder) throws {
        let keys = Self.keys(count: 40, seed: 7)
        let query = try FormEncoder(style: FormStyle(keyOrder: order)).encodeQuery(Repeating(keys: keys, repeated: 3))
        let pairs = query.split(separator: "&").map(String.init)
        #expect(pairs.count == keys.count)
        #expect(pairs.filter { $0.hasPrefix(keys[3] + "=") } == ["\(keys[3])=again"])
    }
}
