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
/// The bytes go to a temporary file beside the destination (so the final `rename(2)`
/// stays on one file system), which replaces the destination only once it is complete.
/// On any failure the temporary file is removed. File parts are copied with an in-kernel
/// copy where the system has one (`sendfile(2)` on Linux), otherwise read and written
/// one chunk at a time (in-kernel copies move up to
/// ``inKernelChunk`` per call, as no user memory is used); small segments are gathered into one chunk-sized buffer.
enum DiskOutput {
    /// The most bytes one in-kernel copy moves. No user-space buffer is involved, so this
    /// need not be the chunk size; fewer calls bring the copy close to `cp`, which moves a
    /// whole file with one `copy_file_range(2)`.
    static let inKernelChunk = 64 << 20

    static func write(_ layout: FormLayout, to url: URL, chunkSize: Int) async throws(MultipartError) {
        guard url.isFileURL else {
            throw MultipartError(.writeFailed, value: url.absoluteString, reason: "the destination is not a file URL")
        }
        let destination = url.path
        let temporary =
            url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(UInt64.random(in: 0...UInt64.max)).partial").path
        let output: OutputFile
        do {
            output = try OutputFile.createExclusively(temporary)
        } catch {
            // Name the destination the caller gave; the temporary file is ours.
            throw MultipartError(
                .writeFailed, value: destination,
                reason: "cannot create the temporary file \(temporary) beside it: \(error.reason)",
                underlyingError: error.underlyingError)
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        do throws(MultipartError) {
            var filled = 0
            func flush() throws(MultipartError) {
                guard filled > 0 else { return }
                try output.writeAll(UnsafeRawBufferPointer(rebasing: buffer[0..<filled]))
                filled = 0
            }
            for segment in layout.segments {
                try checkCancellation(destination)
                var reader = try SegmentReader(segment, chunkSize: chunkSize)
                if let source = reader.file {
                    try flush()
                    try copyInKernel(
                        from: source, to: output, reader: &reader, chunkSize: chunkSize, destination: destination)
                } else if let bytes = reader.wholeBytes, bytes.count >= chunkSize {
                    try flush()
                    let written: Result<Void, MultipartError> = bytes.withUnsafeBytes { raw in
                        do throws(MultipartError) { return .success(try output.writeAll(raw)) } catch {
                            return .failure(error)
                        }
                    }
                    try written.get()
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
            try output.close()
            guard rename(temporary, destination) == 0 else {
                throw MultipartError.system(
                    .writeFailed, value: destination, doing: "cannot move the finished file into place", errno: errno)
            }
        } catch {
            try? output.close()
            unlink(temporary)
            throw error
        }
    }

    private static func copyInKernel(
        from source: FileChunkReader, to output: OutputFile, reader: inout SegmentReader, chunkSize: Int,
        destination: String
    ) throws(MultipartError) {
        while reader.remaining > 0 {
            try checkCancellation(destination)
            let count = Int(min(Int64(max(chunkSize, inKernelChunk)), reader.remaining))
            // At 0 the file ended early: the reads that follow report it.
            guard let copied = try output.copyInKernel(from: source, count: count), copied > 0 else { return }
            reader.advance(by: copied)
        }
    }

    private static func checkCancellation(_ destination: String) throws(MultipartError) {
        if Task.isCancelled {
            throw MultipartError(.cancelled, value: destination, reason: "encoding to disk was cancelled")
        }
    }
}
