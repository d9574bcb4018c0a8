import Foundation
import HTTPCore

/// One part of a multipart form: its header fields and its content.
///
/// Most parts come from ``MultipartForm``'s `append` methods, which write the
/// `Content-Disposition` and `Content-Type` fields for you. Build a part yourself when
/// it needs fields of its own; the fields are HTTPCore `HTTPFields`, validated when
/// made, so no value can end the part's header section early. RFC 7578 §4.2 requires a
/// `Content-Disposition` field on every part, and the initializers check it.
///
/// The content is an HTTPCore `HTTPBody` of known length (a file's from `stat`), so a
/// form's total length is known before anything is read.
///
/// ```swift
/// let fields = try HTTPFields([
///     "Content-Disposition": #"form-data; name="report"; filename="q3.csv""#,
///     "Content-Type": "text/csv",
///     "Content-Language": "en",
/// ])
/// let part = try MultipartPart(headerFields: fields, data: Data("a,b\n1,2\n".utf8))
/// var form = MultipartForm()
/// form.append(part)
/// ```
public struct MultipartPart: Sendable {
    /// The part's header fields, in the order they are written.
    public let headerFields: HTTPFields
    /// The content: bytes, a file or a single-use stream, always of known length.
    let body: HTTPBody

    /// Creates a part holding `data`.
    /// - Parameters:
    ///   - headerFields: The part's fields; must include `Content-Disposition`.
    ///   - data: The content.
    /// - Throws: ``MultipartError/Code/invalidHeader`` when `Content-Disposition` is missing.
    public init(headerFields: HTTPFields, data: Data) throws(MultipartError) {
        try self.init(checking: headerFields, body: HTTPBody(data))
    }

    /// Creates a part whose content is the regular file at `url`, read when the form is encoded.
    ///
    /// The file's size is read now with `stat`; the file is not opened until encoding.
    /// - Parameters:
    ///   - headerFields: The part's fields; must include `Content-Disposition`.
    ///   - url: A `file:` URL of a regular, readable file.
    /// - Throws: ``MultipartError/Code/unreadableFile`` naming the path when it is missing,
    ///   not a regular file or not readable; ``MultipartError/Code/invalidHeader`` when
    ///   `Content-Disposition` is missing.
    public init(headerFields: HTTPFields, fileAt url: URL) throws(MultipartError) {
        let body: HTTPBody
        do {
            body = try HTTPBody(fileAt: url)
        } catch {
            throw MultipartError(.unreadableFile, value: error.value, reason: error.reason, underlyingError: error)
        }
        try self.init(checking: headerFields, body: body)
    }

    /// Creates a part read once from `stream`, which must yield exactly `length` bytes.
    ///
    /// The stream is opened (if not yet open) and closed by the encoder. A form holding
    /// such a part can be encoded once; its streaming body is single-use.
    /// - Parameters:
    ///   - headerFields: The part's fields; must include `Content-Disposition`.
    ///   - stream: The source of the content; the form takes ownership of it.
    ///   - length: The exact number of bytes the stream yields.
    /// - Throws: ``MultipartError/Code/invalidLength`` for a negative length;
    ///   ``MultipartError/Code/invalidHeader`` when `Content-Disposition` is missing.
    public init(headerFields: HTTPFields, stream: InputStream, length: Int64) throws(MultipartError) {
        try Self.check(length: length, of: headerFields)
        // The body is single-use, so it hands `stream` to one reader only: a read claims the
        // body before it makes the stream.
        nonisolated(unsafe) let stream = stream
        try self.init(
            checking: headerFields, body: HTTPBody(length: .known(length), iterationBehavior: .single) { stream })
    }

    /// Creates a part read once from an asynchronous sequence of chunks totalling `length` bytes.
    ///
    /// A form holding such a part can be encoded once; its streaming body is single-use.
    /// - Parameters:
    ///   - headerFields: The part's fields; must include `Content-Disposition`.
    ///   - chunks: The content in order.
    ///   - length: The exact total number of bytes.
    /// - Throws: ``MultipartError/Code/invalidLength`` for a negative length;
    ///   ``MultipartError/Code/invalidHeader`` when `Content-Disposition` is missing.
    public init<Chunks: AsyncSequence & Sendable>(
        headerFields: HTTPFields, chunks: Chunks, length: Int64
    )
        throws(MultipartError) where Chunks.Element == Data
    {
        try Self.check(length: length, of: headerFields)
        try self.init(checking: headerFields, body: HTTPBody(stream: chunks, length: .known(length)))
    }

    private init(checking headerFields: HTTPFields, body: HTTPBody) throws(MultipartError) {
        guard headerFields.contains(.contentDisposition) else {
            throw MultipartError(
                .invalidHeader, value: headerFields.description,
                reason: "a form-data part needs a Content-Disposition field (RFC 7578 §4.2)")
        }
        self.headerFields = headerFields
        self.body = body
    }

    private static func check(length: Int64, of fields: HTTPFields) throws(MultipartError) {
        guard length >= 0 else {
            throw MultipartError(
                .invalidLength, value: String(length),
                reason: "the part \(fields[.contentDisposition] ?? "") declares a negative length")
        }
    }

    /// The number of content bytes, not counting the header fields.
    public var contentLength: Int64 {
        guard case .known(let count) = body.length else {
            preconditionFailure("every initializer makes a body of known length")
        }
        return count
    }

    /// Whether the content can be read more than once (bytes and files can; streams cannot).
    public var isReplayable: Bool { body.isReplayable }

    /// The part as named in messages: its `Content-Disposition` value.
    var label: String { headerFields[.contentDisposition] ?? "part" }

    /// The bytes that open the part: the header fields and the blank line after them.
    func headerBytes() -> Data {
        var text = ""
        for field in headerFields { text += "\(field.name.rawName): \(field.value)\r\n" }
        text += "\r\n"
        return Data(text.utf8)
    }
}
