import Foundation
import HTTPCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The file an encode to disk writes, as a POSIX descriptor closed when the value is released.
///
/// Written with `write(2)` on large buffers, and, on Linux, file parts are copied into it
/// with `sendfile(2)` from the descriptor of their `FileChunkReader`, HTTPCore's reader
/// that also checks their length.
final class OutputFile {
    private let raw: Int32
    /// The path, for messages.
    let path: String
    private var isOpen = true

    private init(raw: Int32, path: String) {
        self.raw = raw
        self.path = path
    }

    deinit {
        if isOpen { _ = systemClose(raw) }
    }

    /// Creates `path` for writing; fails if it exists.
    static func createExclusively(_ path: String) throws(MultipartError) -> OutputFile {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw MultipartError.system(.writeFailed, value: path, doing: "cannot create the output file", errno: errno)
        }
        return OutputFile(raw: fd, path: path)
    }

    /// Closes the file, reporting a failure (which can mean lost data).
    func close() throws(MultipartError) {
        guard isOpen else { return }
        isOpen = false
        guard systemClose(raw) == 0 else {
            throw MultipartError.system(.writeFailed, value: path, doing: "close failed", errno: errno)
        }
    }

    /// Writes all of `buffer`, retrying short writes and `EINTR`.
    func writeAll(_ buffer: UnsafeRawBufferPointer) throws(MultipartError) {
        guard var next = buffer.baseAddress else { return }
        var remaining = buffer.count
        while remaining > 0 {
            #if canImport(Darwin)
            let count = Darwin.write(raw, next, remaining)
            #elseif canImport(Musl)
            let count = Musl.write(raw, next, remaining)
            #else
            let count = Glibc.write(raw, next, remaining)
            #endif
            if count < 0 {
                if errno == EINTR { continue }
                throw MultipartError.system(.writeFailed, value: path, doing: "write failed", errno: errno)
            }
            remaining -= count
            next += count
        }
    }

    /// Copies up to `count` bytes from the descriptor of `source` at its current offset with
    /// an in-kernel copy; the caller counts them with `source.advance(by:)`.
    /// - Returns: The bytes copied (0 at the end of the file), or `nil` when the kernel
    ///   cannot copy between these files and the caller must read and write instead.
    func copyInKernel(from source: FileChunkReader, count: Int) throws(MultipartError) -> Int? {
        #if os(Linux)
        while true {
            let copied = sendfile(raw, source.fileDescriptor, nil, count)
            if copied >= 0 { return copied }
            switch errno {
            case EINTR: continue
            case EINVAL, ENOSYS, EOPNOTSUPP: return nil
            default:
                throw MultipartError.system(
                    .writeFailed, value: path, doing: "copying from \(source.url.path) failed", errno: errno)
            }
        }
        #else
        return nil
        #endif
    }
}
