import Foundation

/// Turns a request value into a body and its content type: JSON, forms and multipart
/// conform, and an endpoint names one with static-member sugar (`body: .json`).
///
/// ```swift
/// func send(_ value: some Encodable, as encoder: some BodyEncoder) throws -> EncodedBody {
///     try encoder.encodeBody(value)
/// }
/// let json = try send(["name": "heron"], as: .json)  // application/json
/// let form = try send(["name": "heron"], as: .form)  // application/x-www-form-urlencoded
/// ```
public protocol BodyEncoder: Sendable {
    /// Encodes `value` as a request body.
    /// - Parameter value: The request value.
    /// - Returns: The body and its media type.
    /// - Throws: The encoder's error, such as ``HTTPEncodingError``, when `value` cannot be encoded.
    func encodeBody<Value: Encodable>(_ value: Value) throws -> EncodedBody
}

extension BodyEncoder where Self == JSONBodyEncoder {
    /// JSON with sorted keys, as `application/json`.
    public static var json: JSONBodyEncoder { JSONBodyEncoder() }

    /// JSON made by encoders from `makeEncoder`, as `application/json`.
    /// - Parameter makeEncoder: Makes a configured `JSONEncoder` for each body.
    /// - Returns: The body encoder.
    public static func json(_ makeEncoder: @escaping @Sendable () -> JSONEncoder) -> JSONBodyEncoder {
        JSONBodyEncoder(makeEncoder)
    }
}

extension BodyEncoder where Self == FormEncoder {
    /// A form body in the default ``FormStyle``, as `application/x-www-form-urlencoded`.
    public static var form: FormEncoder { FormEncoder() }

    /// A form body made by `encoder`.
    /// - Parameter encoder: The configured form encoder.
    /// - Returns: The body encoder.
    public static func form(_ encoder: FormEncoder) -> FormEncoder { encoder }
}

extension FormEncoder: BodyEncoder {}
