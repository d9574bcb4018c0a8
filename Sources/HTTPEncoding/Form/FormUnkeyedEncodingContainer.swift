/// The unkeyed container of ``FormValueEncoder``: appends to one ``FormArray``.
struct FormUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let encoder: FormValueEncoder
    let array: FormArray

    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int { array.values.count }

    mutating func encodeNil() { array.values.append(.null) }
    mutating func encode(_ value: Bool) { array.values.append(encoder.context.leaf(value)) }
    mutating func encode(_ value: String) { array.values.append(encoder.context.leaf(value)) }
    mutating func encode(_ value: Double) throws {
        array.values.append(try encoder.number(value, key: FormCodingKey(intValue: count)))
    }
    mutating func encode(_ value: Float) throws {
        array.values.append(try encoder.number(value, key: FormCodingKey(intValue: count)))
    }
    mutating func encode(_ value: Int) { array.values.append(encoder.context.leaf(Int64(value))) }
    mutating func encode(_ value: Int8) { array.values.append(encoder.context.leaf(Int64(value))) }
    mutating func encode(_ value: Int16) { array.values.append(encoder.context.leaf(Int64(value))) }
    mutating func encode(_ value: Int32) { array.values.append(encoder.context.leaf(Int64(value))) }
    mutating func encode(_ value: Int64) { array.values.append(encoder.context.leaf(value)) }
    mutating func encode(_ value: UInt) { array.values.append(encoder.context.leaf(UInt64(value))) }
    mutating func encode(_ value: UInt8) { array.values.append(encoder.context.leaf(UInt64(value))) }
    mutating func encode(_ value: UInt16) { array.values.append(encoder.context.leaf(UInt64(value))) }
    mutating func encode(_ value: UInt32) { array.values.append(encoder.context.leaf(UInt64(value))) }
    mutating func encode(_ value: UInt64) { array.values.append(encoder.context.leaf(value)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        array.values.append(try encoder.box(value, key: FormCodingKey(intValue: count)))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    )
        -> KeyedEncodingContainer<NestedKey>
    {
        let child = FormValueEncoder(context: encoder.context, parent: encoder, key: FormCodingKey(intValue: count))
        let container = child.container(keyedBy: NestedKey.self)
        if case .some(let node) = child.node { array.values.append(node) }
        return container
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = FormValueEncoder(context: encoder.context, parent: encoder, key: FormCodingKey(intValue: count))
        let container = child.unkeyedContainer()
        if case .some(let node) = child.node { array.values.append(node) }
        return container
    }

    mutating func superEncoder() -> any Encoder {
        let array = self.array
        let position = array.values.count
        array.values.append(.null)
        return FormValueEncoder(context: encoder.context, parent: encoder, key: FormCodingKey(intValue: position)) {
            array.values[position] = $0
        }
    }
}
