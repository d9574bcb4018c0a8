import Foundation

/// The chunks of a streamed response body between the session delegate, which yields
/// them as they arrive, and the reader of the ``ResponseStream``.
///
/// URLSession on Linux has no backpressure, so unread chunks pile up here; past `limit`
/// bytes the stream fails with the error `makeOverflowError` makes. When the reader is
/// cancelled or drops the stream, `onAbandon` stops the network task.
///
/// `@unchecked Sendable`: every mutable property is read and written under `lock`.
final class URLSessionStreamBuffer: @unchecked Sendable {
    private let lock = NSLock()
    private let limit: Int
    private let makeOverflowError: @Sendable (Int) -> any Error
    private let onAbandon: @Sendable () -> Void
    private var chunks: [Data] = []
    private var head = 0
    private var buffered = 0
    private var ended = false
    private var failure: (any Error)?
    private var waiter: CheckedContinuation<Data?, any Error>?

    init(
        limit: Int, makeOverflowError: @escaping @Sendable (Int) -> any Error,
        onAbandon: @escaping @Sendable () -> Void
    ) {
        self.limit = max(1, limit)
        self.makeOverflowError = makeOverflowError
        self.onAbandon = onAbandon
    }

    /// Hands `data` to the reader, or buffers it.
    /// - Returns: `false` when the stream has failed (over its limit, or abandoned).
    func yield(_ data: Data) -> Bool {
        lock.lock()
        guard !ended, failure == nil else {
            lock.unlock()
            return false
        }
        if let waiter {
            self.waiter = nil
            lock.unlock()
            waiter.resume(returning: data)
            return true
        }
        guard buffered + data.count <= limit else {
            failure = makeOverflowError(limit)
            lock.unlock()
            return false
        }
        chunks.append(data)
        buffered += data.count
        lock.unlock()
        return true
    }

    /// Ends the stream after the buffered chunks.
    func finish() {
        lock.lock()
        ended = true
        let waiter = self.waiter
        self.waiter = nil
        lock.unlock()
        waiter?.resume(returning: nil)
    }

    /// Fails the stream after the buffered chunks; the first failure wins.
    func fail(_ error: any Error) {
        lock.lock()
        if failure == nil, !ended { failure = error }
        let waiter = self.waiter
        self.waiter = nil
        let reported = failure
        lock.unlock()
        if let waiter {
            if let reported { waiter.resume(throwing: reported) } else { waiter.resume(returning: nil) }
        }
    }

    /// The reader went away or was cancelled: drop the chunks and stop the network task.
    func abandon(with error: any Error) {
        lock.lock()
        let alreadyOver = ended || failure != nil
        if !alreadyOver { failure = error }
        chunks = []
        head = 0
        buffered = 0
        let waiter = self.waiter
        self.waiter = nil
        lock.unlock()
        waiter?.resume(throwing: error)
        if !alreadyOver { onAbandon() }
    }

    /// The next chunk, waiting for one; `nil` at the end.
    func next() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                lock.lock()
                if head < chunks.count {
                    let chunk = chunks[head]
                    head += 1
                    buffered -= chunk.count
                    if head == chunks.count {
                        chunks.removeAll(keepingCapacity: true)
                        head = 0
                    }
                    lock.unlock()
                    continuation.resume(returning: chunk)
                } else if let failure {
                    lock.unlock()
                    continuation.resume(throwing: failure)
                } else if ended {
                    lock.unlock()
                    continuation.resume(returning: nil)
                } else {
                    waiter = continuation
                    lock.unlock()
                }
            }
        } onCancel: {
            abandon(with: CancellationError())
        }
    }

    /// The stream the reader iterates; dropping it stops the network task.
    func makeStream() -> ResponseStream {
        let reader = Reader(buffer: self)
        return ResponseStream(AsyncThrowingStream(unfolding: { try await reader.buffer.next() }))
    }

    /// Abandons the buffer when the stream that holds it is released.
    private final class Reader: Sendable {
        let buffer: URLSessionStreamBuffer

        init(buffer: URLSessionStreamBuffer) { self.buffer = buffer }

        deinit { buffer.abandon(with: CancellationError()) }
    }
}
