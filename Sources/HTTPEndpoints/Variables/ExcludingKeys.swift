/// A request value encoded without the top-level properties a URI template consumed,
/// so a value that fills `{id}` in the path does not send `id` again in the body or query.
///
/// It works with any `Encoder` (JSON, form, multipart): the wrapped value encodes through
/// an encoder that hands out the real encoder's containers, except that its top-level
/// keyed container drops the excluded keys. Nested values pass through untouched, so every
/// strategy of the real encoder (dates, keys, files) applies as before.
struct ExcludingKeys: Encodable {
    let value: any Encodable
    let excluded: Set<String>

    func encode(to encoder: any Encoder) throws {
        try value.encode(to: ExcludingEncoder(base: encoder, excluded: excluded))
    }
}

/// The encoder ``ExcludingKeys`` hands to the value: the real one, but for its keyed container.
private struct ExcludingEncoder: Encoder {
    let base: any Encoder
    let excluded: Set<String>

    var codingPath: [any CodingKey] { base.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { base.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(ExcludingContainer(base: base.container(keyedBy: type), excluded: excluded))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer { base.unkeyedContainer() }

    func singleValueContainer() -> any SingleValueEncodingContainer { base.singleValueContainer() }
}

/// The real encoder's keyed container, skipping excluded keys. Every requirement is
/// forwarded, `encodeIfPresent` included, so encoders that treat `nil` specially (a form
/// encoder writing empty values) behave as they do without the wrapper.
private struct ExcludingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    var base: KeyedEncodingContainer<Key>
    let excluded: Set<String>

    var codingPath: [any CodingKey] { base.codingPath }

    private func keeps(_ key: Key) -> Bool { !excluded.contains(key.stringValue) }

    mutating func encodeNil(forKey key: Key) throws { if keeps(key) { try base.encodeNil(forKey: key) } }
    mutating func encode(_ value: Bool, forKey key: Key) throws {
        if keeps(key) { try base.encode(value, forKey: key) }
    }
    mutating func encode(_ value: String, forKey key: Key) throws {
        if keeps(key) { try base.encode(value, forKey: key) }
    }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        if keeps(key) { try base.encode(value, forKey: key) }
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        if keeps(key) { try base.encode(value, forKey: key) }
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { if keeps(key) { try base.encode(value, forKey: key) } }
    mutating func encode(_ value: Int8, forKey key: Key) throws {
        if keeps(key) { try base.encode(value, forKey: key) }
    }
    mutating func encode(_ value: Int16, forKey key: Key) throws {
        if keeps(key) { try base.encode(value, forKey: key) }
    }
    mutating func encode(_ value: Int32, forKey key: Key) throws {
        if keeps(key) { try base.encode(value, forKey: key) }
    }
    mutating func encode(_ value: Int64, forKey key: Key) throws {
        if keeps(key) { try base.encode(value, forKey: key) }
    }
    mutating func encode(_ value: UInt, forKey key: Key) throws {
        if keeps(key) { try base.encode(value, forKey: key) }
    }
    mutating func encode(_ value: UInt8, forKey key: Key) throws {
        if keeps(key) { try base.encode(value, forKey: key) }
    }
    mutating func encode(_ value: UInt16, forKey key: Key) throws {
        if keeps(key) { try base.encode(value, forKey: key) }
    }
    mutating func encode(_ value: UInt32, forKey key: Key) throws {
        if keeps(key) { try base.encode(value, forKey: key) }
    }
    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        if keeps(key) { try base.encode(value, forKey: key) }
    }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        if keeps(key) { try base.encode(value, forKey: key) }
    }

    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
        if keeps(key) { try base.encodeIfPresent(value, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
        if keeps(key) { try base.encodeIfPresent(value, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
        if keeps(key) { try base.encodeIfPresent(value, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws {
        if keeps(key) { try base.encodeIfPresent(value, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
        if keeps(key) { try base.encodeIfPresent(value, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws {
        if keeps(key) { try base.encodeIfPresent(value, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws {
        if keeps(key) { try base.encodeIfPresent(value, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws {
        if keeps(key) { try base.encodeIfPresent(value, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
        if keeps(key) { try base.encodeIfPresent(value, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws {
        if keeps(key) { try base.encodeIfPresent(value, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws {
        if keeps(key) { try base.encodeIfPresent(value, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws {
        if keeps(key) { try base.encodeIfPresent(value, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws {
        if keeps(key) { try base.encodeIfPresent(value, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws {
        if keeps(key) { try base.encodeIfPresent(value, forKey: key) }
    }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if keeps(key) { try base.encodeIfPresent(value, forKey: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        guard keeps(key) else { return KeyedEncodingContainer(DiscardingContainer<NestedKey>(codingPath: [key])) }
        return base.nestedContainer(keyedBy: keyType, forKey: key)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        guard keeps(key) else { return DiscardingUnkeyedContainer(codingPath: [key]) }
        return base.nestedUnkeyedContainer(forKey: key)
    }

    mutating func superEncoder() -> any Encoder { base.superEncoder() }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        guard keeps(key) else { return DiscardingEncoder(codingPath: [key]) }
        return base.superEncoder(forKey: key)
    }
}
