import HTTPEncoding

extension MultipartFormEncoder: BodyEncoder {
    /// Encodes `value` as a streaming multipart body with its content type.
    ///
    /// The body is read when sent (files in chunks, never loaded whole) and has a known length.
    /// - Parameter value: A value that encodes a keyed container.
    /// - Returns: The body and `multipart/form-data` with the boundary.
    /// - Throws: ``MultipartError`` as ``encode(_:)`` does.
    public func encodeBody<Value: Encodable>(_ value: Value) throws -> EncodedBody {
        let encoded = try encode(value).streamingBody()
        return EncodedBody(body: encoded.body, contentType: encoded.contentType)
    }
}

extension BodyEncoder where Self == MultipartFormEncoder {
    /// A streaming `multipart/form-data` body made by a default `MultipartFormEncoder`.
    public static var multipart: MultipartFormEncoder { MultipartFormEncoder() }

    /// A streaming `multipart/form-data` body made by `encoder`.
    /// - Parameter encoder: The configured encoder.
    /// - Returns: The body encoder.
    public static func multipart(_ encoder: MultipartFormEncoder) -> MultipartFormEncoder { encoder }
}
