import Foundation
import HTTPCore

/// A `multipart/form-data` form (RFC 7578): an ordered list of parts and a boundary.
///
/// Add text fields, bytes, files, streams and custom parts, then encode the form in one
/// of three ways that all write the same bytes for the same form and boundary:
/// ``encodedInMemory()`` for small forms, ``encode(toFileAt:chunkSize:)`` to stream a
/// large form to disk in fixed-size chunks, and ``streamingBody(chunkSize:)`` for a body
/// the client sends directly, never writing a temporary file. ``encoded(memoryThreshold:temporaryDirectory:)``
/// picks memory or disk by size.
///
/// Files are not read when added: their size comes from `stat`, so the form's
/// ``contentLength`` is known before anything is read, and a 1 GiB file is encoded with
/// memory bounded by one chunk.
///
/// ```swift
/// var form = MultipartForm()
/// form.append(name: "title", value: "Holiday")
/// try form.append(name: "photo", fileAt: URL(fileURLWithPath: "/tmp/beach.jpg"))  // image/jpeg, beach.jpg
/// try form.append(name: "notes", data: Data("…".utf8), filename: "notes.txt")
///
/// let encoded = form.streamingBody()
/// print(encoded.contentType)    // multipart/form-data; boundary=Heron-…
/// print(encoded.contentLength)  // the exact byte count, computed up front
/// ```
public struct MultipartForm: Sendable {
    /// The default size above which ``encoded(memoryThreshold:temporaryDirectory:)`` writes
    /// to disk: 10 MB, as Alamofire's `MultipartFormData.encodingMemoryThreshold`.
    public static let defaultMemoryThreshold: Int64 = 10_000_000
    /// The default chunk size for disk and streaming output: 1 MiB.
    public static let defaultChunkSize = 1 << 20

    /// The boundary between parts.
    public var boundary: MultipartBoundary
    /// The parts, in the order they are encoded.
    public private(set) var parts: [MultipartPart]
    /// The first error of an append that does not throw (a text, data or stream part whose
    /// name cannot be sent, a stream of negative length), or `nil`.
    ///
    /// The part was not appended. ``encodedInMemory()``, ``encode(toFileAt:chunkSize:)`` and
    /// ``encoded(memoryThreshold:temporaryDirectory:)`` throw this error, the body of
    /// ``streamingBody(chunkSize:)`` throws it when read, and `HTTPRequest.multipart(boundary:_:)`
    /// keeps it as the request's `pendingError`, so a form missing a part is never sent.
    public private(set) var pendingError: MultipartError?

    /// Creates an empty form.
    /// - Parameter boundary: The boundary; a fresh random one by default.
    public init(boundary: MultipartBoundary = .random()) {
        self.boundary = boundary
        self.parts = []
        self.pendingError = nil
    }

    /// The `Content-Type` of the encoded form: `multipart/form-data` with its boundary.
    public var contentType: MediaType {
        // A validated boundary holds only bchars, none of them a control character, so
        // MediaType cannot reject it.
        try! MediaType.multipartFormData.withParameter("boundary", boundary.value)
    }

    /// The exact length of the encoded form in bytes, computed without reading any part.
    public var contentLength: Int64 { FormLayout(parts: parts, boundary: boundary).length }

    /// Whether the form can be encoded more than once: true unless a part is a one-shot stream.
    public var isReplayable: Bool { parts.allSatisfy(\.isReplayable) }

    // MARK: Adding parts

    /// Appends a part.
    /// - Parameter part: A part with its own header fields.
    public mutating func append(_ part: MultipartPart) { parts.append(part) }

    /// Appends a text field, sent as UTF-8 without a `Content-Type` (RFC 7578 §4.4 reads it
    /// as `text/plain`).
    ///
    /// This needs no `try`: a name that cannot be sent is not appended, and the form keeps the
    /// error as ``pendingError``, which encoding the form throws.
    ///
    /// ```swift
    /// var form = MultipartForm()
    /// form.append(name: "title", value: "Holiday")
    /// form.append(name: "bell\u{7}", value: "x")  // not appended: kept as pendingError
    /// print(form.parts.count, form.pendingError?.code == .invalidName)  // 1 true
    /// ```
    /// - Parameters:
    ///   - name: The field name; `"`, CR and LF are escaped as browsers do. A name holding
    ///     another control character (NUL, DEL, …) is kept as ``pendingError`` with code
    ///     ``MultipartError/Code/invalidName``, unless an earlier error is.
    ///   - value: The text.
    public mutating func append(name: String, value: String) {
        appendPart { () throws(MultipartError) in try Self.textPart(name: name, value: value) }
    }

    /// Appends a text field, or throws what ``append(name:value:)`` keeps.
    mutating func appendText(name: String, value: String) throws(MultipartError) {
        parts.append(try Self.textPart(name: name, value: value))
    }

    /// The part of a text field.
    private static func textPart(name: String, value: String) throws(MultipartError) -> MultipartPart {
        let fields = try FormDataDisposition.fields(name: name, filename: nil, contentType: nil)
        return try MultipartPart(headerFields: fields, data: Data(value.utf8))
    }

    /// Appends a part holding `data`.
    /// - Parameters:
    ///   - name: The field name.
    ///   - data: The content.
    ///   - filename: The filename to send, if the part is a file upload.
    ///   - contentType: The content type; by default inferred from `filename`'s extension,
    ///     `application/octet-stream` when there is none or it is unknown.
    ///
    /// This needs no `try`: a name or filename that cannot be sent (a control character other
    /// than CR and LF) is not appended, and the form keeps the error as ``pendingError``
    /// (code ``MultipartError/Code/invalidName``), which encoding the form throws.
    public mutating func append(
        name: String, data: Data, filename: String? = nil, contentType: MediaType? = nil
    ) {
        appendPart { () throws(MultipartError) in
            try Self.dataPart(name: name, data: data, filename: filename, contentType: contentType)
        }
    }

    /// Appends a part holding `data`, or throws what ``append(name:data:filename:contentType:)``
    /// keeps (for the Codable encoder, which reports the coding path).
    mutating func appendData(
        name: String, data: Data, filename: String? = nil, contentType: MediaType? = nil
    ) throws(MultipartError) {
        parts.append(try Self.dataPart(name: name, data: data, filename: filename, contentType: contentType))
    }

    /// The part holding `data`.
    private static func dataPart(
        name: String, data: Data, filename: String?, contentType: MediaType?
    ) throws(MultipartError) -> MultipartPart {
        let fields = try FormDataDisposition.fields(
            name: name, filename: filename, contentType: Self.contentType(contentType, filename: filename))
        return try MultipartPart(headerFields: fields, data: data)
    }

    /// Appends the regular file at `url`, read only when the form is encoded.
    ///
    /// The file's size is read now with `stat`; a file that disappears or changes size
    /// before encoding makes encoding throw, naming it.
    /// - Parameters:
    ///   - name: The field name.
    ///   - url: A `file:` URL of a regular, readable file.
    ///   - filename: The filename to send; the URL's last path component by default.
    ///   - contentType: The content type; by default inferred from the filename's extension
    ///     (see `MediaType.inferred(forFilename:)`).
    /// - Throws: ``MultipartError/Code/unreadableFile`` naming the path when the file is
    ///   missing, not a regular file or not readable; ``MultipartError/Code/invalidName``.
    public mutating func append(
        name: String, fileAt url: URL, filename: String? = nil, contentType: MediaType? = nil
    ) throws(MultipartError) {
        let sentName = filename ?? url.lastPathComponent
        let fields = try FormDataDisposition.fields(
            name: name, filename: sentName, contentType: contentType ?? .inferred(forFilename: sentName))
        parts.append(try MultipartPart(headerFields: fields, fileAt: url))
    }

    /// Appends a part read once from `stream`, which must yield exactly `length` bytes.
    ///
    /// The encoder opens and closes the stream and reads it in large chunks (at most the
    /// chunk size to disk and as a stream); it reads `streamError` only after a failed read left the stream in its error
    /// state (reading it from a stream without an error traps on Linux). A stream closed
    /// before encoding fails with ``MultipartError/Code/streamFailed``. A form with such a
    /// part can be encoded once.
    /// - Parameters:
    ///   - name: The field name.
    ///   - stream: The content; the form takes ownership of it.
    ///   - length: The exact number of bytes the stream yields.
    ///   - filename: The filename to send, if any.
    ///   - contentType: The content type; inferred from `filename` by default.
    ///
    /// This needs no `try`: a name or filename that cannot be sent
    /// (``MultipartError/Code/invalidName``) or a negative length
    /// (``MultipartError/Code/invalidLength``) appends nothing, and the form keeps the error as
    /// ``pendingError``, which encoding the form throws.
    public mutating func append(
        name: String, stream: InputStream, length: Int64, filename: String? = nil, contentType: MediaType? = nil
    ) {
        appendPart { () throws(MultipartError) in
            let fields = try FormDataDisposition.fields(
                name: name, filename: filename, contentType: Self.contentType(contentType, filename: filename))
            return try MultipartPart(headerFields: fields, stream: stream, length: length)
        }
    }

    /// Appends a part read once from an asynchronous sequence of chunks totalling `length` bytes.
    /// - Parameters:
    ///   - name: The field name.
    ///   - chunks: The content, in order.
    ///   - length: The exact total number of bytes; a sequence that yields fewer or more
    ///     makes encoding throw ``MultipartError/Code/lengthMismatch``.
    ///   - filename: The filename to send, if any.
    ///   - contentType: The content type; inferred from `filename` by default.
    ///
    /// This needs no `try`: a name or filename that cannot be sent
    /// (``MultipartError/Code/invalidName``) or a negative length
    /// (``MultipartError/Code/invalidLength``) appends nothing, and the form keeps the error as
    /// ``pendingError``, which encoding the form throws.
    public mutating func append<Chunks: AsyncSequence & Sendable>(
        name: String, chunks: Chunks, length: Int64, filename: String? = nil, contentType: MediaType? = nil
    ) where Chunks.Element == Data {
        appendPart { () throws(MultipartError) in
            let fields = try FormDataDisposition.fields(
                name: name, filename: filename, contentType: Self.contentType(contentType, filename: filename))
            return try MultipartPart(headerFields: fields, chunks: chunks, length: length)
        }
    }

    /// Appends the part `make` returns, or keeps its error as ``pendingError`` unless an
    /// earlier one is kept.
    private mutating func appendPart(_ make: () throws(MultipartError) -> MultipartPart) {
        do {
            parts.append(try make())
        } catch {
            if pendingError == nil { pendingError = error }
        }
    }

    private static func contentType(_ given: MediaType?, filename: String?) -> MediaType {
        given ?? filename.map { MediaType.inferred(forFilename: $0) } ?? .octetStream
    }
}
