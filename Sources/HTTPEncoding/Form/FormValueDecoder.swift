import Foundation

/// The settings of one decoding run, shared by every nested decoder.
final class FormDecodingContext {
    let keys: KeyEncodingStrategy
    let dates: DateDecodingStrategy
    let data: DataDecodingStrategy
    let nils: FormStyle.Nils

    init(_ decoder: FormDecoder) {
        keys = decoder.keyEncodingStrategy
        dates = decoder.dateDecodingStrategy
        data = decoder.dataDecodingStrategy
        nils = decoder.style.nils
    }

    /// Finds `key` in `object`: first as the key strategy writes it, then as given.
    func lookup(_ key: String, in object: FormParsedObject) -> FormParsedNode? {
        if keys.isIdentity { return object.value(for: key) }
        return object.value(for: keys.encode(key)) ?? object.value(for: key)
    }

    /// Whether `node` stands for `nil`: absent, a key without `=`, or (with
    /// ``FormStyle/Nils-swift.struct/emptyValue``) an empty value.
    func isNil(_ node: FormParsedNode?) -> Bool {
        switch node {
        case .none: return true
        case .scalar(.none): return true
        case .scalar(.some(let text)): return text.isEmpty && nils == .emptyValue
        default: return false
        }
    }
}

/// The `Decoder` behind ``FormDecoder``: reads one ``FormParsedNode`` (or its absence).
///
/// A missing key decodes as an empty array or dictionary (a form cannot write an empty
/// one), and as `nil` for an optional; a scalar decodes as a one-element array (a form
/// with arrays without brackets writes `key=a` for `["a"]`).
final class FormValueDecoder: Decoder, SingleValueDecodingContainer {
    let context: FormDecodingContext
    let node: FormParsedNode?
    private let parent: FormValueDecoder?
    private let key: (any CodingKey)?

    init(context: FormDecodingContext, node: FormParsedNode?, parent: FormValueDecoder?, key: (any CodingKey)?) {
        self.context = context
        self.node = node
        self.parent = parent
        self.key = key
    }

    var codingPath: [any CodingKey] {
        var path: [any CodingKey] = []
        var current: FormValueDecoder? = self
        while let decoder = current {
            if let key = decoder.key { path.append(key) }
            current = decoder.parent
        }
        return path.reversed()
    }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func child(_ node: FormParsedNode?, key: any CodingKey) -> FormValueDecoder {
        FormValueDecoder(context: context, node: node, parent: self, key: key)
    }

    func error(_ code: HTTPEncodingError.Code, _ reason: String, key: (any CodingKey)? = nil) -> HTTPEncodingError {
        var path = codingPath.formKeyPath
        if let key { path.append(key.stringValue) }
        return HTTPEncodingError(code, keyPath: path, value: Self.text(of: node), reason: reason)
    }

    static func text(of node: FormParsedNode?) -> String {
        switch node {
        case .none: return ""
        case .scalar(let text): return text ?? ""
        case .list(let list): return "list of \(list.values.count)"
        case .object(let object): return "object with keys \(object.keys.prefix(5).joined(separator: ", "))"
        }
    }

    // MARK: Decoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        switch node {
        case .object(let object):
            return KeyedDecodingContainer(FormKeyedDecodingContainer<Key>(decoder: self, object: object))
        case .none:
            return KeyedDecodingContainer(FormKeyedDecodingContainer<Key>(decoder: self, object: FormParsedObject()))
        default:
            throw error(.typeMismatch, "expected an object (key[name]=…), found a \(kindName)")
        }
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        switch node {
        case .none:
            return FormUnkeyedDecodingContainer(decoder: self, elements: [])
        case .list(let list):
            return FormUnkeyedDecodingContainer(decoder: self, elements: list.values)
        case .scalar:
            return FormUnkeyedDecodingContainer(decoder: self, elements: node.map { [$0] } ?? [])
        case .object(let object):
            var indexed: [(Int, FormParsedNode)] = []
            indexed.reserveCapacity(object.keys.count)
            for (key, value) in zip(object.keys, object.values) {
                guard let position = Int(key), position >= 0 else {
                    throw error(.typeMismatch, "expected an array, found an object with key \"\(key)\"")
                }
                indexed.append((position, value))
            }
            indexed.sort { $0.0 < $1.0 }
            return FormUnkeyedDecodingContainer(decoder: self, elements: indexed.map(\.1))
        }
    }

    func singleValueContainer() -> any SingleValueDecodingContainer { self }

    private var kindName: String {
        switch node {
        case .none: return "missing value"
        case .scalar: return "single value"
        case .list: return "list"
        case .object: return "object"
        }
    }

    // MARK: SingleValueDecodingContainer

    func decodeNil() -> Bool { context.isNil(node) }

    func text() throws -> String {
        switch node {
        case .scalar(let text): return text ?? ""
        case .none: throw error(.valueNotFound, "no value")
        default: throw error(.typeMismatch, "expected a single value, found a \(kindName)")
        }
    }

    func decode(_ type: Bool.Type) throws -> Bool {
        switch try text().lowercased() {
        case "1", "true": return true
        case "0", "false": return false
        default: throw error(.typeMismatch, "expected a bool: 1, 0, true or false")
        }
    }

    func decode(_ type: String.Type) throws -> String { try text() }

    func decode(_ type: Double.Type) throws -> Double { try parse(type) }
    func decode(_ type: Float.Type) throws -> Float { try parse(type) }
    func decode(_ type: Int.Type) throws -> Int { try parse(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try parse(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try parse(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try parse(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try parse(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try parse(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try parse(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try parse(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try parse(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try parse(type) }

    private func parse<Number: LosslessStringConvertible>(_ type: Number.Type) throws -> Number {
        guard let number = Number(try text()) else { throw error(.typeMismatch, "expected \(Number.self)") }
        return number
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == Date.self {
            do {
                return try cast(context.dates.decode(text()))
            } catch let failure as HTTPEncodingError {
                throw error(failure.code, failure.reason)
            }
        }
        if T.self == Data.self {
            do {
                return try cast(context.data.decode(text()))
            } catch let failure as HTTPEncodingError {
                throw error(failure.code, failure.reason)
            }
        }
        if T.self == URL.self {
            guard let url = URL(string: try text()) else { throw error(.typeMismatch, "expected a URL") }
            return try cast(url)
        }
        if T.self == Decimal.self {
            guard let decimal = Decimal(string: try text(), locale: Locale(identifier: "en_US_POSIX")) else {
                throw error(.typeMismatch, "expected a decimal number")
            }
            return try cast(decimal)
        }
        return try T(from: self)
    }

    private func cast<T>(_ value: Any) throws -> T {
        guard let result = value as? T else { throw error(.typeMismatch, "expected \(T.self)") }
        return result
    }
}
