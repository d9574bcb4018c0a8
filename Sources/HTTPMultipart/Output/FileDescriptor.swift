import Foundation
import HTTPCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A POSIX file descriptor, closed when the value is released.
///
/// The encoder reads and writes files with `read(2)` and `write(2)` on large buffers
/// (and, on Linux, copies file parts into an output file with `sendfile(2)`), never with
/// `Stream`: one system call per chunk, and no `streamError` to trap on Linux.
final class FileDescriptor {
    let raw: Int32
    let path: String
    private var isOpen = true

    private init(raw: Int32, path: String) {
        self.raw = raw
        self.path = path
    }

    deinit {
        if isOpen { _ = systemClose(raw) }
    }

    /// Closes the descriptor, reporting a failure (which for an output file can mean lost data).
    func close() throws(MultipartError) {
        guard isOpen else { return }
        isOpen = false
        guard systemClose(raw) == 0 else {
            throw MultipartError.system(.writeFailed, value: path, doing: "close failed", errno: errno)
        }
    }

    /// Opens the regular file at `url` for reading and returns it with its current size.
    ///
    /// The file was checked to be regular when its part was added, but it may have been
    /// replaced since: `O_NONBLOCK` keeps `open(2)` from waiting for a writer should it now
    /// be a FIFO, and `fstat(2)` refuses anything that is not a regular file (the flag has
    /// no effect on reading a regular file).
    static func openRegularFileForReading(_ url: URL) throws(MultipartError) -> (FileDescriptor, size: Int64) {
        let path = url.path
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            throw MultipartError.system(.unreadableFile, value: path, doing: "cannot open for reading", errno: errno)
        }
        let descriptor = FileDescriptor(raw: fd, path: path)
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw MultipartError.system(.unreadableFile, value: path, doing: "cannot stat", errno: errno)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw MultipartError(
                .unreadableFile, value: path, reason: "no longer a regular file; it was replaced after it was added")
        }
        return (descriptor, Int64(info.st_size))
    }

    /// Creates `path` for writing; fails if it exists.
    static func createExclusively(_ path: String) throws(MultipartError) -> FileDescriptor {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw MultipartError.system(.writeFailed, value: path, doing: "cannot create the output file", errno: errno)
        }
        return FileDescriptor(raw: fd, path: path)
    }

    /// Reads up to `buffer.count` bytes, retrying on `EINTR`; 0 means end of file.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(MultipartError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            #if canImport(Darwin)
            let count = Darwin.read(raw, base, buffer.count)
            #elseif canImport(Musl)
            let count = Musl.read(raw, base, buffer.count)
            #else
            let count = Glibc.read(raw, base, buffer.count)
            #endif
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw MultipartError.system(.unreadableFile, value: path, doing: "read failed", errno: errno)
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

    /// Copies up to `count` bytes from `source` at its current offset with an in-kernel copy.
    /// - Returns: The bytes copied (0 at the end of `source`), or `nil` when the kernel
    ///   cannot copy between these files and the caller must read and write instead.
    func copyInKernel(from source: FileDescriptor, count: Int) throws(MultipartError) -> Int? {
        #if os(Linux)
        while true {
            let copied = sendfile(raw, source.raw, nil, count)
            if copied >= 0 { return copied }
            switch errno {
            case EINTR: continue
            case EINVAL, ENOSYS, EOPNOTSUPP: return nil
            default:
                throw MultipartError.system(
                    .writeFailed, value: path, doing: "copying from \(source.path) failed", errno: errno)
            }
        }
        #else
        return nil
        #endif
    }

    /// The size of the regular file at `url`, from `stat`, checked readable (HTTPCore's check).
    static func regularFileSize(at url: URL) throws(MultipartError) -> Int64 {
        switch RegularFile.size(at: url) {
        case .success(let size):
            return size
        case .failure(let problem):
            throw MultipartError(
                .unreadableFile, value: problem.path, reason: problem.reason,
                underlyingError: problem.errorNumber.flatMap { POSIXErrorCode(rawValue: $0) }.map { POSIXError($0) })
        }
    }
}

private func systemClose(_ descriptor: Int32) -> Int32 {
    #if canImport(Darwin)
    return Darwin.close(descriptor)
    #elseif canImport(Musl)
    return Musl.close(descriptor)
    #else
    return Glibc.close(descriptor)
    #endif
}
