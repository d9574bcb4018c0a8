import Foundation
import HTTPClient
import HTTPCore
import HTTPEncoding

extension ClientResponse<Data> {
    /// This response with its body decoded as JSON into `type`; the head, the request as
    /// sent, the metrics and the trailer section stay, as with `map(_:)`.
    ///
    /// The `Content-Type`, when present, must be JSON: an HTML error page fails with
    /// `HTTPEncodingError.Code.unexpectedContentType` instead of a confusing decoding error.
    /// An `Optional` is `nil`, and an ``Empty`` empty, for a `204`, `205` or an empty body.
    /// The status is not checked: this reads an error response's body as well.
    ///
    /// By default the body is read as the client that sent the request reads bodies: with
    /// its ``EndpointDefaults/jsonDecoder`` and inside its ``EndpointDefaults/envelopeKeyPath``.
    ///
    /// ```swift
    /// let response = try await client.send(.get("users/42"))
    /// let user = try response.decoded(as: User.self)
    /// print(user.status, user.body.name)
    /// ```
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - keyPath: Where the value sits inside a JSON envelope (`data.items`); `""` for the
    ///     whole body; `nil` (the default) for the client's envelope key path, if it has one
    ///     and the status is 2xx (an error body is read whole).
    ///   - decoder: The JSON decoder; `nil` (the default) for the client's.
    /// - Returns: The response, its body the decoded value.
    /// - Throws: `HTTPEncodingError` for a `Content-Type` that is not JSON, or naming the
    ///   coding path that failed.
    public func decoded<Value: Decodable & Sendable>(
        as type: Value.Type, at keyPath: String? = nil, decoder: JSONResponseDecoder? = nil
    ) throws(HTTPEncodingError) -> ClientResponse<Value> {
        let value = try body(as: type, at: keyPath, decoder: decoder)
        return map { _ in value }
    }

    /// The body decoded as JSON into `type`: the same reading as
    /// ``decoded(as:at:decoder:)``, returning the value alone.
    ///
    /// `EndpointError` and `ClientError` have a `body(as:)` of the same name for the body of
    /// a failed call.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - keyPath: Where the value sits inside a JSON envelope; `""` for the whole body;
    ///     `nil` (the default) for the client's envelope key path, if it has one and the
    ///     status is 2xx (an error body is read whole).
    ///   - decoder: The JSON decoder; `nil` (the default) for the client's.
    /// - Returns: The value.
    /// - Throws: `HTTPEncodingError`, as ``decoded(as:at:decoder:)``.
    public func body<Value: Decodable>(
        as type: Value.Type, at keyPath: String? = nil, decoder: JSONResponseDecoder? = nil
    ) throws(HTTPEncodingError) -> Value {
        let defaults = callValues?.endpointDefaults
        // The envelope wraps what a successful response carries; an error body is read whole.
        return try Self.decode(
            type, from: body, head: head,
            at: keyPath ?? (head.status.isSuccess ? defaults?.envelopeKeyPath : nil) ?? "",
            decoder: decoder ?? defaults?.jsonDecoder ?? JSONResponseDecoder())
    }

    /// The body decoded as JSON into `type`, with `decoder` (a default `JSONDecoder` unless given).
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - keyPath: Where the value sits inside a JSON envelope, if it does.
    ///   - decoder: The JSON decoder.
    /// - Returns: The value.
    /// - Throws: `HTTPEncodingError` naming the coding path that failed.
    @available(*, deprecated, renamed: "body(as:at:decoder:)")
    public func decode<Value: Decodable>(
        _ type: Value.Type, at keyPath: String = "", decoder: JSONResponseDecoder = JSONResponseDecoder()
    ) throws(HTTPEncodingError) -> Value {
        try body(as: type, at: keyPath, decoder: decoder)
    }

    /// The body as untyped JSON (dictionaries, arrays, strings, numbers, bools, `NSNull`),
    /// for scripts and exploration.
    /// - Returns: The JSON value.
    /// - Throws: `JSONSerialization`'s error when the body is not JSON.
    public func json() throws -> Any {
        try JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])
    }

    private static func decode<Value: Decodable>(
        _ type: Value.Type, from data: Data, head: HTTPResponse, at keyPath: String, decoder: JSONResponseDecoder
    ) throws(HTTPEncodingError) -> Value {
        if let empty = emptyValue(type, data: data, response: head) { return empty }
        return try decoder.decode(type, from: data, response: head, atKeyPath: keyPath)
    }
}
