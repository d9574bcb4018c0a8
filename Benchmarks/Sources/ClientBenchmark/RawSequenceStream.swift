import Foundation

/// The baseline for an `AsyncSequence` body: the least an application using URLSession
/// directly must write to send one as `httpBodyStream`.
///
/// swift-corelibs-foundation has no bound stream pair (`Stream.getBoundStreams`), and
/// URLSession on Linux reads a body stream with blocking reads that must not say "no bytes
/// yet". So: a detached task reads the sequence into a queue of at most 1 MiB (blocking its
/// thread while the queue is full), and `read` blocks until bytes or the end are there.
/// Nothing of Heron is used.
final class RawSequenceStream<Chunks: AsyncSequence & Sendable>: InputStream where Chunks.Element == Data {
    private let sequence: Chunks
    private let queue = ChunkQueue()

    init(_ sequence: Chunks) {
        self.sequence = sequence
        super.init(data: Data())
    }

    override func open() {
        guard queue.open() else { return }
        Task.detached { [queue, sequence] in
            do {
                for try await chunk in sequence {
                    guard queue.push(chunk) else { return }
                }
                queue.end(failed: false)
            } catch {
                queue.end(failed: true)
            }
        }
    }

    override func close() { queue.close() }

    override var streamStatus: Stream.Status { queue.status }

    override var hasBytesAvailable: Bool { queue.hasBytesAvailable }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        queue.read(into: buffer, maxLength: len)
    }

    override func getBuffer(
        _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length len: UnsafeMutablePointer<Int>
    ) -> Bool { false }

    override func property(forKey key: Stream.PropertyKey) -> AnyObject? { nil }

    override func setProperty(_ property: AnyObject?, forKey key: Stream.PropertyKey) -> Bool { false }

    override func schedule(in aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}

    override func remove(from aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}
}

/// The bounded queue between the reading task and URLSession's reads.
///
/// `@unchecked Sendable`: every mutable property is read and written under `condition`.
private final class ChunkQueue: @unchecked Sendable {
    private static var capacity: Int { 1 << 20 }
    private let condition = NSCondition()
    private var chunks: [Data] = []
    private var offset = 0
    private var buffered = 0
    private var ended = false
    private var failed = false
    private var state = Stream.Status.notOpen

    /// Opens the queue; `false` if it was open already.
    func open() -> Bool {
        condition.withLock {
            guard state == .notOpen else { return false }
            state = .open
            return true
        }
    }

    /// Adds `chunk`, first waiting while the queue is full; `false` once closed.
    func push(_ chunk: Data) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while buffered >= Self.capacity && state != .closed { condition.wait() }
        guard state != .closed else { return false }
        chunks.append(chunk)
        buffered += chunk.count
        condition.broadcast()
        return true
    }

    func end(failed: Bool) {
        condition.withLock {
            if failed { self.failed = true } else { ended = true }
            condition.broadcast()
        }
    }

    func close() {
        condition.withLock {
            state = .closed
            condition.broadcast()
        }
    }

    var status: Stream.Status { condition.withLock { state } }

    var hasBytesAvailable: Bool { condition.withLock { !(ended && chunks.isEmpty) } }

    /// Copies up to `maxLength` bytes, waiting until some exist; 0 at the end, -1 on failure.
    func read(into buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
        condition.lock()
        defer { condition.unlock() }
        while chunks.isEmpty && !ended && !failed && state != .closed { condition.wait() }
        if failed || state == .closed { return -1 }
        guard let first = chunks.first else {
            state = .atEnd
            return 0
        }
        guard maxLength > 0 else { return 0 }
        let count = min(maxLength, first.count - offset)
        first.withUnsafeBytes { bytes in
            guard let base = bytes.bindMemory(to: UInt8.self).baseAddress else { return }
            buffer.update(from: base + offset, count: count)
        }
        offset += count
        buffered -= count
        if offset == first.count {
            chunks.removeFirst()
            offset = 0
        }
        condition.broadcast()
        return count
    }
}
