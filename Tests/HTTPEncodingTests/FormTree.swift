import Foundation

/// A form-shaped value for property tests: text, a list, or an object.
///
/// It encodes through any `Encoder` and decodes from ``HTTPEncoding/FormDecoder`` by
/// trying, in order, a single value, a list and an object; so an object's keys must not
/// all be integers (the generator starts every key with a letter).
indirect enum FormTree: Codable, Equatable, Sendable, CustomStringConvertible {
    case text(String)
    case list([FormTree])
    case object([String: FormTree])

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
        // An object whose keys are all integers reads as a list (key[0]=…); only the
        // top level can be an empty object, since empty containers are pruned.
        if let keyed = try? decoder.container(keyedBy: AnyKey.self),
            keyed.allKeys.isEmpty || keyed.allKeys.contains(where: { Int($0.stringValue) == nil })
        {
            var members: [String: FormTree] = [:]
            for key in keyed.allKeys { members[key.stringValue] = try keyed.decode(FormTree.self, forKey: key) }
            self = .object(members)
            return
        }
        var unkeyed = try decoder.unkeyedContainer()
        var items: [FormTree] = []
        while !unkeyed.isAtEnd { items.append(try unkeyed.decode(FormTree.self)) }
        self = .list(items)
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .text(let text):
            var single = encoder.singleValueContainer()
            try single.encode(text)
        case .list(let items):
            var unkeyed = encoder.unkeyedContainer()
            for item in items { try unkeyed.encode(item) }
        case .object(let members):
            var keyed = encoder.container(keyedBy: AnyKey.self)
            for (key, value) in members { try keyed.encode(value, forKey: AnyKey(stringValue: key)) }
        }
    }

    /// The tree from `JSONSerialization` output (PHP's `json_encode` of `parse_str`).
    init?(json: Any) {
        switch json {
        case let text as String:
            self = .text(text)
        case let items as [Any]:
            var trees: [FormTree] = []
            for item in items {
                guard let tree = FormTree(json: item) else { return nil }
                trees.append(tree)
            }
            self = .list(trees)
        case let members as [String: Any]:
            var trees: [String: FormTree] = [:]
            for (key, value) in members {
                guard let tree = FormTree(json: value) else { return nil }
                trees[key] = tree
            }
            self = .object(trees)
        default:
            return nil
        }
    }

    /// The tree a form can carry: empty lists and objects (which write nothing) removed
    /// from objects, recursively.
    var pruned: FormTree {
        switch self {
        case .text: return self
        case .list(let items): return .list(items.map(\.pruned))
        case .object(let members):
            var kept: [String: FormTree] = [:]
            for (key, value) in members {
                let value = value.pruned
                if !value.isEmptyContainer { kept[key] = value }
            }
            return .object(kept)
        }
    }

    private var isEmptyContainer: Bool {
        switch self {
        case .text: return false
        case .list(let items): return items.isEmpty
        case .object(let members): return members.isEmpty
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
