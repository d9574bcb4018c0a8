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

/// The members of an encoded object, in the order they were encoded.
///
/// Storing a member only appends (one array, no hashing), so filling an object is
/// linear in its size. A key encoded twice is stored twice and the writer keeps the
/// last one, as `JSONEncoder` keeps the last value. Looking a key up (needed only when
/// a nested container is asked for twice) scans small objects and indexes large ones
/// once, keeping the index current from then on.
final class FormObject {
    private static let indexThreshold = 12

    private(set) var members: [(key: String, value: FormNode)]
    private var index: [String: Int]?

    /// An empty object with room for `capacity` members before its storage grows.
    init(capacity: Int = 8) {
        members = []
        members.reserveCapacity(capacity)
    }

    /// The value stored last for `key`, if any.
    func value(for key: String) -> FormNode? {
        if let index { return index[key].map { members[$0].value } }
        if members.count < Self.indexThreshold {
            for member in members.reversed() where member.key == key { return member.value }
            return nil
        }
        var built = [String: Int](minimumCapacity: members.count * 2)
        for (position, member) in members.enumerated() { built[member.key] = position }
        index = built
        return built[key].map { members[$0].value }
    }

    /// Stores `node` under `key`; a later value for the same key wins.
    @inline(__always)
    func set(_ key: String, _ node: FormNode) {
        if index != nil { index?[key] = members.count }
        members.append((key, node))
    }
}

/// The elements of an encoded array, in order.
final class FormArray {
    var values: [FormNode]

    /// An empty array with room for `capacity` elements before its storage grows.
    init(capacity: Int = 4) {
        values = []
        values.reserveCapacity(capacity)
    }
}
