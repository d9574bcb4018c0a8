import Foundation
import HTTPCore

/// Turns a response body into a value: the endpoint layer's counterpart of ``BodyEncoder``.
///
/// ```swift
/// struct Post: Decodable { var id: Int }
/// let response = HTTPResponse(status: .ok, headerFields: try HTTPFields(["Content-Type": "application/json"]))
/// let post = try JSONResponseDecoder().decode(Post.self, from: Data(#"{"id":7}"#.utf8), response: response)
/// ```
public protocol ResponseDecoder: Sendable {
    /// Decodes a response body.
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - data: The response body.
    ///   - response: The response head, for its `Content-Type` and status.
    /// - Returns: The decoded value.
    /// - Throws: The decoder's error, such as ``HTTPEncodingError``, when the body is not a `type`.
    func decode<Value: Decodable>(_ type: Value.Type, from data: Data, response: HTTPResponse) throws -> Value
}

extension ResponseDecoder where Self == JSONResponseDecoder {
    /// JSON decoded with a default `JSONDecoder`.
    public static var json: JSONResponseDecoder { JSONResponseDecoder() }

    /// JSON decoded by decoders from `makeDecoder`.
    /// - Parameter makeDecoder: Makes a configured `JSONDecoder` for each response.
    /// - Returns: The response decoder.
    public static func json(_ makeDecoder: @escaping @Sendable () -> JSONDecoder) -> JSONResponseDecoder {
        JSONResponseDecoder(makeDecoder)
    }
}
