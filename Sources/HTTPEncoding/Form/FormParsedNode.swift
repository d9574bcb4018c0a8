/// One value of the tree a ``FormDecoder`` builds from the pairs of a form.
enum FormParsedNode {
    /// A value; `nil` for a key written without `=`.
    case scalar(String?)
    /// Elements added with `key[]` or by repeating `key`.
    case list(FormParsedList)
    /// Named members, from `key[name]` (or `key.name`), including `key[0]`.
    case object(FormParsedObject)
}

/// The members of a parsed object, in the order they first appeared.
final class FormParsedObject {
    private(set) var keys: [String] = []
    private(set) var values: [FormParsedNode] = []
    private var index: [String: Int] = [:]

    init() {}

    func value(for key: String) -> FormParsedNode? {
        index[key].map { values[$0] }
    }

    func set(_ key: String, _ node: FormParsedNode) {
        if let position = index[key] {
            values[position] = node
        } else {
            index[key] = keys.count
            keys.append(key)
            values.append(node)
        }
    }
}

/// The elements of a parsed list, in order.
final class FormParsedList {
    var values: [FormParsedNode] = []

    init() {}

    init(_ values: [FormParsedNode]) { self.values = values }
}
