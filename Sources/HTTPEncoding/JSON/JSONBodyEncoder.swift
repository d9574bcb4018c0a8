import Foundation
import HTTPCore

/// Encodes request bodies as JSON (`application/json`, RFC 8259) with `JSONEncoder`,
/// or untyped `JSONSerialization` values.
///
/// Keys are sorted by default so the same value always gives the same bytes. The
/// encoder takes a function that makes a configured `JSONEncoder` rather than an
/// instance, so no mutable reference is shared behind this value type.
///
/// ```swift
/// struct NewPost: Encodable { var title: String; var publishedAt: Date }
///
/// let encoder = JSONBodyEncoder {
///     let json = JSONEncoder()
///     json.outputFormatting = [.sortedKeys]
///     json.keyEncodingStrategy = .convertToSnakeCase
///     json.dateEncodingStrategy = .iso8601
///     return json
/// }
/// let encoded = try encoder.encodeBody(NewPost(title: "Hi", publishedAt: Date()))
/// // {"published_at":"…","title":"Hi"}, application/json
/// ```
public struct JSONBodyEncoder: BodyEncoder {
    private let makeEncoder: @Sendable () -> JSONEncoder

    /// An encoder whose `JSONEncoder` sorts keys and leaves every other setting at its default.
    public init() {
        self.init {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return encoder
        }
    }

    /// An encoder using `JSONEncoder`s made by `makeEncoder`.
    /// - Parameter makeEncoder: Makes a configured `JSONEncoder`; called once per body.
    public init(_ makeEncoder: @escaping @Sendable () -> JSONEncoder) {
        self.makeEncoder = makeEncoder
    }

    /// Encodes `value` as a JSON body.
    /// - Parameter value: The value to encode.
    /// - Returns: The body and `application/json`.
    /// - Throws: ``HTTPEncodingError`` with code ``HTTPEncodingError/Code/jsonEncodingFailed``
    ///   naming the key path `JSONEncoder` reported, such as that of a non-finite number.
    public func encodeBody<Value: Encodable>(_ value: Value) throws(HTTPEncodingError) -> EncodedBody {
        do {
            return EncodedBody(body: HTTPBody(try makeEncoder().encode(value)), contentType: .json)
        } catch let error as EncodingError {
            var keyPath: [String] = []
            var reason = "JSONEncoder could not encode the value"
            if case .invalidValue(_, let context) = error {
                keyPath = context.codingPath.formKeyPath
                reason = context.debugDescription
            }
            throw HTTPEncodingError(
                .jsonEncodingFailed, keyPath: keyPath, value: "\(Value.self)", reason: reason, underlying: error)
        } catch let error as HTTPEncodingError {
            throw error
        } catch {
            throw HTTPEncodingError(
                .jsonEncodingFailed, value: "\(Value.self)", reason: "the value's encode(to:) threw", underlying: error)
        }
    }

    /// Encodes an untyped value (dictionaries, arrays, strings, numbers, bools and
    /// `NSNull`, as `JSONSerialization` takes them) as a JSON body with sorted keys.
    /// - Parameter jsonObject: The top-level dictionary or array.
    /// - Returns: The body and `application/json`.
    /// - Throws: ``HTTPEncodingError`` with code ``HTTPEncodingError/Code/jsonEncodingFailed``
    ///   when `JSONSerialization` cannot write the value (checked first, so it never traps).
    public func encodeBody(jsonObject: Any) throws(HTTPEncodingError) -> EncodedBody {
        guard JSONSerialization.isValidJSONObject(jsonObject) else {
            throw HTTPEncodingError(
                .jsonEncodingFailed, value: "\(type(of: jsonObject))",
                reason: "not a JSONSerialization value: the top level must be an array or dictionary of strings, "
                    + "finite numbers, bools, NSNull, arrays and string-keyed dictionaries")
        }
        do {
            let data = try JSONSerialization.data(withJSONObject: jsonObject, options: [.sortedKeys])
            return EncodedBody(body: HTTPBody(data), contentType: .json)
        } catch {
            throw HTTPEncodingError(
                .jsonEncodingFailed, value: "\(type(of: jsonObject))", reason: "JSONSerialization failed",
                underlying: error)
        }
    }
}
