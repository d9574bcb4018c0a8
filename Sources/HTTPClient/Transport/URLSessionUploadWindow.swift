import Foundation

/// Bounds how far an upload may run ahead of URLSession's `didSendBodyData` callbacks.
///
/// swift-corelibs-foundation queues one delegate operation per chunk it sends; nothing
/// stops libcurl from sending faster than the delegate queue runs them, and the queued
/// operations then hold tens of megabytes during a large upload. Before each read the
/// body stream waits (at most `maximumWait`, in case callbacks never come) until fewer
/// than `limit` bytes are unacknowledged.
///
/// `@unchecked Sendable`: every mutable property is read and written under `condition`.
final class URLSessionUploadWindow: @unchecked Sendable {
    private let condition = NSCondition()
    private let limit: Int64
    private let maximumWait: TimeInterval
    private var read: Int64 = 0
    private var acknowledged: Int64 = 0
    private var closed = false

    init(limit: Int64 = 8 << 20, maximumWait: TimeInterval = 1) {
        self.limit = limit
        self.maximumWait = maximumWait
    }

    /// Waits until the unacknowledged bytes are under the limit, the window is closed, or
    /// `maximumWait` has passed.
    func waitForRoom() {
        condition.lock()
        let deadline = Date(timeIntervalSinceNow: maximumWait)
        while !closed && read - acknowledged >= limit {
            if !condition.wait(until: deadline) { break }
        }
        condition.unlock()
    }

    /// Counts `count` bytes handed to URLSession.
    func didRead(_ count: Int) {
        guard count > 0 else { return }
        condition.lock()
        read += Int64(count)
        condition.unlock()
    }

    /// URLSession reported `totalBytesSent`.
    func acknowledge(_ totalBytesSent: Int64) {
        condition.lock()
        acknowledged = max(acknowledged, totalBytesSent)
        condition.broadcast()
        condition.unlock()
    }

    /// Stops all waiting.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
