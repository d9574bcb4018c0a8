import HTTPCore

/// A request body made by a ``BodyEncoder``, with the media type to send as its `Content-Type`.
///
/// ```swift
/// let encoded = try FormEncoder().encodeBody(parameters: ["q": "heron"])
/// var request = HTTPRequest(method: .post, url: URL(string: "https://example.com/search")!)
/// request.body = encoded.body
/// try request.headerFields.set(.contentType, encoded.contentType.description)
/// ```
public struct EncodedBody: Sendable {
    /// The bytes (or stream) to send.
    public var body: HTTPBody
    /// The media type of ``body``, such as `application/json`.
    public var contentType: MediaType

    /// Creates an encoded body.
    /// - Parameters:
    ///   - body: The content.
    ///   - contentType: Its media type.
    public init(body: HTTPBody, contentType: MediaType) {
        self.body = body
        self.contentType = contentType
    }
}
