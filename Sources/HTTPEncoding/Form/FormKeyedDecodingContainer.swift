/// The keyed container of ``FormValueDecoder``: reads the members of one parsed object.
///
/// A key is looked up as the key strategy writes it, then as given, so `String`-keyed
/// dictionaries (whose keys come from ``allKeys`` as written) find their values too.
struct FormKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: FormValueDecoder
    let object: FormParsedObject

    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { decoder.context.lookup(key.stringValue, in: object) != nil }

    /// A decoder for the member at `key`; when `required`, a missing member throws `keyNotFound`.
    private func child(_ key: Key, required: Bool) throws -> FormValueDecoder {
        let node = decoder.context.lookup(key.stringValue, in: object)
        if required && node == nil {
            throw decoder.error(.keyNotFound, "no value for key \"\(key.stringValue)\"", key: key)
        }
        return decoder.child(node, key: key)
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        decoder.context.isNil(decoder.context.lookup(key.stringValue, in: object))
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try child(key, required: true).decode(type) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try child(key, required: true).decode(type) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try child(key, required: true).decode(type) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try child(key, required: true).decode(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try child(key, required: true).decode(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try child(key, required: true).decode(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try child(key, required: true).decode(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try child(key, required: true).decode(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try child(key, required: true).decode(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try child(key, required: true).decode(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try child(key, required: true).decode(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try child(key, required: true).decode(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try child(key, required: true).decode(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try child(key, required: true).decode(type) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let child = try child(key, required: false)
        guard child.node == nil else { return try child.decode(type) }
        // A missing key still decodes as an empty array or dictionary, or an object of optionals.
        do {
            return try child.decode(type)
        } catch {
            throw decoder.error(.keyNotFound, "no value for key \"\(key.stringValue)\"", key: key)
        }
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try child(key, required: false).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try child(key, required: false).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        decoder.child(
            decoder.context.lookup(FormCodingKey.superKey.stringValue, in: object), key: FormCodingKey.superKey)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder { try child(key, required: false) }
}
