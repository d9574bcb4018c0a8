import Foundation
import HTTPCore

/// Reads one segment of a form's body, checking that a part yields exactly its declared length.
///
/// A part's content is read through its `HTTPBody`: bytes in place, a file with HTTPCore's
/// `FileChunkReader` (which fails when the file no longer has the size it had when the part
/// was made), a stream with `HTTPBody.chunks(size:)` (which allows one read of a single-use
/// body and enforces its length). Reads are synchronous into a caller's buffer;
/// ``prepare()`` awaits the next chunk of a stream part first, so no buffer pointer is held
/// across a suspension.
struct SegmentReader {
    private enum Source {
        case bytes(Data, offset: Int)
        case file(FileChunkReader)
        case chunks(HTTPBody.Chunks.AsyncIterator, leftover: Data)
    }

    private var source: Source
    private let label: String
    /// The bytes still to read.
    private(set) var remaining: Int64

    /// Starts reading `segment`; a file part's file is opened now.
    /// - Parameters:
    ///   - segment: The segment to read.
    ///   - chunkSize: The most bytes to read from a stream part at a time.
    init(_ segment: FormLayout.Segment, chunkSize: Int) throws(MultipartError) {
        switch segment {
        case .bytes(let data):
            source = .bytes(data, offset: 0)
            label = "delimiter"
            remaining = Int64(data.count)
        case .content(let part):
            label = part.label
            remaining = part.contentLength
            switch part.body.source {
            case .data(let data):
                source = .bytes(data, offset: 0)
            case .file(let url):
                do {
                    source = .file(try FileChunkReader(url: url, expectedSize: part.contentLength))
                } catch {
                    throw Self.fileError(error)
                }
            case .stream:
                let size = Int(min(Int64(chunkSize), max(part.contentLength, 1)))
                source = .chunks(part.body.chunks(size: size).makeAsyncIterator(), leftover: Data())
            }
        }
    }

    /// The reader of a file segment, for in-kernel copies from its descriptor.
    var file: FileChunkReader? {
        if case .file(let reader) = source { return reader }
        return nil
    }

    /// Records that `count` bytes were consumed outside ``read(into:)`` (by an in-kernel copy).
    mutating func advance(by count: Int) {
        if case .file(let reader) = source { reader.advance(by: count) }
        remaining -= Int64(count)
    }

    /// The bytes of a bytes segment, for writing without a copy.
    var wholeBytes: Data? {
        if case .bytes(let data, 0) = source { return data }
        return nil
    }

    /// Awaits the next chunk of a stream part when none is buffered.
    mutating func prepare() async throws(MultipartError) {
        guard remaining > 0, case .chunks(var iterator, let leftover) = source, leftover.isEmpty else { return }
        source = .bytes(Data(), offset: 0)
        let chunk = try await Self.next(&iterator, label: label)
        guard let chunk else {
            throw MultipartError(
                .lengthMismatch, value: label, reason: "the stream ended with \(remaining) bytes still expected")
        }
        source = .chunks(iterator, leftover: chunk)
    }

    /// Reads up to `buffer.count` bytes of the segment (fewer only at its end).
    /// - Returns: The bytes read; 0 only when ``remaining`` is 0.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(MultipartError) -> Int {
        let want = Int(min(Int64(buffer.count), remaining))
        guard want > 0 else { return 0 }
        let target = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want])
        var count = 0
        switch source {
        case .bytes(let data, let offset):
            data.withUnsafeBytes { bytes in
                target.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + want]))
            }
            count = want
            source = .bytes(data, offset: offset + want)
        case .file(let reader):
            // Each read returns at least one byte before the declared end, or throws.
            while count < want {
                do {
                    count += try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: target[count...]))
                } catch {
                    throw Self.fileError(error)
                }
            }
        case .chunks(let iterator, let leftover):
            count = min(want, leftover.count)
            leftover.withUnsafeBytes { bytes in
                target.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[0..<count]))
            }
            source = .chunks(iterator, leftover: count == leftover.count ? Data() : leftover.dropFirst(count))
        }
        remaining -= Int64(count)
        return count
    }

    /// Checks that a file or stream part has nothing past its declared length, and closes a file.
    mutating func finish() async throws(MultipartError) {
        switch source {
        case .file(let reader):
            defer { reader.close() }
            do {
                // At the declared end the reader reads once more, to check that the file ends too.
                _ = try reader.read(into: UnsafeMutableRawBufferPointer(start: nil, count: 0))
            } catch {
                throw Self.fileError(error)
            }
        case .chunks(var iterator, _):
            source = .bytes(Data(), offset: 0)
            // The iterator enforces the declared length: past it, it throws rather than
            // returning a chunk.
            _ = try await Self.next(&iterator, label: label)
        case .bytes:
            break
        }
    }

    /// A failure of reading a file part, naming the file: a file that ended early or grew is
    /// ``MultipartError/Code/fileChanged``.
    private static func fileError(_ error: HTTPCoreError) -> MultipartError {
        MultipartError(
            error.code == .bodyLengthMismatch ? .fileChanged : .unreadableFile, value: error.value,
            reason: error.reason, underlyingError: error)
    }

    /// The next chunk of a stream part, its failures named after the part.
    private static func next(
        _ iterator: inout HTTPBody.Chunks.AsyncIterator, label: String
    ) async throws(MultipartError)
        -> Data?
    {
        do {
            return try await iterator.next()
        } catch let error as HTTPCoreError where error.code == .bodyLengthMismatch {
            throw MultipartError(.lengthMismatch, value: label, reason: error.reason, underlyingError: error)
        } catch let error as HTTPCoreError where error.code == .bodyAlreadyConsumed {
            throw MultipartError(
                .streamConsumed, value: label,
                reason: "the part's stream was read by an earlier encoding; it can be read once",
                underlyingError: error)
        } catch let error as HTTPCoreError {
            throw MultipartError(.streamFailed, value: label, reason: error.reason, underlyingError: error)
        } catch let error as MultipartError {
            throw error
        } catch {
            throw MultipartError(
                .streamFailed, value: label, reason: "the chunk sequence threw: \(error)", underlyingError: error)
        }
    }
}
