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
    private func name(_ key: Key) -> String { encoder.context.name(key.stringValue) }

    private func encodeNilIfWritten(forKey key: Key) {
        if encoder.context.encodesNils { object.set(name(key), .null) }
    }

    mutating func encodeNil(forKey key: Key) { object.set(name(key), .null) }
    mutating func encode(_ value: Bool, forKey key: Key) { object.set(name(key), .bool(value)) }
    mutating func encode(_ value: String, forKey key: Key) { object.set(name(key), .string(value)) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        object.set(name(key), try encoder.number(value, key: key))
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        object.set(name(key), try encoder.number(value, key: key))
    }
    mutating func encode(_ value: Int, forKey key: Key) { object.set(name(key), .int(Int64(value))) }
    mutating func encode(_ value: Int8, forKey key: Key) { object.set(name(key), .int(Int64(value))) }
    mutating func encode(_ value: Int16, forKey key: Key) { object.set(name(key), .int(Int64(value))) }
    mutating func encode(_ value: Int32, forKey key: Key) { object.set(name(key), .int(Int64(value))) }
    mutating func encode(_ value: Int64, forKey key: Key) { object.set(name(key), .int(value)) }
    mutating func encode(_ value: UInt, forKey key: Key) { object.set(name(key), .uint(UInt64(value))) }
    mutating func encode(_ value: UInt8, forKey key: Key) { object.set(name(key), .uint(UInt64(value))) }
    mutating func encode(_ value: UInt16, forKey key: Key) { object.set(name(key), .uint(UInt64(value))) }
    mutating func encode(_ value: UInt32, forKey key: Key) { object.set(name(key), .uint(UInt64(value))) }
    mutating func encode(_ value: UInt64, forKey key: Key) { object.set(name(key), .uint(value)) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        object.set(name(key), try encoder.box(value, key: key))
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
        if case .object(let existing) = object.value(for: name(key)) { child.store(.object(existing)) }
        let container = child.container(keyedBy: NestedKey.self)
        if case .some(let node) = child.node { object.set(name(key), node) }
        return container
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = FormValueEncoder(context: encoder.context, parent: encoder, key: key)
        if case .array(let existing) = object.value(for: name(key)) { child.store(.array(existing)) }
        let container = child.unkeyedContainer()
        if case .some(let node) = child.node { object.set(name(key), node) }
        return container
    }

    mutating func superEncoder() -> any Encoder {
        let object = self.object
        let name = encoder.context.name(FormCodingKey.superKey.stringValue)
        return FormValueEncoder(context: encoder.context, parent: encoder, key: FormCodingKey.superKey) {
            object.set(name, $0)
        }
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let object = self.object
        let name = name(key)
        return FormValueEncoder(context: encoder.context, parent: encoder, key: key) { object.set(name, $0) }
    }
}
