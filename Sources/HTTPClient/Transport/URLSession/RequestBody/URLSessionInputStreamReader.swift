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
/// `@unchecked Sendable`: every mutable property is read and written under `lock`; the
/// stream is made, opened and read outside it, by one thread at a time.
final class URLSessionInputStreamReader: URLSessionBodySource, @unchecked Sendable {
    private let body: HTTPBody
    private let onFailure: @Sendable (any Error) -> Void
    private let lock = NSLock()
    private var stream: InputStream?
    /// A call into the application's stream (make and open, or read) is in progress.
    private var busy = false
    private var ended = false
    private var failed = false
    private var closed = false
    /// Whether this reader still counts in ``URLSessionBodyPump/gate``.
    private var holdsGate = true

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
        stream?.close()
        if holdsGate { URLSessionBodyPump.gate.pumpClosed() }
    }

    func start() {
        if let error = open() { onFailure(error) }
    }

    /// Makes and opens the stream unless it exists, is being made, or the reader is over.
    /// - Returns: The error that made it fail, to report.
    private func open() -> (any Error)? {
        lock.lock()
        guard stream == nil, !busy, !failed, !closed else {
            lock.unlock()
            return nil
        }
        busy = true
        lock.unlock()
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
        lock.lock()
        busy = false
        if closed {
            let release = releaseGateLocked()
            lock.unlock()
            made?.close()
            if release { URLSessionBodyPump.gate.pumpClosed() }
            return nil
        }
        if failure != nil { failed = true } else { stream = made }
        lock.unlock()
        return failure
    }

    var hasBytesAvailable: Bool {
        lock.lock()
        defer { lock.unlock() }
        return !ended
    }

    func read(into buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
        if let error = open() {
            onFailure(error)
            return -1
        }
        lock.lock()
        guard !failed, !closed, !busy, let stream else {
            lock.unlock()
            return -1
        }
        guard !ended, maxLength > 0 else {
            lock.unlock()
            return 0
        }
        busy = true
        lock.unlock()
        let count = stream.read(buffer, maxLength: maxLength)
        lock.lock()
        busy = false
        if closed {
            self.stream = nil
            let release = releaseGateLocked()
            lock.unlock()
            stream.close()
            if release { URLSessionBodyPump.gate.pumpClosed() }
            return -1
        }
        var failure: (any Error)?
        if count == 0 {
            ended = true
        } else if count < 0 {
            failed = true
            failure =
                stream.streamError
                ?? HTTPCoreError(.unreadableStream, value: "stream", reason: "reading the input stream failed")
        }
        lock.unlock()
        if let failure { onFailure(failure) }
        return count < 0 ? -1 : count
    }

    func close() {
        lock.lock()
        closed = true
        // A call in progress may still hold URLSession's work queue: it closes the stream and
        // leaves the gate when it returns.
        let idle = busy ? nil : stream
        var release = false
        if !busy {
            stream = nil
            release = releaseGateLocked()
        }
        lock.unlock()
        idle?.close()
        if release { URLSessionBodyPump.gate.pumpClosed() }
    }

    /// Stops counting in the gate, once: returns whether the caller must tell the gate
    /// (after unlocking). Call with the lock held.
    private func releaseGateLocked() -> Bool {
        guard holdsGate else { return false }
        holdsGate = false
        return true
    }
}
