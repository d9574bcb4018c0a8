import Foundation
import HTTPEncoding

/// The form encoder's untyped parameters (`encodeQuery(parameters:)`, `[String: Any]` as
/// Alamofire users write them): a nested dictionary of text, integers, booleans, lists and
/// dictionaries, built from the input bytes, encodes with indexed arrays and decodes back to
/// the same structure (integers and booleans as their text, empty containers absent, as a
/// form carries them, booleans as 1 and 0 by default); any value the encoder refuses is refused with a typed error.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFormParameters(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var reader = ByteReader(bytes: UnsafeBufferPointer(start: data, count: size))
    let (parameters, expected) = reader.dictionary(depth: 0)
    let style = FormStyle(arrays: .indexed)
    let encoded: String
    do {
        encoded = try FormEncoder(style: style).encodeQuery(parameters: parameters)
    } catch {
        fatalError("parameters \(expected) were refused: \(error)")
    }
    let decoded: Tree
    do {
        decoded = try FormDecoder(style: style).decode(Tree.self, from: encoded)
    } catch {
        fatalError("\(encoded.debugDescription) (from \(expected)) does not decode: \(error)")
    }
    guard decoded == expected.pruned else {
        fatalError("\(expected) encoded as \(encoded.debugDescription) decodes as \(decoded)")
    }
    return 0
}

/// Reads the input as a small program that builds parameters: each byte chooses the next
/// value, text or key; the input's end closes everything.
struct ByteReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var offset = 0

    mutating func next() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// Characters a form must escape or keep apart, and some beyond ASCII.
    static let palette: [String] = [
        "a", "b", "z", "0", "9", " ", "&", "=", "+", "%", "%2", "%25", "#", "?", "/", ";", ",", "\"", "'",
        "\\", "\n", "\r", "\t", "\u{0}", "é", "😀", "\u{301}", "\u{FEFF}", "~", "*", "[", "]", ".", "-",
    ]

    mutating func text() -> String {
        var text = ""
        for _ in 0..<Int((next() ?? 0) % 10) {
            text += Self.palette[Int(next() ?? 0) % Self.palette.count]
        }
        return text
    }

    /// A key: starts with a letter (a key of digits only reads as a list index) and holds
    /// no bracket (the key syntax itself).
    mutating func key() -> String {
        // By scalars: "[" followed by a combining mark is one Character, still a bracket.
        var key = "k"
        for scalar in text().unicodeScalars { key.unicodeScalars.append(scalar == "[" || scalar == "]" ? "_" : scalar) }
        return key
    }

    mutating func value(depth: Int, inList: Bool) -> (Any, Tree) {
        let choice = (next() ?? 0) % (depth < 4 ? 6 : 4)
        switch choice {
        case 0, 1:
            let text = text()
            return (text, .text(text))
        case 2:
            var number: Int64 = 0
            for _ in 0..<Int((next() ?? 0) % 9) { number = number << 8 | Int64(next() ?? 0) }
            if (next() ?? 0) & 1 == 1 { number = -number }
            return (number, .text(String(number)))
        case 3:
            let flag = (next() ?? 0) & 1 == 1
            return (flag, .text(flag ? "1" : "0"))  // FormStyle.Bools.numeric, the default
        case 4:
            var items: [Any] = []
            var trees: [Tree] = []
            for _ in 0..<Int((next() ?? 0) % 4) + (inList ? 1 : 0) {
                let (item, tree) = value(depth: depth + 1, inList: true)
                items.append(item)
                trees.append(tree)
            }
            return (items, .list(trees))
        default:
            let (members, tree) = dictionary(depth: depth + 1, nonEmpty: inList)
            return (members, tree)
        }
    }

    /// A dictionary; inside a list never an empty one (it would write nothing and shift the
    /// items after it).
    mutating func dictionary(depth: Int, nonEmpty: Bool = false) -> ([String: Any], Tree) {
        var members: [String: Any] = [:]
        var trees: [String: Tree] = [:]
        for _ in 0..<Int((next() ?? 0) % 4) + (nonEmpty ? 1 : 0) {
            let key = key()
            // A repeated key would replace the member that keeps the dictionary non-empty.
            guard members[key] == nil else { continue }
            let (member, tree) = value(depth: depth, inList: nonEmpty && members.isEmpty)
            members[key] = member
            trees[key] = tree
        }
        return (members, .object(trees))
    }
}

/// A form-shaped value: text, a list or an object; decoded by trying them in that order.
indirect enum Tree: Decodable, Equatable, CustomStringConvertible {
    case text(String)
    case list([Tree])
    case object([String: Tree])

    struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let text = try? single.decode(String.self) {
            self = .text(text)
            return
        }
        if let keyed = try? decoder.container(keyedBy: AnyKey.self),
            keyed.allKeys.isEmpty || keyed.allKeys.contains(where: { Int($0.stringValue) == nil })
        {
            var members: [String: Tree] = [:]
            for key in keyed.allKeys { members[key.stringValue] = try keyed.decode(Tree.self, forKey: key) }
            self = .object(members)
            return
        }
        var unkeyed = try decoder.unkeyedContainer()
        var items: [Tree] = []
        while !unkeyed.isAtEnd { items.append(try unkeyed.decode(Tree.self)) }
        self = .list(items)
    }

    /// What a form carries: empty lists and objects dropped from objects, recursively.
    var pruned: Tree {
        switch self {
        case .text: return self
        case .list(let items): return .list(items.map(\.pruned))
        case .object(let members):
            var kept: [String: Tree] = [:]
            for (key, value) in members {
                let value = value.pruned
                switch value {
                case .list(let items) where items.isEmpty: continue
                case .object(let members) where members.isEmpty: continue
                default: kept[key] = value
                }
            }
            return .object(kept)
        }
    }

    var description: String {
        switch self {
        case .text(let text): return String(reflecting: text)
        case .list(let items): return "[" + items.map(\.description).joined(separator: ", ") + "]"
        case .object(let members):
            return "{"
                + members.sorted { $0.key < $1.key }.map { "\(String(reflecting: $0.key)): \($0.value)" }
                .joined(separator: ", ") + "}"
        }
    }
}
