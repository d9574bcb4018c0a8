import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a regular file that must hold exactly a declared number of bytes, through a raw
/// POSIX descriptor; the one file reader of HTTPCore's file bodies, HTTPMultipart's file
/// parts and HTTPClient's uploads (hence `package`).
///
/// One `read(2)` per call, on the caller's buffer: no `FileHandle` and no `InputStream` (on
/// swift-corelibs-foundation reading `streamError` of a healthy stream traps). The file is
/// opened with `O_NONBLOCK`, so a file replaced by a FIFO since its size was taken fails at
/// once instead of waiting for a writer, and `fstat(2)` refuses anything but a regular file.
/// A file that ends before the declared length, or still has bytes after it, fails the read
/// with ``HTTPCoreError/Code/bodyLengthMismatch``: a body that announced its length must not
/// silently send part of a different file.
///
/// Not `Sendable`: a reader belongs to one reading task. The descriptor is closed by
/// ``close()`` or when the reader is released.
package final class FileChunkReader {
    /// The file being read.
    package let url: URL
    /// The open descriptor, for callers that move bytes with an in-kernel copy
    /// (`sendfile(2)`); such a caller reports what it moved with ``advance(by:)``. It is -1
    /// once the reader is closed.
    package private(set) var fileDescriptor: Int32
    private let expectedSize: Int64
    private var remaining: Int64
    private var checkedEnd = false

    /// Opens the regular file at `url`, which should hold `expectedSize` bytes.
    ///
    /// The size is not compared now: a file that changed since is found out by the reads, so
    /// the bytes read before the difference show are still delivered.
    /// - Parameters:
    ///   - url: A `file:` URL of a regular file.
    ///   - expectedSize: The number of bytes the file must hold, as taken with
    ///     ``regularFileSize(at:)`` when the body or part was made.
    /// - Throws: ``HTTPCoreError/Code/unreadableFile`` naming the path when the file cannot
    ///   be opened or is no longer a regular file.
    package init(url: URL, expectedSize: Int64) throws(HTTPCoreError) {
        self.url = url
        self.expectedSize = expectedSize
        self.remaining = expectedSize
        let path = url.path
        fileDescriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fileDescriptor >= 0 else {
            throw Self.unreadable(RegularFile.systemProblem(path, "cannot open for reading", errno))
        }
        var info = stat()
        if fstat(fileDescriptor, &info) != 0 {
            let problem = RegularFile.systemProblem(path, "cannot stat", errno)
            close()
            throw Self.unreadable(problem)
        }
        if (info.st_mode & S_IFMT) != S_IFREG {
            close()
            throw HTTPCoreError(
                .unreadableFile, value: path, reason: "no longer a regular file; it was replaced after it was added")
        }
    }

    deinit { close() }

    /// Closes the descriptor; later calls do nothing.
    package func close() {
        guard fileDescriptor >= 0 else { return }
        _ = systemClose(fileDescriptor)
        fileDescriptor = -1
    }

    /// Reads the next bytes of the file into `buffer` with one `read(2)`, retrying on `EINTR`.
    ///
    /// Reads at most the bytes left of the declared length. Once they have all been read, the
    /// next call reads once more (into a byte of its own, whatever the size of `buffer`) to
    /// check that the file ends there, and returns 0.
    /// - Parameter buffer: Where to put the bytes.
    /// - Returns: The number of bytes read, more than 0 until the declared end; 0 at the
    ///   declared end, or when `buffer` is empty.
    /// - Throws: ``HTTPCoreError/Code/bodyLengthMismatch`` naming the path when the file ends
    ///   early or holds more than the declared length; ``HTTPCoreError/Code/unreadableFile``
    ///   when reading fails or the reader was closed.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(HTTPCoreError) -> Int {
        guard remaining > 0 else {
            try checkAtEnd()
            return 0
        }
        let want = Int(min(Int64(buffer.count), remaining))
        guard want > 0, let base = buffer.baseAddress else { return 0 }
        let count = try readSystem(base, want)
        guard count > 0 else {
            throw HTTPCoreError(
                .bodyLengthMismatch, value: url.path,
                reason: "file ended after \(expectedSize - remaining) of its \(expectedSize) bytes")
        }
        remaining -= Int64(count)
        return count
    }

    /// The next chunk of at most `count` bytes, read with ``read(into:)``; `nil` after
    /// exactly the declared length.
    /// - Parameter count: The largest chunk to read.
    /// - Returns: A non-empty chunk, or `nil` at the declared end.
    /// - Throws: ``HTTPCoreError`` as ``read(into:)`` does.
    package func read(upTo count: Int) throws(HTTPCoreError) -> Data? {
        let want = Int(min(Int64(max(count, 1)), remaining))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(want, 1), alignment: 16)
        var handedOver = false
        defer { if !handedOver { buffer.deallocate() } }
        let read = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]))
        guard read > 0, let base = buffer.baseAddress else { return nil }
        handedOver = true
        return Data(bytesNoCopy: base, count: read, deallocator: .custom { pointer, _ in pointer.deallocate() })
    }

    /// Counts `count` bytes that were taken from ``fileDescriptor`` without ``read(into:)``
    /// (by an in-kernel copy) toward the declared length.
    /// - Parameter count: The bytes moved, at most those left of the declared length.
    package func advance(by count: Int) {
        precondition(count >= 0 && Int64(count) <= remaining, "advanced past the declared length")
        remaining -= Int64(count)
    }

    /// The size of the readable regular file at `url`, from `stat` (following a symbolic link).
    /// - Parameter url: A `file:` URL.
    /// - Returns: The size in bytes.
    /// - Throws: ``HTTPCoreError/Code/unreadableFile`` naming the path when the file is
    ///   missing, not a regular file or not readable.
    package static func regularFileSize(at url: URL) throws(HTTPCoreError) -> Int64 {
        switch RegularFile.size(at: url) {
        case .success(let size): return size
        case .failure(let problem): throw unreadable(problem)
        }
    }

    /// Throws when the file holds more than the declared length; checked once, at the end.
    private func checkAtEnd() throws(HTTPCoreError) {
        guard !checkedEnd else { return }
        checkedEnd = true
        var extra: UInt8 = 0
        if try readSystem(&extra, 1) > 0 {
            throw HTTPCoreError(
                .bodyLengthMismatch, value: url.path,
                reason: "file grew past its \(expectedSize) bytes after the body was created")
        }
    }

    /// One `read(2)` of up to `count` bytes, retried on `EINTR`.
    private func readSystem(_ base: UnsafeMutableRawPointer, _ count: Int) throws(HTTPCoreError) -> Int {
        guard fileDescriptor >= 0 else {
            throw HTTPCoreError(.unreadableFile, value: url.path, reason: "read after the file was closed")
        }
        while true {
            let result = systemRead(fileDescriptor, base, count)
            if result >= 0 { return result }
            if errno != EINTR { throw Self.unreadable(RegularFile.systemProblem(url.path, "read failed", errno)) }
        }
    }

    private static func unreadable(_ problem: RegularFile.Problem) -> HTTPCoreError {
        HTTPCoreError(.unreadableFile, value: problem.path, reason: problem.reason)
    }
}

// Free functions: inside the class, `read` and `close` name its own methods.

private func systemRead(_ descriptor: Int32, _ base: UnsafeMutableRawPointer, _ count: Int) -> Int {
    #if canImport(Darwin)
    return Darwin.read(descriptor, base, count)
    #elseif canImport(Musl)
    return Musl.read(descriptor, base, count)
    #else
    return Glibc.read(descriptor, base, count)
    #endif
}

/// Closes `descriptor` with `close(2)`; for ``PartialFile`` too.
/// - Parameter descriptor: An open descriptor.
/// - Returns: 0, or -1 with `errno` set.
func systemClose(_ descriptor: Int32) -> Int32 {
    #if canImport(Darwin)
    return Darwin.close(descriptor)
    #elseif canImport(Musl)
    return Musl.close(descriptor)
    #else
    return Glibc.close(descriptor)
    #endif
}
