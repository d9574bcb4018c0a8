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
    /// Its length is known.
    public let body: HTTPBody
    /// `multipart/form-data` with the form's boundary.
    public let contentType: MediaType

    /// Creates an encoded form.
    /// - Parameters:
    ///   - body: The body; its length must be known, as it is for every body a form encodes to.
    ///   - contentType: The media type with its boundary.
    public init(body: HTTPBody, contentType: MediaType) {
        precondition(body.length != .unknown, "an encoded form's body has a known length")
        self.body = body
        self.contentType = contentType
    }

    /// The exact length of the body in bytes, the body's known length.
    public var contentLength: Int64 {
        guard case .known(let count) = body.length else { preconditionFailure("checked when the form was made") }
        return count
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
