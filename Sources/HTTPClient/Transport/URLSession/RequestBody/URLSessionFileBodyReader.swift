import Foundation
import HTTPCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file body straight into URLSession's buffer, as `InputStream(url:)` would, but
/// checking the length the body declared.
///
/// No task and no copy in between: a file read never waits for anything but the disk,
/// so it cannot hold URLSession's work queue for long. A file that turns out shorter than
/// its declared length fails the request with ``HTTPCoreError/Code/bodyLengthMismatch``
/// instead of sending a short body; bytes past the declared length are not sent.
///
/// `@unchecked Sendable`: every mutable property is read and written under `lock`.
final class URLSessionFileBodyReader: URLSessionBodySource, @unchecked Sendable {
    private let url: URL
    private let size: Int64
    private let onFailure: @Sendable (any Error) -> Void
    private let lock = NSLock()
    private var handle: FileHandle?
    private var remaining: Int64
    private var failed = false
    private var closed = false

    /// Creates a reader; the file is opened by ``start()`` or the first read.
    /// - Parameters:
    ///   - url: The file.
    ///   - size: The number of bytes to send, the body's known length.
    ///   - onFailure: Called once when the file cannot be read as declared.
    init(url: URL, size: Int64, onFailure: @escaping @Sendable (any Error) -> Void) {
        self.url = url
        self.size = size
        self.remaining = size
        self.onFailure = onFailure
    }

    deinit { try? handle?.close() }

    func start() {
        lock.lock()
        let error = openLocked()
        lock.unlock()
        if let error { onFailure(error) }
    }

    /// Opens the file unless it is open or the reader is over. Call with the lock held.
    private func openLocked() -> HTTPCoreError? {
        guard handle == nil, !failed, !closed else { return nil }
        do {
            handle = try FileHandle(forReadingFrom: url)
            return nil
        } catch {
            failed = true
            return HTTPCoreError(.unreadableFile, value: url.path, reason: "cannot open for reading: \(error)")
        }
    }

    var hasBytesAvailable: Bool {
        lock.lock()
        defer { lock.unlock() }
        return remaining > 0 || failed || closed
    }

    func read(into buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
        lock.lock()
        if let error = openLocked() {
            lock.unlock()
            onFailure(error)
            return -1
        }
        guard !failed, !closed, let handle else {
            lock.unlock()
            return -1
        }
        guard remaining > 0, maxLength > 0 else {
            lock.unlock()
            return 0
        }
        let want = Int(min(Int64(maxLength), remaining))
        var count: Int
        repeat {
            count = systemRead(handle.fileDescriptor, buffer, want)
        } while count < 0 && errno == EINTR
        var failure: HTTPCoreError?
        if count > 0 {
            remaining -= Int64(count)
        } else {
            failed = true
            failure =
                count == 0
                ? HTTPCoreError(
                    .bodyLengthMismatch, value: url.path,
                    reason: "file ended after \(size - remaining) of its \(size) bytes")
                : HTTPCoreError(
                    .unreadableFile, value: url.path, reason: "read failed: \(String(cString: strerror(errno)))")
        }
        lock.unlock()
        if let failure {
            onFailure(failure)
            return -1
        }
        return count
    }

    func close() {
        lock.lock()
        closed = true
        let handle = self.handle
        self.handle = nil
        lock.unlock()
        try? handle?.close()
    }
}

/// `read(2)`, named apart from the reader's own `read`.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutablePointer<UInt8>, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
