import Foundation
import HTTPEncoding

/// Turns `Encodable` values into URI template values (RFC 6570 §2.4: a string, a list
/// or an associative array), for the variables of an endpoint's template.
///
/// - A scalar (string, number, bool, enum with a raw value, `UUID`, `URL`, `Date` as
///   ISO 8601, `Data` as base64, `Decimal`) is a string; `nil` is undefined.
/// - An array of scalars is a list; a struct or a dictionary of scalars is an associative
///   array, its pairs in encoding order (a dictionary's sorted by key, so the same value
///   always gives the same URI).
/// - Anything deeper (a list of lists, a struct holding an array) has no template form
///   and is refused with a reason, never flattened by a guess.
enum TemplateVariableEncoder {
    /// The template value of `value`, or `nil` when it is undefined.
    /// - Throws: ``VariableShapeError`` when the value has no template form.
    static func value(of value: some Encodable) throws(VariableShapeError) -> URITemplate.Value? {
        if let direct = value as? URITemplate.Value { return direct }
        if let text = try scalar(value) { return .string(text) }
        let encoder = VariableEncoder(depth: 0)
        do {
            try value.encode(to: encoder)
        } catch let error as VariableShapeError {
            throw error
        } catch {
            throw VariableShapeError(reason: "its encode(to:) threw \(error)")
        }
        let unordered = value is any UnorderedKeyedCollection
        if unordered, case .list = encoder.shape {
            // A dictionary whose keys are not strings or integers encodes as a flat list of
            // keys and values, in hash order: no template form, and no stable one.
            throw VariableShapeError(reason: "a dictionary whose keys are not strings has no URI template form")
        }
        return try encoder.result(sortingKeys: unordered)
    }

    /// The top-level properties of `request` whose names are in `names`, as template values.
    /// - Throws: ``VariableShapeError`` naming the property whose value has no template form.
    static func properties(
        of request: some Encodable, named names: Set<String>
    ) throws(VariableShapeError) -> [String: URITemplate.Value] {
        let encoder = PropertyEncoder(names: names)
        do {
            try request.encode(to: encoder)
        } catch let error as VariableShapeError {
            throw error
        } catch {
            throw VariableShapeError(reason: "its encode(to:) threw \(error)")
        }
        return encoder.found
    }

    /// The text of a scalar value, `nil` for any other value.
    static func scalar(_ value: Any) throws(VariableShapeError) -> String? {
        switch value {
        case let text as String: return text
        case let number as Int: return String(number)
        case let flag as Bool: return flag ? "true" : "false"
        case let number as Double:
            guard number.isFinite else { throw VariableShapeError(reason: "\(number) is not a finite number") }
            return number.description
        case let number as Float:
            guard number.isFinite else { throw VariableShapeError(reason: "\(number) is not a finite number") }
            return number.description
        case let number as Int64: return String(number)
        case let number as Int32: return String(number)
        case let number as Int16: return String(number)
        case let number as Int8: return String(number)
        case let number as UInt: return String(number)
        case let number as UInt64: return String(number)
        case let number as UInt32: return String(number)
        case let number as UInt16: return String(number)
        case let number as UInt8: return String(number)
        case let text as Substring: return String(text)
        case let character as Character: return String(character)
        case let number as Decimal: return number.description
        case let id as UUID: return id.uuidString
        case let url as URL: return url.absoluteString
        case let date as Date:
            do { return try DateEncodingStrategy.iso8601.encode(date) } catch {
                throw VariableShapeError(reason: error.reason)
            }
        case let data as Data: return data.base64EncodedString()
        default: return nil
        }
    }
}

/// Why a value cannot be a template variable.
struct VariableShapeError: Error {
    let reason: String
}

/// Marks the collections whose keys have no order of their own.
protocol UnorderedKeyedCollection {}

extension Dictionary: UnorderedKeyedCollection {}

/// Captures the wanted top-level properties of a request value.
private final class PropertyEncoder: Encoder {
    let names: Set<String>
    var found: [String: URITemplate.Value] = [:]
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(names: Set<String>) { self.names = names }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(PropertyContainer<Key>(encoder: self))
    }

    // A request value that is not keyed (an array, a string) has no properties.
    func unkeyedContainer() -> any UnkeyedEncodingContainer { DiscardingUnkeyedContainer(codingPath: []) }

    func singleValueContainer() -> any SingleValueEncodingContainer { DiscardingEncoder(codingPath: []) }
}

private struct PropertyContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: PropertyEncoder
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) {}

    mutating func encode(_ value: String, forKey key: Key) {
        let name = key.stringValue
        if encoder.names.contains(name) { encoder.found[name] = .string(value) }
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        let name = key.stringValue
        guard encoder.names.contains(name) else { return }
        do {
            encoder.found[name] = try TemplateVariableEncoder.value(of: value)
        } catch {
            throw VariableShapeError(reason: "property \"\(name)\": \(error.reason)")
        }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(DiscardingContainer<NestedKey>(codingPath: [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        DiscardingUnkeyedContainer(codingPath: [key])
    }

    mutating func superEncoder() -> any Encoder { DiscardingEncoder(codingPath: []) }

    mutating func superEncoder(forKey key: Key) -> any Encoder { DiscardingEncoder(codingPath: [key]) }
}

/// Builds one variable's value: at depth 0 a scalar, list or associative array; at depth 1
/// (an element or a pair's value) a scalar only.
final class VariableEncoder: Encoder, SingleValueEncodingContainer {
    enum Shape {
        case undefined
        case scalar(String)
        case list([String])
        case pairs([(key: String, value: String)])
    }

    let depth: Int
    var shape = Shape.undefined
    var failure: String?
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(depth: Int) { self.depth = depth }

    func result(sortingKeys: Bool) throws(VariableShapeError) -> URITemplate.Value? {
        if let failure { throw VariableShapeError(reason: failure) }
        switch shape {
        case .undefined: return nil
        case .scalar(let text): return .string(text)
        case .list(let items): return .list(items)
        case .pairs(let pairs):
            return .associative(sortingKeys ? pairs.sorted { $0.key < $1.key } : pairs)
        }
    }

    /// The text of an element or pair value: a scalar, or `nil` when it is `nil`.
    static func element(_ value: some Encodable) throws -> String? {
        if let text = try TemplateVariableEncoder.scalar(value) { return text }
        let encoder = VariableEncoder(depth: 1)
        try value.encode(to: encoder)
        if let failure = encoder.failure { throw VariableShapeError(reason: failure) }
        switch encoder.shape {
        case .undefined: return nil
        case .scalar(let text): return text
        case .list, .pairs: throw VariableShapeError(reason: Self.tooDeep)
        }
    }

    static let tooDeep =
        "a list or associative array inside a list or associative array has no URI template form (RFC 6570 §2.4)"

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if depth > 0 { failure = Self.tooDeep } else { shape = .pairs([]) }
        return KeyedEncodingContainer(VariablePairsContainer<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if depth > 0 { failure = Self.tooDeep } else { shape = .list([]) }
        return VariableListContainer(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func encodeNil() { shape = .undefined }

    func encode<T: Encodable>(_ value: T) throws {
        if let text = try TemplateVariableEncoder.scalar(value) {
            shape = .scalar(text)
        } else {
            // A wrapper that encodes another value through a single-value container.
            try value.encode(to: self)
        }
    }

    func append(_ item: String) {
        if case .list(var items) = shape {
            shape = .undefined
            items.append(item)
            shape = .list(items)
        }
    }

    func append(key: String, value: String) {
        if case .pairs(var pairs) = shape {
            shape = .undefined
            pairs.append((key, value))
            shape = .pairs(pairs)
        }
    }
}

private struct VariablePairsContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: VariableEncoder
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) {}

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        if let text = try VariableEncoder.element(value) { encoder.append(key: key.stringValue, value: text) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        encoder.failure = VariableEncoder.tooDeep
        return KeyedEncodingContainer(DiscardingContainer<NestedKey>(codingPath: [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder.failure = VariableEncoder.tooDeep
        return DiscardingUnkeyedContainer(codingPath: [key])
    }

    mutating func superEncoder() -> any Encoder {
        encoder.failure = VariableEncoder.tooDeep
        return DiscardingEncoder(codingPath: [])
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        encoder.failure = VariableEncoder.tooDeep
        return DiscardingEncoder(codingPath: [key])
    }
}

private struct VariableListContainer: UnkeyedEncodingContainer {
    let encoder: VariableEncoder
    var codingPath: [any CodingKey] { [] }
    private(set) var count = 0

    init(encoder: VariableEncoder) { self.encoder = encoder }

    mutating func encodeNil() throws {
        throw VariableShapeError(reason: "a list holds nil at index \(count)")
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        guard let text = try VariableEncoder.element(value) else {
            throw VariableShapeError(reason: "a list holds nil at index \(count)")
        }
        encoder.append(text)
        count += 1
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        encoder.failure = VariableEncoder.tooDeep
        return KeyedEncodingContainer(DiscardingContainer<NestedKey>(codingPath: []))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        encoder.failure = VariableEncoder.tooDeep
        return DiscardingUnkeyedContainer(codingPath: [])
    }

    mutating func superEncoder() -> any Encoder {
        encoder.failure = VariableEncoder.tooDeep
        return DiscardingEncoder(codingPath: [])
    }
}
