import Foundation

/// Hands an `InputStream` to exactly one reader, and reads it safely.
///
/// `@unchecked Sendable`: `stream` is only touched by the one caller that ``take()``
/// returned `true` to; `taken` is read and written under `lock`.
final class InputStreamSource: @unchecked Sendable {
    private let stream: InputStream
    private let lock = NSLock()
    private var taken = false

    init(_ stream: InputStream) { self.stream = stream }

    /// Claims the stream; `false` when an earlier encoding already did.
    func take() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if taken { return false }
        taken = true
        return true
    }

    /// Opens the stream if it is not open yet.
    func open() {
        if stream.streamStatus == .notOpen { stream.open() }
    }

    /// Reads up to `buffer.count` bytes; 0 at the end of the stream.
    ///
    /// `streamError` is read only after `read` returned a negative count *and* the stream
    /// is in its error state: on swift-corelibs-foundation reading it from a stream without
    /// an error traps (SIGILL), and `read` also returns -1 without an error, for instance
    /// from a stream the caller closed before encoding.
    func read(into buffer: UnsafeMutableRawBufferPointer, label: String) throws(MultipartError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        let count = stream.read(base.assumingMemoryBound(to: UInt8.self), maxLength: buffer.count)
        if count < 0 {
            let status = stream.streamStatus
            let underlying = status == .error ? stream.streamError : nil
            let reason: String
            if let underlying {
                reason = "the input stream failed: \(underlying)"
            } else if status == .closed {
                reason = "the input stream was closed before the form read it"
            } else {
                reason = "the input stream cannot be read (read returned \(count), status \(status.rawValue))"
            }
            throw MultipartError(
                .streamFailed, value: label, reason: reason,
                underlyingError: underlying.map { StreamFailure(description: "\($0)") })
        }
        return count
    }

    /// Closes the stream.
    func close() { stream.close() }
}

/// The description of a stream's error, kept as text because `Error` from a stream is not `Sendable`.
struct StreamFailure: Error, Sendable, CustomStringConvertible {
    let description: String
}
