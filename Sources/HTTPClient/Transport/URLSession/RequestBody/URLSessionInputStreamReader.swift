import Foundation
import HTTPCore

/// Reads a body made from `InputStream`s (``HTTPBody/makesInputStreams``) straight into
/// URLSession's buffer: no task, no copy and no thread in between, as when URLSession is
/// given the stream itself.
///
/// The stream comes from ``HTTPBody/makeInputStream()``, which keeps to the declared length
/// and reports an ``HTTPCoreError``; a failure fails the request with that error. A stream's
/// `read` (or the application's factory, or `open`) may wait for another thread (a pipe it
/// writes), so the reader counts as a pump for ``URLSessionBodyPump/gate`` for as long as
/// any of them may still hold URLSession's work queue: until ``close()`` *and* the end of a
/// call in progress, which cannot be interrupted. None of them runs under `lock`, so
/// ``close()`` (called on cancellation and at a deadline) returns at once.
///
final class URLSessionInputStreamReader: URLSessionBodySource {
    /// What the lock guards. The stream is made, opened and read outside the lock, by one
    /// thread at a time (`busy`).
    private struct State {
        var stream: InputStream?
        /// A call into the application's stream (make and open, or read) is in progress.
        var busy = false
        var ended = false
        var failed = false
        var closed = false
        /// Whether this reader still counts in ``URLSessionBodyPump/gate``.
        var holdsGate = true

        /// Stops counting in the gate, once: returns whether the caller must tell the gate.
        mutating func releaseGate() -> Bool {
            guard holdsGate else { return false }
            holdsGate = false
            return true
        }
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
        URLSessionBodyPump.gate.pumpCreated()
    }

    deinit {
        let (stream, release) = state.withLock { state in
            defer { state.stream = nil }
            return (state.stream, state.releaseGate())
        }
        stream?.close()
        if release { URLSessionBodyPump.gate.pumpClosed() }
    }

    func start() {
        if let error = open() { onFailure(error) }
    }

    /// Makes and opens the stream unless it exists, is being made, or the reader is over.
    /// - Returns: The error that made it fail, to report.
    private func open() -> (any Error)? {
        let begin = state.withLock { state in
            guard state.stream == nil, !state.busy, !state.failed, !state.closed else { return false }
            state.busy = true
            return true
        }
        guard begin else { return nil }
        var made: InputStream?
        var failure: (any Error)?
        do {
            made = try body.makeInputStream()
            if let made {
                made.open()
                if made.streamStatus == .error {
                    failure =
                        made.streamError
                        ?? HTTPCoreError(.unreadableStream, value: "stream", reason: "opening the input stream failed")
                }
            } else {
                failure = HTTPCoreError(.unreadableStream, value: "stream", reason: "the body has no input stream")
            }
        } catch {
            failure = error
        }
        let (closed, release) = state.withLock { state in
            state.busy = false
            if state.closed { return (true, state.releaseGate()) }
            if failure != nil { state.failed = true } else { state.stream = made }
            return (false, false)
        }
        guard closed else { return failure }
        made?.close()
        if release { URLSessionBodyPump.gate.pumpClosed() }
        return nil
    }

    var hasBytesAvailable: Bool { state.withLock { !$0.ended } }

    func read(into buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
        if let error = open() {
            onFailure(error)
            return -1
        }
        enum Begin {
            case result(Int)
            case read(InputStream)
        }
        let begin: Begin = state.withLock { state in
            guard !state.failed, !state.closed, !state.busy, let stream = state.stream else { return .result(-1) }
            guard !state.ended, maxLength > 0 else { return .result(0) }
            state.busy = true
            return .read(stream)
        }
        let stream: InputStream
        switch begin {
        case .result(let count): return count
        case .read(let reading): stream = reading
        }
        let count = stream.read(buffer, maxLength: maxLength)
        let (closed, release, failed) = state.withLock { state in
            state.busy = false
            if state.closed {
                state.stream = nil
                return (true, state.releaseGate(), false)
            }
            if count == 0 {
                state.ended = true
            } else if count < 0 {
                state.failed = true
            }
            return (false, false, count < 0)
        }
        if closed {
            stream.close()
            if release { URLSessionBodyPump.gate.pumpClosed() }
            return -1
        }
        if failed {
            onFailure(
                stream.streamError
                    ?? HTTPCoreError(.unreadableStream, value: "stream", reason: "reading the input stream failed"))
        }
        return count < 0 ? -1 : count
    }

    func close() {
        // A call in progress may still hold URLSession's work queue: it closes the stream and
        // leaves the gate when it returns.
        let (idle, release) = state.withLock { state in
            state.closed = true
            guard !state.busy else { return (InputStream?.none, false) }
            defer { state.stream = nil }
            return (state.stream, state.releaseGate())
        }
        idle?.close()
        if release { URLSessionBodyPump.gate.pumpClosed() }
    }
}
