import Foundation
import HTTPCore

/// An encoded form: its body and the `Content-Type` and `Content-Length` to send with it.
///
/// ```swift
/// let encoded = try await form.encodedInMemory()
/// var request = HTTPRequest(method: .post, url: url)
/// try request.headerFields.set(.contentType, encoded.contentType.description)
/// request.body = encoded.body
/// ```
public struct EncodedForm: Sendable {
    /// The body: bytes in memory, a file on disk or a stream, as `HTTPBody.source` tells.
    public let body: HTTPBody
    /// `multipart/form-data` with the form's boundary.
    public let contentType: MediaType
    /// The exact length of the body in bytes.
    public let contentLength: Int64

    /// Creates an encoded form.
    /// - Parameters:
    ///   - body: The body.
    ///   - contentType: The media type with its boundary.
    ///   - contentLength: The body's length.
    public init(body: HTTPBody, contentType: MediaType, contentLength: Int64) {
        self.body = body
        self.contentType = contentType
        self.contentLength = contentLength
    }

    /// The bytes, when the form was encoded in memory.
    public var data: Data? {
        if case .data(let data) = body.source { return data }
        return nil
    }

    /// The file holding the bytes, when the form was encoded to disk.
    public var fileURL: URL? {
        if case .file(let url) = body.source { return url }
        return nil
    }
}
