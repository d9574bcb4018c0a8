import Foundation
import HTTPCore

/// Reads a body made from `InputStream`s (``HTTPBody/makesInputStreams``) straight into
/// URLSession's buffer: no task, no copy and no thread in between, as when URLSession is
/// given the stream itself.
///
/// The stream comes from ``HTTPBody/makeInputStream()``: HTTPCore's checked stream, which
/// keeps to the declared length, reports an ``HTTPCoreError``, and can be closed while a
/// read waits (the read then fails; the application's stream is closed when it returns).
/// A failure fails the request with that error. The stream is made, opened and read
/// outside the lock, on URLSession's thread, so ``close()`` returns at once. Such a read
/// may wait for another thread (a pipe it writes): the transport counts the transfer in
/// ``URLSessionBodyPump/gate`` until its task completes.
final class URLSessionInputStreamReader: URLSessionBodySource {
    private struct State {
        var stream: InputStream?
        var opening = false
        var ended = false
        var failed = false
        var closed = false
    }

    private let body: HTTPBody
    private let onFailure: @Sendable (any Error) -> Void
    private let state = Locked(State())

    /// Creates a reader; the stream is made and opened by ``start()`` or the first read.
    /// - Parameters:
    ///   - body: A body whose ``HTTPBody/makesInputStreams`` is `true`.
    ///   - onFailure: Called once when the stream cannot be made or read as declared.
    init(body: HTTPBody, onFailure: @escaping @Sendable (any Error) -> Void) {
        self.body = body
        self.onFailure = onFailure
    }

    deinit { state.withLock { $0.stream }?.close() }

    func start() { _ = openedStream() }

    /// The open stream, made and opened on first use; `nil` once the reader failed or closed.
    private func openedStream() -> InputStream? {
        let (stream, make) = state.withLock { state in
            guard state.stream == nil, !state.opening, !state.failed, !state.closed else {
                return (state.stream, false)
            }
            state.opening = true
            return (nil, true)
        }
        guard make else { return stream }
        var made: InputStream?
        var failure: (any Error)?
        do {
            made = try body.makeInputStream()
            made?.open()
            if made?.streamStatus == .error { failure = made?.streamError }
            if made == nil || failure != nil {
                failure =
                    failure
                    ?? HTTPCoreError(.unreadableStream, value: "stream", reason: "the input stream did not open")
            }
        } catch {
            failure = error
        }
        let keep = state.withLock { state in
            state.opening = false
            guard !state.closed, failure == nil else {
                state.failed = failure != nil
                return false
            }
            state.stream = made
            return true
        }
        if let failure { onFailure(failure) }
        if !keep { made?.close() }
        return keep ? made : nil
    }

    var hasBytesAvailable: Bool { state.withLock { !$0.ended } }

    func read(into buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
        guard let stream = openedStream() else { return -1 }
        guard maxLength > 0, !state.withLock({ $0.ended }) else { return 0 }
        let count = stream.read(buffer, maxLength: maxLength)
        let report = state.withLock { state in
            if count == 0 { state.ended = true }
            guard count < 0, !state.closed, !state.failed else { return false }
            state.failed = true
            return true
        }
        if report {
            onFailure(
                stream.streamError
                    ?? HTTPCoreError(.unreadableStream, value: "stream", reason: "reading the input stream failed"))
        }
        return count < 0 ? -1 : count
    }

    func close() {
        let stream = state.withLock { state in
            state.closed = true
            return state.stream
        }
        stream?.close()
    }
}
