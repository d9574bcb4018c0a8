import Foundation

/// Turns an untyped parameter dictionary (`[String: Any]`) into a ``FormNode`` tree, so
/// that it goes through the same writer, style and strategies as an `Encodable` value.
struct FormParameterConverter {
    let context: FormEncodingContext

    /// The object for `dictionary`, whose members sit `depth` keys deep (1 at the top level).
    func node(forDictionary dictionary: [String: Any], depth: Int) throws(HTTPEncodingError) -> FormNode {
        if depth > FormStyle.maximumDepth && !dictionary.isEmpty { throw FormEncodingContext.tooDeep(at: []) }
        let object = FormObject()
        for (key, value) in dictionary {
            // The path is this key alone: enclosing levels prefix theirs as the error passes.
            let name = context.key(key, topLevel: depth == 1, at: [key])
            if let refused = context.refusal { throw refused }
            do {
                object.set(name, try node(for: value, depth: depth), in: context)
            } catch {
                throw error.prefixed(by: [key])
            }
        }
        return .object(object)
    }

    private func node(forArray array: [Any], depth: Int) throws(HTTPEncodingError) -> FormNode {
        if depth > FormStyle.maximumDepth && !array.isEmpty { throw FormEncodingContext.tooDeep(at: []) }
        let result = FormArray()
        result.values.reserveCapacity(array.count)
        for (position, element) in array.enumerated() {
            do {
                result.values.append(try node(for: element, depth: depth))
            } catch {
                throw error.prefixed(by: [String(position)])
            }
        }
        return .array(result)
    }

    // swift-format-ignore: CyclomaticComplexity
    /// The node for `value`, found `depth` keys deep.
    func node(for value: Any, depth: Int) throws(HTTPEncodingError) -> FormNode {
        // Exact types first, and containers before any other cast: casting a dictionary or
        // an array to a scalar or class type bridges it, with all it holds, to Foundation.
        if let scalar = try exactScalar(value) { return scalar }
        if type(of: value) == [String: Any].self, let dictionary = value as? [String: Any] {
            return try node(forDictionary: dictionary, depth: depth + 1)
        }
        if type(of: value) == [Any].self, let array = value as? [Any] {
            return try node(forArray: array, depth: depth + 1)
        }
        switch value {
        case let optional as any OptionalParameter:
            guard let wrapped = optional.wrappedParameter else { return .null }
            return try node(for: wrapped, depth: depth)
        case let dictionary as [String: Any]:
            return try node(forDictionary: dictionary, depth: depth + 1)
        case let array as [Any]:
            return try node(forArray: array, depth: depth + 1)
        case let string as String:
            return context.leaf(string)
        case is NSNull:
            return .null
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
            return try encode(encodable, depth: depth)
        default:
            throw HTTPEncodingError(
                .unsupportedValue, value: "\(type(of: value))",
                reason: "an untyped parameter must be a string, number, bool, date, data, URL, UUID, NSNull, "
                    + "array, [String: Any] dictionary or Encodable value")
        }
    }

    /// Native Swift numbers and bools, matched by exact type so that no bridging through
    /// `NSNumber` turns a `Bool` into an `Int` or back.
    ///
    /// The type is compared before casting: a cast is not free (it may bridge the value).
    private func exactScalar(_ value: Any) throws(HTTPEncodingError) -> FormNode? {
        let type = type(of: value)
        if type == String.self, let string = value as? String { return context.leaf(string) }
        if type == Bool.self, let bool = value as? Bool { return context.leaf(bool) }
        if type == Int.self, let int = value as? Int { return context.leaf(Int64(int)) }
        if type == Int8.self, let int = value as? Int8 { return context.leaf(Int64(int)) }
        if type == Int16.self, let int = value as? Int16 { return context.leaf(Int64(int)) }
        if type == Int32.self, let int = value as? Int32 { return context.leaf(Int64(int)) }
        if type == Int64.self, let int = value as? Int64 { return context.leaf(int) }
        if type == UInt.self, let uint = value as? UInt { return context.leaf(UInt64(uint)) }
        if type == UInt8.self, let uint = value as? UInt8 { return context.leaf(UInt64(uint)) }
        if type == UInt16.self, let uint = value as? UInt16 { return context.leaf(UInt64(uint)) }
        if type == UInt32.self, let uint = value as? UInt32 { return context.leaf(UInt64(uint)) }
        if type == UInt64.self, let uint = value as? UInt64 { return context.leaf(uint) }
        if type == Double.self, let double = value as? Double { return try finite(double) }
        if type == Float.self, let float = value as? Float { return try finite(float) }
        return nil
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

    private func encode(_ value: some Encodable, depth: Int) throws(HTTPEncodingError) -> FormNode {
        let encoder = FormValueEncoder(context: context, parent: nil, key: nil, depth: depth)
        do {
            let node = try encoder.box(value, key: nil)
            if let refused = context.refusal { throw refused }
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
