import Foundation
import HTTPCore

/// Reads a body made from `InputStream`s (``HTTPBody/makesInputStreams``) straight into
/// URLSession's buffer: no task, no copy and no thread in between, as when URLSession is
/// given the stream itself.
///
/// The stream comes from ``HTTPBody/makeInputStream()``, which keeps to the declared length
/// and reports an ``HTTPCoreError``; a failure fails the request with that error. A stream's
/// `read` may wait for another thread (a pipe it writes), so the reader counts as a pump
/// for ``URLSessionBodyPump/gate``. A `read` that never returns cannot be interrupted:
/// ``close()`` takes effect when it returns.
///
/// `@unchecked Sendable`: every mutable property is read and written under `lock`; the
/// stream is read outside it, by one thread at a time.
final class URLSessionInputStreamReader: URLSessionBodySource, @unchecked Sendable {
    private let body: HTTPBody
    private let onFailure: @Sendable (any Error) -> Void
    private let lock = NSLock()
    private var stream: InputStream?
    private var reading = false
    private var ended = false
    private var failed = false
    private var closed = false

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
        if !closed { URLSessionBodyPump.gate.pumpClosed() }
    }

    func start() {
        lock.lock()
        let error = openLocked()
        lock.unlock()
        if let error { onFailure(error) }
    }

    /// Makes and opens the stream unless it exists or the reader is over. Call with the lock held.
    private func openLocked() -> (any Error)? {
        guard stream == nil, !failed, !closed else { return nil }
        do {
            guard let made = try body.makeInputStream() else {
                failed = true
                return HTTPCoreError(.unreadableStream, value: "stream", reason: "the body has no input stream")
            }
            made.open()
            if made.streamStatus == .error {
                failed = true
                return made.streamError
                    ?? HTTPCoreError(.unreadableStream, value: "stream", reason: "opening the input stream failed")
            }
            stream = made
            return nil
        } catch {
            failed = true
            return error
        }
    }

    var hasBytesAvailable: Bool {
        lock.lock()
        defer { lock.unlock() }
        return !ended
    }

    func read(into buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
        lock.lock()
        if let error = openLocked() {
            lock.unlock()
            onFailure(error)
            return -1
        }
        guard !failed, !closed, !reading, let stream else {
            lock.unlock()
            return -1
        }
        guard !ended, maxLength > 0 else {
            lock.unlock()
            return 0
        }
        reading = true
        lock.unlock()
        let count = stream.read(buffer, maxLength: maxLength)
        lock.lock()
        reading = false
        let closedMeanwhile = closed
        var failure: (any Error)?
        if closedMeanwhile {
            self.stream = nil
        } else if count == 0 {
            ended = true
        } else if count < 0 {
            failed = true
            failure =
                stream.streamError
                ?? HTTPCoreError(.unreadableStream, value: "stream", reason: "reading the input stream failed")
        }
        lock.unlock()
        if closedMeanwhile {
            stream.close()
            return -1
        }
        if let failure { onFailure(failure) }
        return count < 0 ? -1 : count
    }

    func close() {
        lock.lock()
        if !closed { URLSessionBodyPump.gate.pumpClosed() }
        closed = true
        // A read in progress closes the stream when it returns.
        let idle = reading ? nil : stream
        if !reading { stream = nil }
        lock.unlock()
        idle?.close()
    }
}
