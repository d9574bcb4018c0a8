import Foundation
import HTTPCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Encodes a form into a file, in chunks of a fixed size, with bounded memory.
///
/// The bytes go to HTTPCore's `PartialFile`, a hidden file beside the destination that
/// replaces it with one `rename(2)` only once complete and is removed on any failure. File
/// parts are copied into it with an in-kernel copy where the system has one (`sendfile(2)`
/// on Linux), otherwise read and written one chunk at a time (in-kernel copies move up to
/// ``inKernelChunk`` per call, as no user memory is used); small segments are gathered into
/// one chunk-sized buffer.
enum DiskOutput {
    /// The most bytes one in-kernel copy moves. No user-space buffer is involved, so this
    /// need not be the chunk size; fewer calls bring the copy close to `cp`, which moves a
    /// whole file with one `copy_file_range(2)`.
    static let inKernelChunk = 64 << 20

    /// Encodes `layout` into the file at `url`, replacing any file there once complete.
    /// - Parameters:
    ///   - layout: The form's segments, in order.
    ///   - url: The destination, a `file:` URL in an existing directory.
    ///   - chunkSize: The size of the buffer small segments are gathered in, and of each write.
    /// - Throws: ``MultipartError/Code/writeFailed`` naming the destination or the partial
    ///   file, ``MultipartError/Code/cancelled``, or the error of the part that failed; the
    ///   partial file is then removed.
    static func write(_ layout: FormLayout, to url: URL, chunkSize: Int) async throws(MultipartError) {
        let output = try PartialFile(destination: url) { problem in
            MultipartError(
                .writeFailed, value: problem.path, reason: problem.reason, underlyingError: problem.underlyingError)
        }
        let destination = url.path
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        do throws(MultipartError) {
            var filled = 0
            func flush() throws(MultipartError) {
                guard filled > 0 else { return }
                try output.write(UnsafeRawBufferPointer(rebasing: buffer[0..<filled]))
                filled = 0
            }
            for segment in layout.segments {
                try checkCancellation(destination)
                var reader = try SegmentReader(segment, chunkSize: chunkSize)
                if let source = reader.file {
                    try flush()
                    try copyInKernel(from: source, to: output, reader: &reader, chunkSize: chunkSize)
                } else if let bytes = reader.wholeBytes, bytes.count >= chunkSize {
                    try flush()
                    try output.write(bytes)
                    reader.advance(by: bytes.count)
                }
                while reader.remaining > 0 {
                    try await reader.prepare()
                    let start = filled
                    filled += try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[start...]))
                    if filled == chunkSize {
                        try flush()
                        try checkCancellation(destination)
                    }
                }
                try await reader.finish()
            }
            try flush()
            _ = try output.commit()
        } catch {
            output.discard()
            throw error
        }
    }

    /// Copies the rest of a file part into `output` with `sendfile(2)` on Linux, from the
    /// part's descriptor at its current offset; elsewhere, or when the kernel cannot copy
    /// between these files, leaves it to the caller to read and write.
    private static func copyInKernel(
        from source: FileChunkReader, to output: PartialFile<MultipartError>, reader: inout SegmentReader,
        chunkSize: Int
    ) throws(MultipartError) {
        #if os(Linux)
        while reader.remaining > 0 {
            try checkCancellation(output.destination.path)
            let count = Int(min(Int64(max(chunkSize, inKernelChunk)), reader.remaining))
            let copied = sendfile(output.fileDescriptor, source.fileDescriptor, nil, count)
            if copied < 0 {
                switch errno {
                case EINTR: continue
                case EINVAL, ENOSYS, EOPNOTSUPP: return
                default:
                    throw MultipartError.system(
                        .writeFailed, value: output.path, doing: "copying from \(source.url.path) failed", errno: errno)
                }
            }
            // At 0 the file ended early: the reads that follow report it.
            guard copied > 0 else { return }
            reader.advance(by: copied)
        }
        #endif
    }

    /// Throws ``MultipartError/Code/cancelled`` naming `destination` once the task is cancelled.
    private static func checkCancellation(_ destination: String) throws(MultipartError) {
        if Task.isCancelled {
            throw MultipartError(.cancelled, value: destination, reason: "encoding to disk was cancelled")
        }
    }
}
