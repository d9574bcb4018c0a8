/// An encoder that writes nothing: where a value's encoding must run but its output is
/// not wanted (a property the URI template consumed, a property no template names).
struct DiscardingEncoder: Encoder, SingleValueEncodingContainer {
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(DiscardingContainer<Key>(codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer { DiscardingUnkeyedContainer(codingPath: codingPath) }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    mutating func encodeNil() {}

    mutating func encode<T: Encodable>(_ value: T) {}
}

/// A keyed container that writes nothing.
struct DiscardingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    var codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) {}

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) {}

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(DiscardingContainer<NestedKey>(codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        DiscardingUnkeyedContainer(codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder { DiscardingEncoder(codingPath: codingPath) }

    mutating func superEncoder(forKey key: Key) -> any Encoder { DiscardingEncoder(codingPath: codingPath + [key]) }
}

/// An unkeyed container that writes nothing.
struct DiscardingUnkeyedContainer: UnkeyedEncodingContainer {
    var codingPath: [any CodingKey]
    private(set) var count = 0

    init(codingPath: [any CodingKey]) { self.codingPath = codingPath }

    mutating func encodeNil() { count += 1 }

    mutating func encode<T: Encodable>(_ value: T) { count += 1 }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        count += 1
        return KeyedEncodingContainer(DiscardingContainer<NestedKey>(codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        count += 1
        return DiscardingUnkeyedContainer(codingPath: codingPath)
    }

    mutating func superEncoder() -> any Encoder { DiscardingEncoder(codingPath: codingPath) }
}
