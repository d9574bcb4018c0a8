import Foundation
import HTTPCore
import HTTPEncoding

/// The `Encoder` behind ``MultipartFormEncoder``: records a value into a ``MultipartNode`` tree.
struct MultipartValueEncoder: Encoder {
    let node: MultipartNode
    let codingPath: [any CodingKey]
    let options: MultipartFormEncoder
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(node: MultipartNode, codingPath: [any CodingKey], options: MultipartFormEncoder) {
        self.node = node
        self.codingPath = codingPath
        self.options = options
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.makeKeyed()
        return KeyedEncodingContainer(KeyedContainer<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.makeUnkeyed()
        return UnkeyedContainer(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleValueContainer(encoder: self) }

    /// Encodes `value` into this encoder's node, catching the types a form treats specially.
    func encodeValue(_ value: some Encodable) throws {
        switch value {
        case let file as MultipartFile:
            node.kind = .leaf(.file(file))
        case let date as Date:
            node.kind = .leaf(
                .text(try strategy { () throws(HTTPEncodingError) in try options.dateEncodingStrategy.encode(date) }))
        case let data as Data:
            if let strategy = options.dataEncodingStrategy {
                node.kind = .leaf(
                    .text(try self.strategy { () throws(HTTPEncodingError) in try strategy.encode(data) }))
            } else {
                node.kind = .leaf(.data(data))
            }
        case let url as URL:
            node.kind = .leaf(.text(url.absoluteString))
        case let decimal as Decimal:
            node.kind = .leaf(.text(decimal.description))
        default:
            try value.encode(to: self)
        }
    }

    func text(_ text: String) { node.kind = .leaf(.text(text)) }

    /// A finite number as text; a form has no spelling for NaN or infinity.
    func number<Number: BinaryFloatingPoint & LosslessStringConvertible>(_ value: Number) throws(MultipartError) {
        guard value.isFinite else {
            throw MultipartError(
                .unsupportedValue, value: MultipartNode.name(for: codingPath),
                reason: "a form cannot carry the non-finite number \(value)")
        }
        text(value.description)
    }

    func child(forKey key: some CodingKey) -> MultipartValueEncoder {
        let name = options.keyEncodingStrategy.encode(key.stringValue)
        let path = codingPath + [key]
        return MultipartValueEncoder(
            node: node.child(forKey: name, codingPath: path), codingPath: path, options: options)
    }

    func element(at index: Int) -> MultipartValueEncoder {
        let path = codingPath + [IndexKey(index)]
        return MultipartValueEncoder(node: node.appendElement(codingPath: path), codingPath: path, options: options)
    }

    private func strategy(_ body: () throws(HTTPEncodingError) -> String) throws(MultipartError) -> String {
        do {
            return try body()
        } catch {
            throw MultipartError(
                .unsupportedValue, value: MultipartNode.name(for: codingPath),
                reason: "the strategy failed: \(error.reason)", underlyingError: error)
        }
    }
}

struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { String(intValue ?? 0) }
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: MultipartValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil(forKey key: Key) throws {}
    mutating func encode(_ value: Bool, forKey key: Key) throws {
        encoder.child(forKey: key).text(value ? "true" : "false")
    }
    mutating func encode(_ value: String, forKey key: Key) throws { encoder.child(forKey: key).text(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try encoder.child(forKey: key).number(value) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try encoder.child(forKey: key).number(value) }
    mutating func encode(_ value: Int, forKey key: Key) throws { encoder.child(forKey: key).text("\(value)") }
    mutating func encode(_ value: Int8, forKey key: Key) throws { encoder.child(forKey: key).text("\(value)") }
    mutating func encode(_ value: Int16, forKey key: Key) throws { encoder.child(forKey: key).text("\(value)") }
    mutating func encode(_ value: Int32, forKey key: Key) throws { encoder.child(forKey: key).text("\(value)") }
    mutating func encode(_ value: Int64, forKey key: Key) throws { encoder.child(forKey: key).text("\(value)") }
    mutating func encode(_ value: UInt, forKey key: Key) throws { encoder.child(forKey: key).text("\(value)") }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { encoder.child(forKey: key).text("\(value)") }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { encoder.child(forKey: key).text("\(value)") }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { encoder.child(forKey: key).text("\(value)") }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { encoder.child(forKey: key).text("\(value)") }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try encoder.child(forKey: key).encodeValue(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    )
        -> KeyedEncodingContainer<NestedKey>
    {
        encoder.child(forKey: key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder.child(forKey: key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { encoder.child(forKey: SuperKey.super) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { encoder.child(forKey: key) }
}

private enum SuperKey: String, CodingKey {
    case `super`
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: MultipartValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int {
        if case .unkeyed(let elements) = encoder.node.kind { return elements.count }
        return 0
    }

    private func next() -> MultipartValueEncoder { encoder.element(at: count) }

    mutating func encodeNil() throws { _ = next() }
    mutating func encode(_ value: Bool) throws { next().text(value ? "true" : "false") }
    mutating func encode(_ value: String) throws { next().text(value) }
    mutating func encode(_ value: Double) throws { try next().number(value) }
    mutating func encode(_ value: Float) throws { try next().number(value) }
    mutating func encode(_ value: Int) throws { next().text("\(value)") }
    mutating func encode(_ value: Int8) throws { next().text("\(value)") }
    mutating func encode(_ value: Int16) throws { next().text("\(value)") }
    mutating func encode(_ value: Int32) throws { next().text("\(value)") }
    mutating func encode(_ value: Int64) throws { next().text("\(value)") }
    mutating func encode(_ value: UInt) throws { next().text("\(value)") }
    mutating func encode(_ value: UInt8) throws { next().text("\(value)") }
    mutating func encode(_ value: UInt16) throws { next().text("\(value)") }
    mutating func encode(_ value: UInt32) throws { next().text("\(value)") }
    mutating func encode(_ value: UInt64) throws { next().text("\(value)") }
    mutating func encode<T: Encodable>(_ value: T) throws { try next().encodeValue(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    )
        -> KeyedEncodingContainer<NestedKey>
    {
        next().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { next().unkeyedContainer() }

    mutating func superEncoder() -> any Encoder { next() }
}

private struct SingleValueContainer: SingleValueEncodingContainer {
    let encoder: MultipartValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { encoder.node.kind = .empty }
    mutating func encode(_ value: Bool) throws { encoder.text(value ? "true" : "false") }
    mutating func encode(_ value: String) throws { encoder.text(value) }
    mutating func encode(_ value: Double) throws { try encoder.number(value) }
    mutating func encode(_ value: Float) throws { try encoder.number(value) }
    mutating func encode(_ value: Int) throws { encoder.text("\(value)") }
    mutating func encode(_ value: Int8) throws { encoder.text("\(value)") }
    mutating func encode(_ value: Int16) throws { encoder.text("\(value)") }
    mutating func encode(_ value: Int32) throws { encoder.text("\(value)") }
    mutating func encode(_ value: Int64) throws { encoder.text("\(value)") }
    mutating func encode(_ value: UInt) throws { encoder.text("\(value)") }
    mutating func encode(_ value: UInt8) throws { encoder.text("\(value)") }
    mutating func encode(_ value: UInt16) throws { encoder.text("\(value)") }
    mutating func encode(_ value: UInt32) throws { encoder.text("\(value)") }
    mutating func encode(_ value: UInt64) throws { encoder.text("\(value)") }
    mutating func encode<T: Encodable>(_ value: T) throws { try encoder.encodeValue(value) }
}
