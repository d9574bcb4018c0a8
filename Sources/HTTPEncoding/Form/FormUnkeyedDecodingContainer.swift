/// The unkeyed container of ``FormValueDecoder``: reads the elements of a list, of an
/// object with integer keys (`key[0]`, `key[1]`, in numeric order), or of a single value.
struct FormUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let decoder: FormValueDecoder
    let elements: [FormParsedNode]
    private(set) var currentIndex = 0

    init(decoder: FormValueDecoder, elements: [FormParsedNode]) {
        self.decoder = decoder
        self.elements = elements
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next() throws -> FormValueDecoder {
        let key = FormCodingKey(intValue: currentIndex)
        guard !isAtEnd else {
            throw decoder.error(.valueNotFound, "the array has only \(elements.count) elements", key: key)
        }
        defer { currentIndex += 1 }
        return decoder.child(elements[currentIndex], key: key)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, decoder.context.isNil(elements[currentIndex]) else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next().decode(type) }
    mutating func decode(_ type: String.Type) throws -> String { try next().decode(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try next().decode(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try next().decode(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try next().decode(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next().decode(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next().decode(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next().decode(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next().decode(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next().decode(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next().decode(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next().decode(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next().decode(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next().decode(type) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decode(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try next().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }

    mutating func superDecoder() throws -> any Decoder { try next() }
}
