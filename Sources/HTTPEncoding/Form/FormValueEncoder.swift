import Foundation

/// The `Encoder` behind ``FormEncoder``: turns one `Encodable` value into a ``FormNode``.
///
/// The coding path is not stored as an array in every encoder (that would copy it at
/// every level); each encoder points at its parent and its key, and the path is built
/// only when someone asks for it, such as an error message.
final class FormValueEncoder: Encoder, SingleValueEncodingContainer {
    let context: FormEncodingContext
    private let parent: FormValueEncoder?
    private let key: (any CodingKey)?
    @exclusivity(unchecked) private(set) var node: FormNode?
    /// Called when this encoder stores its value; used by `superEncoder()` to write into the parent.
    private var onStore: ((FormNode) -> Void)?
    /// How many keys lead to this encoder's value (0 for the top-level value). A value
    /// inside an untyped parameter dictionary starts at the depth the converter reached.
    let depth: Int

    /// - Parameter depth: For an encoder without a parent, the keys above its value (an
    ///   untyped parameter dictionary knows them); else ignored.
    init(context: FormEncodingContext, parent: FormValueEncoder?, key: (any CodingKey)?, depth: Int = 0) {
        self.context = context
        self.parent = parent
        self.key = key
        self.depth = (parent?.depth ?? depth) + (key == nil ? 0 : 1)
    }

    convenience init(
        context: FormEncodingContext, parent: FormValueEncoder, key: (any CodingKey)?,
        onStore: @escaping (FormNode) -> Void
    ) {
        self.init(context: context, parent: parent, key: key)
        self.onStore = onStore
    }

    var codingPath: [any CodingKey] {
        var path: [any CodingKey] = []
        var current: FormValueEncoder? = self
        while let encoder = current {
            if let key = encoder.key { path.append(key) }
            current = encoder.parent
        }
        return path.reversed()
    }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// Whether the keys of this encoder's keyed container are top-level keys of the form:
    /// no key leads here (values passed through single-value containers add none).
    var holdsTopLevelKeys: Bool { depth == 0 }

    /// Records a refusal when this encoder's members would nest too deep.
    private func checkContainerDepth() {
        if depth >= FormStyle.maximumDepth { context.refuse(FormEncodingContext.tooDeep(at: codingPath.formKeyPath)) }
    }

    func store(_ node: FormNode) {
        self.node = node
        onStore?(node)
    }

    /// The key path to `key` below this encoder, for an error.
    func keyPath(appending key: (any CodingKey)?) -> [String] {
        var path = codingPath.formKeyPath
        if let key { path.append(key.stringValue) }
        return path
    }

    // MARK: Encoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        checkContainerDepth()
        let object: FormObject
        if case .object(let existing) = node {
            object = existing
        } else {
            object = FormObject()
            store(.object(object))
        }
        return KeyedEncodingContainer(FormKeyedEncodingContainer<Key>(encoder: self, object: object))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        checkContainerDepth()
        let array: FormArray
        if case .array(let existing) = node {
            array = existing
        } else {
            array = FormArray()
            store(.array(array))
        }
        return FormUnkeyedEncodingContainer(encoder: self, array: array)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    // MARK: SingleValueEncodingContainer

    func encodeNil() { store(.null) }
    func encode(_ value: Bool) { store(context.leaf(value)) }
    func encode(_ value: String) { store(context.leaf(value)) }
    func encode(_ value: Double) throws { store(try number(value, key: nil)) }
    func encode(_ value: Float) throws { store(try number(value, key: nil)) }
    func encode(_ value: Int) { store(context.leaf(Int64(value))) }
    func encode(_ value: Int8) { store(context.leaf(Int64(value))) }
    func encode(_ value: Int16) { store(context.leaf(Int64(value))) }
    func encode(_ value: Int32) { store(context.leaf(Int64(value))) }
    func encode(_ value: Int64) { store(context.leaf(value)) }
    func encode(_ value: UInt) { store(context.leaf(UInt64(value))) }
    func encode(_ value: UInt8) { store(context.leaf(UInt64(value))) }
    func encode(_ value: UInt16) { store(context.leaf(UInt64(value))) }
    func encode(_ value: UInt32) { store(context.leaf(UInt64(value))) }
    func encode(_ value: UInt64) { store(context.leaf(value)) }
    func encode<T: Encodable>(_ value: T) throws { store(try box(value, key: nil)) }

    // MARK: Boxing

    /// A finite number as text; a form has no spelling for NaN or infinity.
    func number<F: BinaryFloatingPoint & LosslessStringConvertible>(
        _ value: F, key: (any CodingKey)?
    ) throws
        -> FormNode
    {
        guard value.isFinite else {
            throw HTTPEncodingError(
                .unsupportedValue, keyPath: keyPath(appending: key), value: value.description,
                reason: "a form cannot carry a non-finite number")
        }
        return context.leaf(value.description)
    }

    /// Encodes `value`, found at `key` below this encoder, into a node.
    ///
    /// `Date`, `Data`, `URL` and `Decimal` are written as one string each (through the
    /// date and data strategies), as `JSONEncoder` treats them; other values encode
    /// themselves into a child encoder.
    func box<T: Encodable>(_ value: T, key: (any CodingKey)?) throws -> FormNode {
        if T.self == String.self, let string = value as? String { return context.leaf(string) }
        if T.self == Int.self, let int = value as? Int { return context.leaf(Int64(int)) }
        if T.self == Bool.self, let bool = value as? Bool { return context.leaf(bool) }
        if T.self == Date.self, let date = value as? Date {
            do {
                return context.leaf(try context.dates.encode(date))
            } catch {
                throw HTTPEncodingError(
                    error.code, keyPath: keyPath(appending: key), value: error.value, reason: error.reason,
                    underlying: error.underlying)
            }
        }
        if T.self == Data.self, let data = value as? Data {
            do {
                return context.leaf(try context.data.encode(data))
            } catch {
                throw HTTPEncodingError(
                    error.code, keyPath: keyPath(appending: key), value: error.value, reason: error.reason,
                    underlying: error.underlying)
            }
        }
        if T.self == [String].self, let strings = value as? [String] {
            let mark = context.arena.count
            let array = FormArray(capacity: strings.count)
            for string in strings { array.values.append(context.leaf(string)) }
            return key == nil ? .array(array) : context.freeze(.array(array), reclaimingFrom: mark)
        }
        if T.self == URL.self, let url = value as? URL { return context.leaf(url.absoluteString) }
        if T.self == Decimal.self, let decimal = value as? Decimal { return context.leaf(decimal.description) }
        let child = FormValueEncoder(context: context, parent: self, key: key)
        // Stops a runaway recursion: the container that first went too deep recorded why.
        if child.depth > FormStyle.maximumDepth {
            throw context.refusal ?? FormEncodingContext.tooDeep(at: child.codingPath.formKeyPath)
        }
        let mark = context.arena.count
        do {
            try value.encode(to: child)
        } catch let error as HTTPEncodingError {
            throw error
        } catch let error as EncodingError {
            guard case .invalidValue(let invalid, let errorContext) = error else { throw error }
            throw HTTPEncodingError(
                .unsupportedValue, keyPath: errorContext.codingPath.formKeyPath, value: "\(invalid)",
                reason: errorContext.debugDescription, underlying: error)
        } catch {
            throw HTTPEncodingError(
                .valueCodingFailed, keyPath: keyPath(appending: key), value: "\(T.self)",
                reason: "the value's encode(to:) threw", underlying: error)
        }
        // A value stored under a key is finished here: write it out compactly if it can be.
        guard let node = child.node else { return .object(FormObject()) }
        return key == nil ? node : context.freeze(node, reclaimingFrom: mark)
    }
}
