import Foundation
import HTTPCore

/// Reads a file body straight into URLSession's buffer, as `InputStream(url:)` would, but
/// through HTTPCore's length-checked ``FileChunkReader``.
///
/// No task and no copy in between: a file read never waits for anything but the disk,
/// so it cannot hold URLSession's work queue for long. A file that turns out shorter or
/// longer than its declared length fails the request with
/// ``HTTPCoreError/Code/bodyLengthMismatch`` instead of sending a different body.
final class URLSessionFileBodyReader: URLSessionBodySource {
    private struct State {
        var reader: FileChunkReader?
        var ended = false
        var failed = false
        var closed = false
    }

    private let url: URL
    private let size: Int64
    private let onFailure: @Sendable (any Error) -> Void
    private let state = Locked(State())

    /// Creates a reader; the file is opened by ``start()`` or the first read.
    /// - Parameters:
    ///   - url: The file.
    ///   - size: The number of bytes to send, the body's known length.
    ///   - onFailure: Called once when the file cannot be read as declared.
    init(url: URL, size: Int64, onFailure: @escaping @Sendable (any Error) -> Void) {
        self.url = url
        self.size = size
        self.onFailure = onFailure
    }

    func start() {
        if let error = state.withLock({ open(&$0) }) { onFailure(error) }
    }

    /// Opens the file unless it is open or the reader is over. Call under the lock.
    private func open(_ state: inout State) -> HTTPCoreError? {
        guard state.reader == nil, !state.failed, !state.closed, !state.ended else { return nil }
        do throws(HTTPCoreError) {
            state.reader = try FileChunkReader(url: url, expectedSize: size)
            return nil
        } catch {
            state.failed = true
            return error
        }
    }

    var hasBytesAvailable: Bool {
        state.withLock { !$0.ended || $0.failed || $0.closed }
    }

    func read(into buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
        let result: Result<Int, HTTPCoreError> = state.withLock { state in
            if let error = open(&state) { return .failure(error) }
            guard !state.failed, !state.closed, let reader = state.reader else { return .success(-1) }
            guard !state.ended, maxLength > 0 else { return .success(0) }
            do throws(HTTPCoreError) {
                let count = try reader.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: maxLength))
                if count == 0 {
                    state.ended = true
                    reader.close()
                }
                return .success(count)
            } catch {
                state.failed = true
                return .failure(error)
            }
        }
        switch result {
        case .success(let count): return count
        case .failure(let error):
            onFailure(error)
            return -1
        }
    }

    func close() {
        state.withLock { state in
            state.closed = true
            state.reader?.close()
            state.reader = nil
        }
    }
}
