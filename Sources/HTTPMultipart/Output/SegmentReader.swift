import Foundation
import HTTPCore

/// Reads one segment of a form's body, checking that a part yields exactly its declared length.
///
/// Reads are synchronous into a caller's buffer; ``prepare()`` awaits the next chunk of an
/// asynchronous part first, so no buffer pointer is held across a suspension.
struct SegmentReader {
    private enum Source {
        case bytes(Data, offset: Int)
        case file(FileDescriptor)
        case stream(InputStreamSource)
        case chunks(HTTPBody.Chunks.AsyncIterator, leftover: Data)
    }

    private var source: Source
    private let label: String
    /// The bytes still to read.
    private(set) var remaining: Int64

    init(_ segment: FormLayout.Segment) throws(MultipartError) {
        switch segment {
        case .bytes(let data):
            source = .bytes(data, offset: 0)
            label = "delimiter"
            remaining = Int64(data.count)
        case .content(let part):
            label = part.label
            remaining = part.contentLength
            switch part.content {
            case .data(let data):
                source = .bytes(data, offset: 0)
            case .file(let url, let size):
                let (descriptor, now) = try FileDescriptor.openRegularFileForReading(url)
                guard now == size else {
                    throw MultipartError(
                        .fileChanged, value: url.path,
                        reason: "the file had \(size) bytes when added and has \(now) now")
                }
                source = .file(descriptor)
            case .inputStream(let stream, _):
                guard stream.take() else {
                    throw MultipartError(
                        .streamConsumed, value: part.label,
                        reason: "the part's input stream was read by an earlier encoding; a stream can be read once")
                }
                stream.open()
                source = .stream(stream)
            case .chunks(let body, _):
                source = .chunks(body.chunks().makeAsyncIterator(), leftover: Data())
            }
        }
    }

    /// The open file of a file segment, for in-kernel copies.
    var fileDescriptor: FileDescriptor? {
        if case .file(let descriptor) = source { return descriptor }
        return nil
    }

    /// Records that `count` bytes were consumed outside ``read(into:)`` (by an in-kernel copy).
    mutating func advance(by count: Int) { remaining -= Int64(count) }

    /// The bytes of a bytes segment, for writing without a copy.
    var wholeBytes: Data? {
        if case .bytes(let data, 0) = source { return data }
        return nil
    }

    /// Awaits the next chunk of an asynchronous part when none is buffered.
    mutating func prepare() async throws(MultipartError) {
        guard remaining > 0, case .chunks(var iterator, let leftover) = source, leftover.isEmpty else { return }
        source = .bytes(Data(), offset: 0)
        let chunk = try await Self.next(&iterator, label: label)
        guard let chunk else {
            throw MultipartError(
                .lengthMismatch, value: label, reason: "the chunk sequence ended with \(remaining) bytes still expected"
            )
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
        case .file(let descriptor):
            while count < want {
                let got = try descriptor.read(into: UnsafeMutableRawBufferPointer(rebasing: target[count...]))
                if got == 0 {
                    throw MultipartError(
                        .fileChanged, value: descriptor.path,
                        reason: "the file ended \(remaining - Int64(count)) bytes early; it shrank while being encoded")
                }
                count += got
            }
        case .stream(let stream):
            count = try stream.read(into: target, label: label)
            if count == 0 {
                throw MultipartError(
                    .lengthMismatch, value: label,
                    reason: "the input stream ended with \(remaining) bytes still expected")
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

    /// Checks that a stream part has nothing past its declared length, and closes it.
    mutating func finish() async throws(MultipartError) {
        switch source {
        case .stream(let stream):
            defer { stream.close() }
            var extra: UInt8 = 0
            let more = try withUnsafeMutableBytes(of: &extra) { buffer throws(MultipartError) in
                try stream.read(into: buffer, label: label)
            }
            if more > 0 {
                throw MultipartError(
                    .lengthMismatch, value: label, reason: "the input stream has more bytes than its declared length")
            }
        case .chunks(var iterator, let leftover):
            if !leftover.isEmpty {
                throw MultipartError(
                    .lengthMismatch, value: label, reason: "the chunk sequence has more bytes than its declared length")
            }
            source = .bytes(Data(), offset: 0)
            if try await Self.next(&iterator, label: label) != nil {
                throw MultipartError(
                    .lengthMismatch, value: label, reason: "the chunk sequence has more bytes than its declared length")
            }
        case .bytes, .file:
            break
        }
    }

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
                reason: "the part's chunk sequence was read by an earlier encoding; it can be read once",
                underlyingError: error)
        } catch let error as MultipartError {
            throw error
        } catch {
            throw MultipartError(
                .streamFailed, value: label, reason: "the chunk sequence threw: \(error)",
                underlyingError: StreamFailure(description: "\(error)"))
        }
    }
}
