import Foundation
import HTTPCore
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file body straight into `ByteBuffer`s, with no `Data` in between, and keeps to the
/// length the body declared: a file that shrank or grew since the body was made fails with
/// ``HTTPCoreError/Code/bodyLengthMismatch`` naming its path, rather than sending part of a
/// different file.
///
/// Reads block their thread (a regular file's `read` waits for the disk only). One reader is
/// used by one task at a time; `close` runs once.
final class FileBodyReader {
    private let path: String
    private let size: Int64
    private var descriptor: Int32
    private var offset: Int64 = 0

    /// Opens the file at `url`, which the body said holds `size` bytes.
    /// - Throws: ``HTTPCoreError/Code/unreadableFile`` naming the path when it cannot be opened.
    init(url: URL, size: Int64) throws(HTTPCoreError) {
        path = url.path
        self.size = size
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw HTTPCoreError(
                .unreadableFile, value: path, reason: "cannot open it: \(String(cString: strerror(errno)))")
        }
    }

    deinit { close() }

    /// Closes the file; reads after it return `nil`.
    func close() {
        guard descriptor >= 0 else { return }
        _ = systemClose(descriptor)
        descriptor = -1
    }

    /// The next chunk of at most `chunkSize` bytes, or `nil` at the declared end.
    /// - Throws: ``HTTPCoreError/Code/bodyLengthMismatch`` when the file ends before its declared
    ///   length or goes on past it; ``HTTPCoreError/Code/unreadableFile`` when a read fails.
    func read(chunkSize: Int, allocator: ByteBufferAllocator) throws(HTTPCoreError) -> ByteBuffer? {
        guard descriptor >= 0 else { return nil }
        let wanted = Int(min(Int64(chunkSize), size - offset))
        guard wanted > 0 else {
            // At the declared length: the file must end here.
            var probe: UInt8 = 0
            let extra = systemRead(descriptor, &probe, 1)
            close()
            if extra > 0 {
                throw HTTPCoreError(
                    .bodyLengthMismatch, value: path,
                    reason: "the file grew past the \(size) bytes it had when the body was made")
            }
            return nil
        }
        var buffer = allocator.buffer(capacity: wanted)
        var failure: Int32 = 0
        while buffer.readableBytes < wanted {
            let missing = wanted - buffer.readableBytes
            let count = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 0) { raw in
                let room = min(raw.count, missing)
                let read = systemRead(descriptor, raw.baseAddress, room)
                if read < 0 { failure = errno }
                return max(0, read)
            }
            if failure == EINTR {
                failure = 0
                continue
            }
            if failure != 0 {
                close()
                throw HTTPCoreError(
                    .unreadableFile, value: path, reason: "reading it failed: \(String(cString: strerror(failure)))")
            }
            if count == 0 {
                let got = offset + Int64(buffer.readableBytes)
                close()
                throw HTTPCoreError(
                    .bodyLengthMismatch, value: path,
                    reason: "the file ended after \(got) of the \(size) bytes it had when the body was made")
            }
        }
        offset += Int64(buffer.readableBytes)
        return buffer
    }
}

/// `read(2)` of the C library, whichever it is.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.read(descriptor, buffer, count)
    #elseif canImport(Musl)
    Musl.read(descriptor, buffer, count)
    #else
    Darwin.read(descriptor, buffer, count)
    #endif
}

/// `close(2)` of the C library, whichever it is.
private func systemClose(_ descriptor: Int32) -> Int32 {
    #if canImport(Glibc)
    Glibc.close(descriptor)
    #elseif canImport(Musl)
    Musl.close(descriptor)
    #else
    Darwin.close(descriptor)
    #endif
}
