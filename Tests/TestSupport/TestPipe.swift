import Foundation

/// A pipe whose reading end is opened by path, as an `InputStream(fileAtPath:)` body
/// would open it, and whose writing end the test feeds (or stalls).
///
/// ```swift
/// let pipe = TestPipe()
/// pipe.feedSlowly(chunks: 5, size: 3000, every: 0.05)  // on a thread of its own
/// let stream = InputStream(fileAtPath: pipe.path)
/// ```
public final class TestPipe: Sendable {
    private let pipe = Pipe()

    /// A path that opens the reading end (`/dev/fd/N`).
    public let path: String

    /// Creates a pipe.
    public init() {
        path = "/dev/fd/\(pipe.fileHandleForReading.fileDescriptor)"
    }

    /// Writes `data` now.
    public func write(_ data: Data) { pipe.fileHandleForWriting.write(data) }

    /// Closes the writing end: readers then see the end of the stream.
    public func closeWriting() { try? pipe.fileHandleForWriting.close() }

    /// On a thread of its own, writes `chunks` chunks of `size` bytes (chunk `i` filled with
    /// the byte `i`), one every `interval` seconds, then closes the writing end.
    public func feedSlowly(chunks: Int, size: Int, every interval: TimeInterval) {
        Thread {
            for index in 0..<chunks {
                Thread.sleep(forTimeInterval: interval)
                self.write(Data(repeating: UInt8(truncatingIfNeeded: index), count: size))
            }
            self.closeWriting()
        }.start()
    }
}
