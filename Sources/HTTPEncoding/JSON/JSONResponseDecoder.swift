import Foundation
import HTTPCore

/// Decodes JSON response bodies with `JSONDecoder`.
///
/// A response that declares a `Content-Type` other than JSON (`application/json` or any
/// `+json` type, RFC 6839 §3.1), such as an HTML error page from a proxy, is refused
/// with an error showing the type and the start of the body, instead of a confusing
/// JSON syntax error. A response without a `Content-Type` is decoded.
///
/// ```swift
/// struct Post: Decodable { var id: Int; var createdAt: Date }
/// let decoder = JSONResponseDecoder {
///     let json = JSONDecoder()
///     json.keyDecodingStrategy = .convertFromSnakeCase
///     json.dateDecodingStrategy = .iso8601
///     return json
/// }
/// let body = Data(#"{"id":7,"created_at":"2024-01-02T03:04:05Z"}"#.utf8)
/// let post = try decoder.decode(Post.self, from: body, response: HTTPResponse(status: .ok))
/// ```
public struct JSONResponseDecoder: ResponseDecoder {
    /// Makes the configured `JSONDecoder`.
    package let makeDecoder: @Sendable () -> JSONDecoder

    /// A decoder using a default `JSONDecoder`.
    public init() {
        self.init { JSONDecoder() }
    }

    /// A decoder using `JSONDecoder`s made by `makeDecoder`.
    /// - Parameter makeDecoder: Makes a configured `JSONDecoder`; called once per response.
    public init(_ makeDecoder: @escaping @Sendable () -> JSONDecoder) {
        self.makeDecoder = makeDecoder
    }

    /// Decodes a JSON response body.
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - data: The response body.
    ///   - response: The response head; its `Content-Type`, when present, must be JSON.
    /// - Returns: The decoded value.
    /// - Throws: ``HTTPEncodingError`` with code ``HTTPEncodingError/Code/unexpectedContentType``
    ///   for a non-JSON `Content-Type`, or ``HTTPEncodingError/Code/jsonDecodingFailed`` with the
    ///   key path `JSONDecoder` reported and the start of the body (secret-named members
    ///   hidden, as `URLRedaction.displayBody(_:limit:)` hides them).
    public func decode<Value: Decodable>(
        _ type: Value.Type, from data: Data, response: HTTPResponse
    )
        throws(HTTPEncodingError) -> Value
    {
        try decode(Value.self, from: data, response: response, atKeyPath: [])
    }

    /// Decodes the value at a key path inside a JSON response body, such as the `items` of
    /// `{"data": {"items": [...]}}`, without declaring a type for the envelope.
    ///
    /// ```swift
    /// let body = Data(#"{"data":{"items":[1,2]}}"#.utf8)
    /// let items = try JSONResponseDecoder().decode(
    ///     [Int].self, from: body, response: HTTPResponse(status: .ok), atKeyPath: "data.items")  // [1, 2]
    /// ```
    /// - Parameters:
    ///   - type: The type of the value at the key path.
    ///   - data: The response body.
    ///   - response: The response head; its `Content-Type`, when present, must be JSON.
    ///   - keyPath: Object keys separated by dots, as the decoder sees them (after its key
    ///     decoding strategy); an empty path decodes the whole body.
    /// - Returns: The decoded value.
    /// - Throws: ``HTTPEncodingError`` as ``decode(_:from:response:)`` does; a missing key of
    ///   the path is ``HTTPEncodingError/Code/jsonDecodingFailed`` naming the path up to it.
    public func decode<Value: Decodable>(
        _ type: Value.Type, from data: Data, response: HTTPResponse, atKeyPath keyPath: String
    )
        throws(HTTPEncodingError) -> Value
    {
        let keys = keyPath.split(separator: ".", omittingEmptySubsequences: true).map(String.init)
        return try decode(Value.self, from: data, response: response, atKeyPath: keys)
    }

    private func decode<Value: Decodable>(
        _ type: Value.Type, from data: Data, response: HTTPResponse, atKeyPath keys: [String]
    )
        throws(HTTPEncodingError) -> Value
    {
        if let contentType = response.contentType, !Self.isJSON(contentType) {
            throw HTTPEncodingError(
                .unexpectedContentType, value: contentType.description,
                reason: "expected application/json for \(Value.self) (status \(response.status)); body starts "
                    + Self.prefix(of: data))
        } else if response.headerFields[.contentType] != nil && response.contentType == nil {
            throw HTTPEncodingError(
                .unexpectedContentType, value: response.headerFields[.contentType] ?? "",
                reason: "the Content-Type does not parse as a media type")
        }
        do {
            let decoder = makeDecoder()
            if keys.isEmpty { return try decoder.decode(Value.self, from: data) }
            decoder.userInfo[EnvelopedValue<Value>.keyPathKey] = keys
            return try decoder.decode(EnvelopedValue<Value>.self, from: data).value
        } catch let error as DecodingError {
            throw HTTPEncodingError(
                .jsonDecodingFailed, keyPath: Self.codingPath(of: error), value: Self.prefix(of: data),
                reason: Self.reason(of: error), underlying: error)
        } catch {
            throw HTTPEncodingError(
                .jsonDecodingFailed, value: Self.prefix(of: data), reason: "\(Value.self).init(from:) threw",
                underlying: error)
        }
    }

    /// Decodes one element of a stream (an event's data, a line, a record) with `decoder`.
    /// - Parameter element: What to call the element in an error, such as `line 3`.
    package static func decodeElement<Value: Decodable>(
        _ type: Value.Type, from data: Data, with decoder: JSONDecoder, naming element: @autoclosure () -> String
    ) throws(HTTPEncodingError) -> Value {
        do {
            return try decoder.decode(Value.self, from: data)
        } catch let error as DecodingError {
            throw HTTPEncodingError(
                .jsonDecodingFailed, keyPath: codingPath(of: error), value: prefix(of: data),
                reason: "\(element()) is not a \(Value.self): \(reason(of: error))", underlying: error)
        } catch {
            throw HTTPEncodingError(
                .jsonDecodingFailed, value: prefix(of: data), reason: "\(element()): \(Value.self).init(from:) threw",
                underlying: error)
        }
    }

    static func isJSON(_ type: MediaType) -> Bool {
        (type.type == "application" && type.subtype == "json") || type.subtype.hasSuffix("+json")
    }

    /// The start of a body for an error, as `ClientError` and `EndpointError` show a body:
    /// the values of secret-named members (`"access_token": "…"`) and pairs hidden
    /// (`URLRedaction.displayBody(_:limit:)`), so a token the value fails to decode
    /// from is not repeated in the error's description.
    private static func prefix(of data: Data) -> String {
        URLRedaction.displayBody(data)
    }

    private static func codingPath(of error: DecodingError) -> [String] {
        switch error {
        case .keyNotFound(let key, let context): return context.codingPath.formKeyPath + [key.stringValue]
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return context.codingPath.formKeyPath
        @unknown default: return []
        }
    }

    private static func reason(of error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, _): return "no value for key \"\(key.stringValue)\""
        case .typeMismatch(let type, let context): return "expected \(type): \(context.debugDescription)"
        case .valueNotFound(let type, let context): return "expected \(type), found null: \(context.debugDescription)"
        case .dataCorrupted(let context): return context.debugDescription
        @unknown default: return "\(error)"
        }
    }
}

/// A value found by walking the object keys in the decoder's `userInfo` down from the top.
private struct EnvelopedValue<Value: Decodable>: Decodable {
    static var keyPathKey: CodingUserInfoKey { CodingUserInfoKey(rawValue: "heron.envelopeKeyPath")! }

    let value: Value

    init(from decoder: any Decoder) throws {
        let keys = decoder.userInfo[Self.keyPathKey] as? [String] ?? []
        guard let last = keys.last else {
            value = try Value(from: decoder)
            return
        }
        var container = try decoder.container(keyedBy: EnvelopeKey.self)
        for key in keys.dropLast() {
            container = try container.nestedContainer(keyedBy: EnvelopeKey.self, forKey: EnvelopeKey(stringValue: key))
        }
        value = try container.decode(Value.self, forKey: EnvelopeKey(stringValue: last))
    }
}

/// A coding key with any name.
private struct EnvelopeKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }

    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { stringValue = String(intValue) }
}
