/// An ordered, case-insensitive, multi-valued list of header fields (RFC 9110 §5).
///
/// Fields keep their order and the spelling of their names; repeated fields are kept
/// as separate entries and never merged away. Look-ups compare names
/// case-insensitively. Every field is validated when it enters (see ``HTTPField``), so
/// a list can never carry a value that would split a request.
///
/// ```swift
/// var fields = try HTTPFields(["Accept": "application/json", "Cache-Control": "no-cache"])
/// try fields.append(name: .cacheControl, value: "no-store")
/// print(fields[.cacheControl] ?? "")  // no-cache, no-store
/// print(fields[values: .cacheControl])  // ["no-cache", "no-store"]
/// ```
public struct HTTPFields: Hashable, Sendable, RandomAccessCollection, ExpressibleByArrayLiteral,
    CustomStringConvertible
{
    private var storage: [HTTPField]

    /// Creates an empty list.
    public init() { storage = [] }

    /// Creates a list holding `fields` in order.
    /// - Parameter fields: Already-validated fields.
    public init(_ fields: some Sequence<HTTPField>) { storage = Array(fields) }

    /// Creates a list from validated fields written as an array literal.
    /// - Parameter elements: The fields in order.
    public init(arrayLiteral elements: HTTPField...) { storage = elements }

    /// Creates a list from name–value pairs, in order; a name may repeat.
    /// - Parameter pairs: Names and values, such as `["Accept": "text/html", "Accept": "*/*"]`.
    /// - Throws: ``HTTPCoreError`` naming the first invalid name or value.
    public init(_ pairs: KeyValuePairs<String, String>) throws(HTTPCoreError) {
        storage = []
        storage.reserveCapacity(pairs.count)
        for (name, value) in pairs { storage.append(try HTTPField(name: name, value: value)) }
    }

    /// Creates a list from typed names and values, in order, such as
    /// `[.accept: "application/json", .acceptLanguage: "it"]`; a name may repeat.
    /// - Parameter pairs: Names and values.
    /// - Throws: ``HTTPCoreError`` naming the first invalid value.
    public init(_ pairs: KeyValuePairs<HTTPFieldName, String>) throws(HTTPCoreError) {
        storage = []
        storage.reserveCapacity(pairs.count)
        for (name, value) in pairs { storage.append(try HTTPField(name: name, value: value)) }
    }

    // MARK: Collection

    /// The position of the first field.
    public var startIndex: Int { storage.startIndex }
    /// The position past the last field.
    public var endIndex: Int { storage.endIndex }
    /// The field at `position`.
    /// - Parameter position: A valid index.
    public subscript(position: Int) -> HTTPField { storage[position] }

    // MARK: Look-up

    /// The combined value of every field named `name`, or `nil` when there is none; setting
    /// a value replaces every field of that name with one, and setting `nil` removes them.
    ///
    /// Values are joined with `", "` (RFC 9110 §5.3), `Cookie` values with `"; "`
    /// (RFC 6265 §5.4). `Set-Cookie` is never combined (RFC 9110 §5.3): this returns its
    /// first value; use ``subscript(values:)`` for all of them.
    ///
    /// Setting never fails. The new field takes the position of the first field of that name
    /// (the end when there is none), and the others of that name are removed. A value holding
    /// CR, LF or NUL has each of them replaced by a space, as RFC 9110 §5.5 permits a recipient
    /// to do, and so has every other control character a value may not hold (all but tab, and
    /// DEL); surrounding spaces and tabs are then trimmed. So a value can never add a field or
    /// split a request. To refuse such a value instead, call ``set(_:_:)``, which throws.
    ///
    /// ```swift
    /// var fields = HTTPFields()
    /// fields[.userAgent] = "heron/1.0"
    /// fields[.accept] = "text/html\r\nX-Admin: 1"
    /// print(fields[.accept] ?? "")  // text/html  X-Admin: 1
    /// fields[.userAgent] = nil
    /// print(fields.count)  // 1
    /// ```
    /// - Parameter name: The name to look up or set, compared case-insensitively.
    public subscript(name: HTTPFieldName) -> String? {
        get {
            // Appended in place: joining with `+` would copy the growing value for every field,
            // quadratic in the number of repeats.
            var result: String?
            let separator = name == .cookie ? "; " : ", "
            for field in storage where field.name == name {
                if result == nil {
                    result = field.value
                } else {
                    if name == .setCookie { return result }
                    result?.append(separator)
                    result?.append(field.value)
                }
            }
            return result
        }
        set {
            if let newValue {
                set(HTTPField(name: name, replacingInvalidCharactersIn: newValue))
            } else {
                remove(name)
            }
        }
    }

    /// The combined value of every field named `name` given as text, such as
    /// `fields["X-Request-ID"]`, or `nil` when there is none or `name` is not a valid field name.
    ///
    /// Values are combined as ``subscript(_:)-(HTTPFieldName)`` combines them. This subscript is
    /// read-only: a name given as text may be invalid, and a setter could then neither throw nor
    /// set anything. Set a field with a typed name (`fields[.userAgent] = …`), or with
    /// ``set(_:_:)`` after `HTTPFieldName(_:)` has checked the text.
    /// - Parameter name: The name to look up, compared case-insensitively.
    public subscript(name: String) -> String? {
        guard let fieldName = try? HTTPFieldName(name) else { return nil }
        return self[fieldName]
    }

    /// Every value of the fields named `name`, in order.
    /// - Parameter name: The name to look up, compared case-insensitively.
    public subscript(values name: HTTPFieldName) -> [String] {
        storage.compactMap { $0.name == name ? $0.value : nil }
    }

    /// Every field named `name`, in order, with its original name spelling.
    /// - Parameter name: The name to look up, compared case-insensitively.
    public subscript(fields name: HTTPFieldName) -> [HTTPField] {
        storage.filter { $0.name == name }
    }

    /// Whether any field is named `name`.
    /// - Parameter name: The name to look for, compared case-insensitively.
    /// - Returns: `true` when at least one field has that name.
    public func contains(_ name: HTTPFieldName) -> Bool {
        storage.contains { $0.name == name }
    }

    // MARK: Changes

    /// Makes room for at least `capacity` fields, so that appending up to that many
    /// allocates no more than once.
    /// - Parameter capacity: The number of fields to make room for.
    public mutating func reserveCapacity(_ capacity: Int) { storage.reserveCapacity(capacity) }

    /// Appends a field, keeping any others of the same name.
    /// - Parameter field: The field to add at the end.
    public mutating func append(_ field: HTTPField) {
        makeRoomToAppend()
        storage.append(field)
    }

    /// Makes the storage unique with room for a few more fields: fields shared with another
    /// copy (a request the client keeps for its retries, changed by one interceptor after
    /// another) are copied once with room to spare, not copied and then grown by the next field.
    private mutating func makeRoomToAppend() {
        var wanted = storage.capacity
        if storage.count + 1 > wanted { wanted = Swift.max(storage.count + 4, 2 * wanted) }
        // A no-op for unique storage with room; a copy of shared storage.
        storage.reserveCapacity(wanted)
    }

    /// Appends a field made from `name` and `value`, keeping any others of the same name.
    /// - Parameters:
    ///   - name: The field name.
    ///   - value: The value to validate.
    /// - Throws: ``HTTPCoreError`` when the value is invalid; the list is then unchanged.
    public mutating func append(name: HTTPFieldName, value: String) throws(HTTPCoreError) {
        append(try HTTPField(name: name, value: value))
    }

    /// Replaces every field named like `field` with `field`, at the position of the first.
    /// - Parameter field: The field to set; appended when no field has its name.
    public mutating func set(_ field: HTTPField) {
        if let first = storage.firstIndex(where: { $0.name == field.name }) {
            storage[first] = field
            var index = storage.index(after: first)
            while index < storage.endIndex {
                if storage[index].name == field.name { storage.remove(at: index) } else { index += 1 }
            }
        } else {
            storage.append(field)
        }
    }

    /// Replaces every field named `name` with one holding `value`.
    /// - Parameters:
    ///   - name: The field name.
    ///   - value: The value to validate.
    /// - Throws: ``HTTPCoreError`` when the value is invalid; the list is then unchanged.
    public mutating func set(_ name: HTTPFieldName, _ value: String) throws(HTTPCoreError) {
        set(try HTTPField(name: name, value: value))
    }

    /// Replaces, for each name in `fields`, every field of that name with the fields of
    /// `fields` that have it, in their order, at the position of the first field it replaces
    /// (the end when there is none).
    mutating func replace(with fields: HTTPFields) {
        guard !fields.isEmpty else { return }
        let incoming = Set(fields.storage.map(\.name))
        var placed = Set<HTTPFieldName>()
        var result: [HTTPField] = []
        result.reserveCapacity(storage.count + fields.count)
        for field in storage {
            if !incoming.contains(field.name) {
                result.append(field)
            } else if placed.insert(field.name).inserted {
                result.append(contentsOf: fields.storage.lazy.filter { $0.name == field.name })
            }
        }
        for field in fields.storage where !placed.contains(field.name) { result.append(field) }
        storage = result
    }

    /// Adds `field` only when no field with its name is present.
    /// - Parameter field: The default to add.
    /// - Returns: `true` when the field was added.
    @discardableResult
    public mutating func setIfAbsent(_ field: HTTPField) -> Bool {
        guard !contains(field.name) else { return false }
        storage.append(field)
        return true
    }

    /// Removes every field named `name`.
    /// - Parameter name: The name to remove, compared case-insensitively.
    public mutating func remove(_ name: HTTPFieldName) {
        storage.removeAll { $0.name == name }
    }

    /// The fields as `Name: value` lines joined by CRLF, without a trailing CRLF.
    public var description: String { storage.map(\.description).joined(separator: "\r\n") }
}
