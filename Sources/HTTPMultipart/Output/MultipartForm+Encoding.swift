import Foundation
import HTTPCore

extension MultipartForm {
    /// Encodes the form into memory.
    /// - Returns: The form with a body of `HTTPBody.Source.data`.
    /// - Throws: The form's ``pendingError``; ``MultipartError`` naming the part or file that
    ///   could not be read, or ``MultipartError/Code/boundaryInContent`` when a fixed boundary
    ///   occurs in a part.
    public func encodedInMemory() async throws(MultipartError) -> EncodedForm {
        let layout = try checkedLayout()
        let data = try await MemoryOutput.encode(layout)
        return EncodedForm(body: HTTPBody(data), contentType: contentType)
    }

    /// Encodes the form into the file at `url`, in chunks of `chunkSize` bytes.
    ///
    /// Memory stays bounded by one chunk whatever the size of the parts. The bytes go to
    /// a temporary file in the same directory that replaces `url` once complete; on any
    /// failure it is removed and `url` is left as it was.
    /// - Parameters:
    ///   - url: The `file:` URL to write; replaced if it exists.
    ///   - chunkSize: The size of each read and write; 1 MiB by default.
    /// - Returns: The form with a body of `HTTPBody.Source.file` at `url`.
    /// - Throws: The form's ``pendingError`` (nothing is written then); ``MultipartError``
    ///   naming the file that could not be read or written.
    public func encode(
        toFileAt url: URL, chunkSize: Int = defaultChunkSize
    ) async throws(MultipartError)
        -> EncodedForm
    {
        let layout = try checkedLayout()
        try await DiskOutput.write(layout, to: url, chunkSize: max(1, chunkSize))
        let body: HTTPBody
        do {
            body = try HTTPBody(fileAt: url)
        } catch {
            throw MultipartError(.writeFailed, value: url.path, reason: error.reason, underlyingError: error)
        }
        return EncodedForm(body: body, contentType: contentType)
    }

    /// The form as a streaming body of exact, known length, read when sent.
    ///
    /// Nothing is read or written now. The body yields chunks of `chunkSize` bytes; it can
    /// be read again (for a retry or redirect) when every part can, and is single-use when a
    /// part is a one-shot stream.
    /// - Parameter chunkSize: The size of each chunk; 1 MiB by default.
    /// - Returns: The form with a streaming body whose length is ``contentLength``. Reading
    ///   it throws ``MultipartError`` when a part cannot be read, and the form's
    ///   ``pendingError`` before anything else.
    public func streamingBody(chunkSize: Int = defaultChunkSize) -> EncodedForm {
        let layout = FormLayout(parts: parts, boundary: boundary)
        let sequence = FormChunkSequence(layout: layout, chunkSize: max(1, chunkSize))
        let check = boundary.isRandom ? nil : boundary
        let behavior: HTTPBody.IterationBehavior = layout.isReplayable ? .multiple : .single
        let pendingError = pendingError
        let body = HTTPBody(length: .known(layout.length), iterationBehavior: behavior) {
            CheckedChunks(base: sequence, fixedBoundary: check, pendingError: pendingError)
        }
        return EncodedForm(body: body, contentType: contentType)
    }

    /// Encodes the form in memory when it is smaller than `memoryThreshold` bytes, otherwise
    /// into a new file in `temporaryDirectory`, which the caller removes when done.
    /// - Parameters:
    ///   - memoryThreshold: Forms shorter than this many bytes are encoded in memory; 10 MB
    ///     by default.
    ///   - temporaryDirectory: Where to write a large form; the system's temporary directory by default.
    /// - Returns: The encoded form; its ``EncodedForm/fileURL`` is set when it went to disk.
    /// - Throws: ``MultipartError`` as ``encodedInMemory()`` and ``encode(toFileAt:chunkSize:)`` do.
    public func encoded(
        memoryThreshold: Int64 = defaultMemoryThreshold,
        temporaryDirectory: URL = FileManager.default.temporaryDirectory
    ) async throws(MultipartError) -> EncodedForm {
        if contentLength < memoryThreshold { return try await encodedInMemory() }
        let name = "heron-multipart-\(UUID().uuidString).form"
        return try await encode(toFileAt: temporaryDirectory.appendingPathComponent(name))
    }

    /// The layout, after checking that no append failed and a fixed boundary against the
    /// in-memory parts.
    func checkedLayout() throws(MultipartError) -> FormLayout {
        if let pendingError { throw pendingError }
        if !boundary.isRandom { try Self.checkBoundary(boundary, notIn: parts) }
        return FormLayout(parts: parts, boundary: boundary)
    }

    /// Throws when an in-memory part holds the delimiter `--boundary` of a fixed boundary.
    static func checkBoundary(_ boundary: MultipartBoundary, notIn parts: [MultipartPart]) throws(MultipartError) {
        let search = DelimiterSearch(Array("--\(boundary.value)".utf8))
        for part in parts {
            guard case .data(let data) = part.body.source, search.occurs(in: data) else { continue }
            throw MultipartError(
                .boundaryInContent, value: boundary.value,
                reason: "the content of \(part.label) contains the delimiter of this fixed boundary; "
                    + "use a random boundary")
        }
    }
}

/// Throws the form's pending error, or checks a fixed boundary against in-memory parts, before
/// the first chunk of a streaming body.
struct CheckedChunks: AsyncSequence, Sendable {
    typealias Element = Data

    let base: FormChunkSequence
    let fixedBoundary: MultipartBoundary?
    let pendingError: MultipartError?

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            base: base.makeAsyncIterator(), pending: fixedBoundary.map { ($0, base.layout) },
            pendingError: pendingError)
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: FormChunkSequence.AsyncIterator
        var pending: (MultipartBoundary, FormLayout)?
        var pendingError: MultipartError?

        mutating func next() async throws -> Data? {
            if let pendingError { throw pendingError }
            if let (boundary, layout) = pending {
                pending = nil
                let parts = layout.segments.compactMap { segment -> MultipartPart? in
                    if case .content(let part) = segment { return part }
                    return nil
                }
                try MultipartForm.checkBoundary(boundary, notIn: parts)
            }
            return try await base.next()
        }
    }
}
