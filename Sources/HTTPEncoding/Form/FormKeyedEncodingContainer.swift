/// The keyed container of ``FormValueEncoder``: fills one ``FormObject``.
///
/// It implements every `encodeIfPresent` requirement (the standard library's defaults
/// skip `nil`), so that ``FormStyle/Nils-swift.struct/emptyValue`` and
/// ``FormStyle/Nils-swift.struct/keyOnly`` can write absent optionals of synthesized
/// `Encodable` types.
struct FormKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: FormValueEncoder
    let object: FormObject

    var codingPath: [any CodingKey] { encoder.codingPath }

    @inline(__always)
    private func name(_ key: Key) -> FormSlice {
        encoder.context.key(key.stringValue, topLevel: encoder.holdsTopLevelKeys, at: encoder.keyPath(appending: key))
    }

    @inline(__always)
    private func set(_ key: Key, _ node: FormNode) { object.set(name(key), node, in: encoder.context) }

    private func encodeNilIfWritten(forKey key: Key) {
        if encoder.context.encodesNils { set(key, .null) }
    }

    mutating func encodeNil(forKey key: Key) { set(key, .null) }
    mutating func encode(_ value: Bool, forKey key: Key) { set(key, encoder.context.leaf(value)) }
    mutating func encode(_ value: String, forKey key: Key) { set(key, encoder.context.leaf(value)) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        set(key, try encoder.number(value, key: key))
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        set(key, try encoder.number(value, key: key))
    }
    mutating func encode(_ value: Int, forKey key: Key) { set(key, encoder.context.leaf(Int64(value))) }
    mutating func encode(_ value: Int8, forKey key: Key) { set(key, encoder.context.leaf(Int64(value))) }
    mutating func encode(_ value: Int16, forKey key: Key) { set(key, encoder.context.leaf(Int64(value))) }
    mutating func encode(_ value: Int32, forKey key: Key) { set(key, encoder.context.leaf(Int64(value))) }
    mutating func encode(_ value: Int64, forKey key: Key) { set(key, encoder.context.leaf(value)) }
    mutating func encode(_ value: UInt, forKey key: Key) { set(key, encoder.context.leaf(UInt64(value))) }
    mutating func encode(_ value: UInt8, forKey key: Key) { set(key, encoder.context.leaf(UInt64(value))) }
    mutating func encode(_ value: UInt16, forKey key: Key) { set(key, encoder.context.leaf(UInt64(value))) }
    mutating func encode(_ value: UInt32, forKey key: Key) { set(key, encoder.context.leaf(UInt64(value))) }
    mutating func encode(_ value: UInt64, forKey key: Key) { set(key, encoder.context.leaf(value)) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        set(key, try encoder.box(value, key: key))
    }

    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) {
        if let value { encode(value, forKey: key) } else { encodeNilIfWritten(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) {
        if let value { encode(value, forKey: key) } else { encodeNilIfWritten(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { encodeNilIfWritten(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { encodeNilIfWritten(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) {
        if let value { encode(value, forKey: key) } else { encodeNilIfWritten(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) {
        if let value { encode(value, forKey: key) } else { encodeNilIfWritten(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) {
        if let value { encode(value, forKey: key) } else { encodeNilIfWritten(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) {
        if let value { encode(value, forKey: key) } else { encodeNilIfWritten(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) {
        if let value { encode(value, forKey: key) } else { encodeNilIfWritten(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) {
        if let value { encode(value, forKey: key) } else { encodeNilIfWritten(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) {
        if let value { encode(value, forKey: key) } else { encodeNilIfWritten(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) {
        if let value { encode(value, forKey: key) } else { encodeNilIfWritten(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) {
        if let value { encode(value, forKey: key) } else { encodeNilIfWritten(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) {
        if let value { encode(value, forKey: key) } else { encodeNilIfWritten(forKey: key) }
    }

    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { encodeNilIfWritten(forKey: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    )
        -> KeyedEncodingContainer<NestedKey>
    {
        let child = FormValueEncoder(context: encoder.context, parent: encoder, key: key)
        let name = name(key)
        if case .object(let existing) = object.value(for: name, in: encoder.context) {
            child.store(.object(existing))
        }
        let container = child.container(keyedBy: NestedKey.self)
        if case .some(let node) = child.node { object.set(name, node, in: encoder.context) }
        return container
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = FormValueEncoder(context: encoder.context, parent: encoder, key: key)
        let name = name(key)
        if case .array(let existing) = object.value(for: name, in: encoder.context) {
            child.store(.array(existing))
        }
        let container = child.unkeyedContainer()
        if case .some(let node) = child.node { object.set(name, node, in: encoder.context) }
        return container
    }

    mutating func superEncoder() -> any Encoder {
        let object = self.object
        let context = encoder.context
        let name = context.key(
            FormCodingKey.superKey.stringValue, topLevel: encoder.holdsTopLevelKeys,
            at: encoder.keyPath(appending: FormCodingKey.superKey))
        return FormValueEncoder(context: context, parent: encoder, key: FormCodingKey.superKey) {
            object.set(name, $0, in: context)
        }
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let object = self.object
        let context = encoder.context
        let name = name(key)
        return FormValueEncoder(context: context, parent: encoder, key: key) { object.set(name, $0, in: context) }
    }
}
