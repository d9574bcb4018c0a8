import Foundation
import HTTPCore

/// Moves a stream or file body from its asynchronous chunks to URLSession's blocking reads.
///
/// A task (on its own ``URLSessionPumpExecutor``) reads `HTTPBody/chunks(size:)` and
/// hands each chunk over; at most `capacity` bytes wait at once (the task suspends until
/// URLSession has read half of them), so a body of any size goes out in constant memory. ``read(into:maxLength:)`` blocks until bytes
/// exist or the body ends: URLSession on Linux stops an upload early, without an error,
/// if a stream ever says it has no bytes available.
///
/// `@unchecked Sendable`: every mutable property is read and written under `condition`.
final class URLSessionBodyPump: URLSessionBodySource, @unchecked Sendable {
    private let body: HTTPBody
    private let chunkSize: Int
    private let capacity: Int
    private let onFailure: @Sendable (any Error) -> Void
    private let condition = NSCondition()
    private var chunks: [Data] = []
    private var offset = 0
    private var buffered = 0
    private var ended = false
    private var failed = false
    private var closed = false
    private var started = false
    private var producer: Task<Void, Never>?
    private var waiter: CheckedContinuation<Bool, Never>?

    /// Creates a pump; nothing is read until the first read or ``start()``.
    /// - Parameters:
    ///   - body: The body to send.
    ///   - chunkSize: The size of the chunks to read it in.
    ///   - onFailure: Called once when reading the body throws.
    init(body: HTTPBody, chunkSize: Int, onFailure: @escaping @Sendable (any Error) -> Void) {
        self.body = body
        self.chunkSize = chunkSize
        self.capacity = max(chunkSize * 4, 1 << 20)
        self.onFailure = onFailure
    }

    deinit { producer?.cancel() }

    /// Starts reading the body, once.
    func start() {
        condition.lock()
        defer { condition.unlock() }
        guard !started, !closed else { return }
        started = true
        let body = self.body
        let chunkSize = self.chunkSize
        let operation: @Sendable () async -> Void = { [weak self] in
            do {
                for try await chunk in body.chunks(size: chunkSize) where !chunk.isEmpty {
                    guard let self, await self.push(chunk) else { return }
                }
                self?.end(error: nil)
            } catch {
                self?.end(error: error)
            }
        }
        #if canImport(FoundationNetworking)
        producer = Task(executorPreference: URLSessionPumpExecutor(), operation: operation)
        #else
        producer = Task(operation: operation)
        #endif
    }

    /// Hands `chunk` over, suspending while the pump is full.
    /// - Returns: `false` when the pump was closed and reading should stop.
    private func push(_ chunk: Data) async -> Bool {
        switch enqueue(chunk) {
        case .closed: return false
        case .room: return true
        case .full: break
        }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            condition.lock()
            if closed {
                condition.unlock()
                continuation.resume(returning: false)
            } else if buffered > capacity / 2 {
                waiter = continuation
                condition.unlock()
            } else {
                condition.unlock()
                continuation.resume(returning: true)
            }
        }
    }

    private enum Enqueued {
        case closed
        case room
        case full
    }

    /// Appends `chunk` without waiting.
    private func enqueue(_ chunk: Data) -> Enqueued {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return .closed }
        chunks.append(chunk)
        buffered += chunk.count
        condition.broadcast()
        return buffered >= capacity ? .full : .room
    }

    private func end(error: (any Error)?) {
        if let error {
            // Reported before the reader is woken: otherwise URLSession could end the task
            // (its read failed) before the transfer knows why, and the body's own error
            // (a length mismatch, the sequence's failure) would be lost to a generic one.
            condition.lock()
            let report = !closed
            condition.unlock()
            if report { onFailure(error) }
        }
        condition.lock()
        if error == nil { ended = true } else { failed = true }
        condition.broadcast()
        condition.unlock()
    }

    /// Whether a read can return bytes or will block for them: `false` only at the end.
    var hasBytesAvailable: Bool {
        condition.lock()
        defer { condition.unlock() }
        return !(ended && chunks.isEmpty)
    }

    /// Copies up to `maxLength` bytes into `buffer`, blocking until some exist.
    /// - Returns: The number of bytes copied, 0 at the end of the body, -1 when reading
    ///   the body failed or the pump was closed.
    func read(into buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
        start()
        condition.lock()
        while chunks.isEmpty && !ended && !failed && !closed { condition.wait() }
        if failed || closed {
            condition.unlock()
            return -1
        }
        guard let first = chunks.first, maxLength > 0 else {
            condition.unlock()
            return 0
        }
        let count = min(maxLength, first.count - offset)
        first.withUnsafeBytes { raw in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { return }
            buffer.update(from: base + offset, count: count)
        }
        offset += count
        buffered -= count
        if offset == first.count {
            chunks.removeFirst()
            offset = 0
        }
        var resume: CheckedContinuation<Bool, Never>?
        if buffered <= capacity / 2 {
            resume = waiter
            waiter = nil
        }
        condition.unlock()
        resume?.resume(returning: true)
        return count
    }

    /// Stops the pump: blocked and later reads return -1 and the reading task ends.
    func close() {
        condition.lock()
        closed = true
        chunks = []
        buffered = 0
        let waiter = self.waiter
        self.waiter = nil
        let producer = self.producer
        condition.broadcast()
        condition.unlock()
        waiter?.resume(returning: false)
        producer?.cancel()
    }
}
