import Foundation

/// Turns an untyped parameter dictionary (`[String: Any]`) into a ``FormNode`` tree, so
/// that it goes through the same writer, style and strategies as an `Encodable` value.
struct FormParameterConverter {
    let context: FormEncodingContext

    func node(forDictionary dictionary: [String: Any], topLevel: Bool = false) throws(HTTPEncodingError) -> FormNode {
        let object = FormObject()
        for (key, value) in dictionary {
            // The path is this key alone: enclosing levels prefix theirs as the error passes.
            let name = context.key(key, topLevel: topLevel, at: [key])
            if let refused = context.ambiguousKey { throw refused }
            do {
                object.set(name, try node(for: value), in: context)
            } catch {
                throw error.prefixed(by: [key])
            }
        }
        return .object(object)
    }

    private func node(forArray array: [Any]) throws(HTTPEncodingError) -> FormNode {
        let result = FormArray()
        result.values.reserveCapacity(array.count)
        for (position, element) in array.enumerated() {
            do {
                result.values.append(try node(for: element))
            } catch {
                throw error.prefixed(by: [String(position)])
            }
        }
        return .array(result)
    }

    // swift-format-ignore: CyclomaticComplexity
    func node(for value: Any) throws(HTTPEncodingError) -> FormNode {
        if let string = value as? String { return context.leaf(string) }
        if let scalar = try exactScalar(value) { return scalar }
        switch value {
        case let optional as any OptionalParameter:
            guard let wrapped = optional.wrappedParameter else { return .null }
            return try node(for: wrapped)
        case is NSNull:
            return .null
        case let dictionary as [String: Any]:
            return try node(forDictionary: dictionary)
        case let array as [Any]:
            return try node(forArray: array)
        case let date as Date:
            return context.leaf(try context.dates.encode(date))
        case let data as Data:
            return context.leaf(try context.data.encode(data))
        case let url as URL:
            return context.leaf(url.absoluteString)
        case let uuid as UUID:
            return context.leaf(uuid.uuidString)
        case let decimal as Decimal:
            return context.leaf(decimal.description)
        case let substring as Substring:
            return context.leaf(String(substring))
        case let character as Character:
            return context.leaf(String(character))
        case let number as NSNumber:
            return try node(for: number)
        case let encodable as any Encodable:
            return try encode(encodable)
        default:
            throw HTTPEncodingError(
                .unsupportedValue, value: "\(type(of: value))",
                reason: "an untyped parameter must be a string, number, bool, date, data, URL, UUID, NSNull, "
                    + "array, [String: Any] dictionary or Encodable value")
        }
    }

    /// Native Swift numbers and bools, matched by exact type so that no bridging through
    /// `NSNumber` turns a `Bool` into an `Int` or back.
    private func exactScalar(_ value: Any) throws(HTTPEncodingError) -> FormNode? {
        switch value {
        case let bool as Bool where type(of: value) == Bool.self: return context.leaf(bool)
        case let int as Int where type(of: value) == Int.self: return context.leaf(Int64(int))
        case let int as Int8 where type(of: value) == Int8.self: return context.leaf(Int64(int))
        case let int as Int16 where type(of: value) == Int16.self: return context.leaf(Int64(int))
        case let int as Int32 where type(of: value) == Int32.self: return context.leaf(Int64(int))
        case let int as Int64 where type(of: value) == Int64.self: return context.leaf(int)
        case let uint as UInt where type(of: value) == UInt.self: return context.leaf(UInt64(uint))
        case let uint as UInt8 where type(of: value) == UInt8.self: return context.leaf(UInt64(uint))
        case let uint as UInt16 where type(of: value) == UInt16.self: return context.leaf(UInt64(uint))
        case let uint as UInt32 where type(of: value) == UInt32.self: return context.leaf(UInt64(uint))
        case let uint as UInt64 where type(of: value) == UInt64.self: return context.leaf(uint)
        case let double as Double where type(of: value) == Double.self: return try finite(double)
        case let float as Float where type(of: value) == Float.self: return try finite(float)
        default: return nil
        }
    }

    private func finite<F: BinaryFloatingPoint & LosslessStringConvertible>(
        _ value: F
    ) throws(HTTPEncodingError)
        -> FormNode
    {
        guard value.isFinite else {
            throw HTTPEncodingError(
                .unsupportedValue, value: value.description, reason: "a form cannot carry a non-finite number")
        }
        return context.leaf(value.description)
    }

    /// An `NSNumber` (as `JSONSerialization` makes): a bool when it holds one, else its integer or decimal value.
    private func node(for number: NSNumber) throws(HTTPEncodingError) -> FormNode {
        let kind = String(cString: number.objCType)
        if kind == "c" || kind == "B" { return context.leaf(number.boolValue) }
        if kind == "d" || kind == "f" { return try finite(number.doubleValue) }
        if kind == "Q" || kind == "L" || kind == "I" || kind == "S" { return context.leaf(number.uint64Value) }
        return context.leaf(number.int64Value)
    }

    private func encode(_ value: some Encodable) throws(HTTPEncodingError) -> FormNode {
        let encoder = FormValueEncoder(context: context, parent: nil, key: nil, belowParameters: true)
        do {
            let node = try encoder.box(value, key: nil)
            if let refused = context.ambiguousKey { throw refused }
            return node
        } catch let error as HTTPEncodingError {
            throw error
        } catch {
            throw HTTPEncodingError(
                .valueCodingFailed, value: "\(type(of: value))", reason: "encoding threw", underlying: error)
        }
    }
}

/// Lets the converter look inside an `Optional` held as `Any`.
protocol OptionalParameter {
    var wrappedParameter: Any? { get }
}

extension Optional: OptionalParameter {
    var wrappedParameter: Any? {
        switch self {
        case .some(let wrapped): return wrapped
        case .none: return nil
        }
    }
}
