/// One value of the tree a ``FormEncoder`` builds before writing it out in one pass.
///
/// Objects and arrays are reference types so containers handed out by the `Encoder`
/// can keep filling them after they were stored in their parent.
enum FormNode {
    case string(String)
    case int(Int64)
    case uint(UInt64)
    case bool(Bool)
    case null
    case object(FormObject)
    case array(FormArray)
}

/// The keys and values of an encoded object, in the order they were encoded.
///
/// Encoding a key a second time replaces its value, as `JSONEncoder` does. Small objects
/// (the fields of a struct) find an existing key by a linear scan; large ones (a big
/// dictionary) build a hash index once they pass ``indexThreshold`` keys, so filling an
/// object stays linear in its size.
final class FormObject {
    private static let indexThreshold = 12

    private(set) var keys: [String] = []
    private(set) var values: [FormNode] = []
    private var index: [String: Int]?

    init() {}

    var count: Int { keys.count }

    /// The value stored for `key`, if any.
    func value(for key: String) -> FormNode? {
        position(of: key).map { values[$0] }
    }

    /// Stores `node` under `key`, replacing an earlier value for the same key.
    func set(_ key: String, _ node: FormNode) {
        if let position = position(of: key) {
            values[position] = node
            return
        }
        index?[key] = keys.count
        keys.append(key)
        values.append(node)
    }

    private func position(of key: String) -> Int? {
        if let index { return index[key] }
        if keys.count < Self.indexThreshold {
            for position in keys.indices where keys[position] == key { return position }
            return nil
        }
        var built = [String: Int](minimumCapacity: keys.count * 2)
        for (position, existing) in keys.enumerated() { built[existing] = position }
        index = built
        return built[key]
    }
}

/// The elements of an encoded array, in order.
final class FormArray {
    var values: [FormNode] = []

    init() {}
}
