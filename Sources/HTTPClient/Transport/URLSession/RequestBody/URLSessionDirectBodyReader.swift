import Foundation
import HTTPCore

/// Reads a file body, or a body made from `InputStream`s, straight into URLSession's
/// buffer: no task, no copy and no thread in between, as when URLSession is given a file's
/// stream itself.
///
/// A file is read through HTTPCore's length-checked ``FileChunkReader``; a stream body
/// through `HTTPBody/makeInputStream()`, HTTPCore's checked stream, which keeps to the
/// declared length. Either way a body that is shorter or longer than declared, or that
/// cannot be read, fails the request with that ``HTTPCoreError``. The source is opened on
/// the first read and read outside the lock, on URLSession's thread, so ``close()``
/// returns at once; a source closed during a read is closed when the read returns. A
/// stream's read may wait for another thread (a pipe it writes), holding URLSession's work
/// queue meanwhile: the transport never waits for that queue on a caller's thread.
final class URLSessionDirectBodyReader: URLSessionBodySource {
    /// Where the bytes come from.
    enum Origin: Sendable {
        /// The regular file at this URL, `size` bytes long.
        case file(URL, size: Int64)
        /// The body's own `InputStream`s.
        case inputStream(HTTPBody)
    }

    private enum Source {
        case file(FileChunkReader)
        case stream(InputStream)

        func close() {
            switch self {
            case .file(let reader): reader.close()
            case .stream(let stream): stream.close()
            }
        }
    }

    private struct State {
        var source: Source?
        var busy = false
        var ended = false
        var failed = false
        var closed = false
    }

    private let origin: Origin
    private let onFailure: @Sendable (any Error) -> Void
    private let state = Locked(State())

    /// Creates a reader; the source is opened by ``start()`` or the first read.
    /// - Parameters:
    ///   - origin: The file, or the body whose `HTTPBody/makesInputStreams` is `true`.
    ///   - onFailure: Called once when the source cannot be opened or read as declared.
    init(_ origin: Origin, onFailure: @escaping @Sendable (any Error) -> Void) {
        self.origin = origin
        self.onFailure = onFailure
    }

    deinit { state.withLock { $0.source }?.close() }

    func start() {
        guard begin() else { return }
        var failure: (any Error)?
        do { _ = try openedSource() } catch { failure = error }
        end(count: 0, failure: failure, closeAfter: false)
    }

    var hasBytesAvailable: Bool { state.withLock { !$0.ended } }

    func read(into buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
        guard maxLength > 0 else { return 0 }
        guard begin() else { return state.withLock { $0.ended } ? 0 : -1 }
        var count = -1
        var failure: (any Error)?
        do {
            switch try openedSource() {
            case .file(let reader):
                count = try reader.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: maxLength))
            case .stream(let stream):
                count = stream.read(buffer, maxLength: maxLength)
                if count < 0 {
                    failure =
                        stream.streamError
                        ?? HTTPCoreError(.unreadableStream, value: "stream", reason: "reading the input stream failed")
                }
            }
        } catch {
            failure = error
        }
        return end(count: count, failure: failure, closeAfter: true)
    }

    func close() {
        // A read in progress closes the source when it returns.
        let idle = state.withLock { state in
            state.closed = true
            return state.busy ? nil : state.source
        }
        idle?.close()
    }

    /// Claims the source for one call; `false` once the reader ended, failed or closed.
    private func begin() -> Bool {
        state.withLock { state in
            guard !state.busy, !state.ended, !state.failed, !state.closed else { return false }
            state.busy = true
            return true
        }
    }

    /// The source, opened now if it is not yet: outside the lock, as opening a stream runs
    /// the application's code. Call between ``begin()`` and ``end(count:failure:closeAfter:)``.
    private func openedSource() throws -> Source {
        if let source = state.withLock({ $0.source }) { return source }
        let source: Source
        switch origin {
        case .file(let url, let size):
            source = .file(try FileChunkReader(url: url, expectedSize: size))
        case .inputStream(let body):
            guard let stream = try body.makeInputStream() else {
                throw HTTPCoreError(.unreadableStream, value: "stream", reason: "the body has no input stream")
            }
            stream.open()
            source = .stream(stream)
            if stream.streamStatus == .error {
                stream.close()
                throw stream.streamError
                    ?? HTTPCoreError(.unreadableStream, value: "stream", reason: "the input stream did not open")
            }
        }
        state.withLock { $0.source = source }
        return source
    }

    /// Ends the call ``begin()`` claimed: records the end or the failure, closes the source
    /// at the end or if the reader was closed meanwhile, and reports a failure.
    /// - Returns: What `read` returns: `count`, or -1 on failure.
    @discardableResult
    private func end(count: Int, failure: (any Error)?, closeAfter: Bool) -> Int {
        let (report, closing) = state.withLock { state in
            state.busy = false
            if failure != nil || count < 0 { state.failed = true }
            if count == 0, closeAfter { state.ended = true }
            return (failure != nil && !state.closed, state.closed || state.ended ? state.source : nil)
        }
        closing?.close()
        if report, let failure { onFailure(failure) }
        return failure == nil ? count : -1
    }
}
