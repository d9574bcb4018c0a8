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
    /// `streamError` is read only after `read` returned a negative count: on
    /// swift-corelibs-foundation reading it from a healthy stream traps (SIGILL).
    func read(into buffer: UnsafeMutableRawBufferPointer, label: String) throws(MultipartError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        let count = stream.read(base.assumingMemoryBound(to: UInt8.self), maxLength: buffer.count)
        if count < 0 {
            let underlying = stream.streamError
            throw MultipartError(
                .streamFailed, value: label,
                reason: "the input stream failed: \(underlying.map { "\($0)" } ?? "read returned \(count)")",
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
