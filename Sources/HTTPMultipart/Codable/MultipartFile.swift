import Foundation
import HTTPCore

/// A file in a value encoded by ``MultipartFormEncoder``: it becomes a file part.
///
/// The content is a file on disk (read only when the form is encoded, never loaded whole)
/// or bytes in memory; the filename and content type are inferred when not given.
///
/// ```swift
/// struct Upload: Encodable {
///     var title: String
///     var photo: MultipartFile
/// }
/// let upload = Upload(title: "Dawn", photo: MultipartFile(fileAt: URL(fileURLWithPath: "/tmp/dawn.jpg")))
/// let form = try MultipartFormEncoder().encode(upload)  // title, and photo as dawn.jpg, image/jpeg
/// ```
public struct MultipartFile: Encodable, Hashable, Sendable {
    /// Where the content comes from.
    public enum Source: Hashable, Sendable {
        /// A regular file on disk.
        case file(URL)
        /// Bytes in memory.
        case data(Data)
    }

    /// Where the content comes from.
    public let source: Source
    /// The filename to send; for a file, its last path component when `nil`.
    public let filename: String?
    /// The content type to send; inferred from the filename when `nil`.
    public let contentType: MediaType?

    /// A file part read from disk when the form is encoded.
    /// - Parameters:
    ///   - url: A `file:` URL of a regular file.
    ///   - filename: The filename to send; the URL's last path component by default.
    ///   - contentType: The content type; inferred from the filename by default.
    public init(fileAt url: URL, filename: String? = nil, contentType: MediaType? = nil) {
        self.source = .file(url)
        self.filename = filename
        self.contentType = contentType
    }

    /// A file part holding `data`.
    /// - Parameters:
    ///   - data: The content.
    ///   - filename: The filename to send, if any.
    ///   - contentType: The content type; inferred from the filename, else `application/octet-stream`.
    public init(data: Data, filename: String? = nil, contentType: MediaType? = nil) {
        self.source = .data(data)
        self.filename = filename
        self.contentType = contentType
    }

    /// Refuses encoders other than ``MultipartFormEncoder``, which handles files itself:
    /// a file has no meaning in JSON or a URL-encoded form.
    /// - Parameter encoder: The encoder.
    /// - Throws: `EncodingError.invalidValue` always.
    public func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(
            self,
            EncodingError.Context(
                codingPath: encoder.codingPath,
                debugDescription: "MultipartFile can only be encoded by MultipartFormEncoder"))
    }
}
