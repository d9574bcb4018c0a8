import Foundation

extension HTTPBody {
    /// A body read from Foundation `InputStream`s made on demand, one per read.
    ///
    /// For bytes that already come as an `InputStream`: a file, a pipe another process or
    /// thread writes into, a stream subclass of your own. A transport that reads
    /// streams itself (``makeInputStream()``; URLSession does) reads it directly, with no
    /// task or copy in between; ``chunks(size:)`` reads it in chunks instead, blocking its
    /// thread in each `read` as Foundation's streams do.
    ///
    /// The stream's `read` must wait until bytes exist and return 0 only at the end, as streams
    /// over files and pipes do. When `length` is known it is enforced: a stream
    /// that ends early or has more fails the read with ``HTTPCoreError/Code/bodyLengthMismatch``
    /// (so it must end at that length: a pipe's writer must close its end).
    /// Use `.multiple` only when every call of `makeInputStream` yields the same bytes (a
    /// new stream over the same file, say): the body can then be retried or redirected.
    ///
    /// ```swift
    /// let file = FileManager.default.temporaryDirectory.appendingPathComponent("heron-stream.bin")
    /// try Data(repeating: 7, count: 100_000).write(to: file)
    /// let body = HTTPBody(length: .known(100_000), iterationBehavior: .multiple) {
    ///     guard let stream = InputStream(url: file) else { throw CocoaError(.fileReadNoSuchFile) }
    ///     return stream
    /// }
    /// let bytes = try await body.collect(upTo: 1 << 20)
    /// print(body.makesInputStreams, bytes.count)  // true 100000
    /// ```
    /// - Parameters:
    ///   - length: The total length, if known; checked while reading.
    ///   - iterationBehavior: Whether `makeInputStream` may be called more than once.
    ///   - makeInputStream: Makes a fresh, unopened stream of the bytes; an error it throws
    ///     fails the read with ``HTTPCoreError/Code/unreadableStream``.
    public init(
        length: Length, iterationBehavior: IterationBehavior,
        makeInputStream: @escaping @Sendable () throws -> InputStream
    ) {
        self.storage = .stream(
            ChunkProducer(single: iterationBehavior == .single, makeInputStream: makeInputStream) {
                var stream: InputStream?
                return { size in
                    if stream == nil {
                        let made = try CheckedInputStream.make(with: makeInputStream, length: length)
                        made.open()
                        stream = made
                    }
                    guard let reading = stream else { return nil }
                    return try CheckedInputStream.readChunk(from: reading, size: size)
                }
            })
        self.length = length
        self.iterationBehavior = iterationBehavior
    }

    /// Whether the body is read from `InputStream`s, so ``makeInputStream()`` gives one.
    public var makesInputStreams: Bool {
        if case .stream(let producer) = storage { return producer.makeInputStream != nil }
        return false
    }

    /// A fresh stream of the body's bytes, for a body made from `InputStream`s; `nil` for
    /// any other body (read those with ``chunks(size:)``).
    ///
    /// The stream is not yet open. It enforces a known ``length`` (a `read` returns -1 and
    /// `streamError` is ``HTTPCoreError/Code/bodyLengthMismatch`` when the bytes do not
    /// match it; to see that nothing follows, it reads once more at that length, so the
    /// stream must end there: a pipe's writer must close its end). When the body's stream
    /// fails, `streamError` is an ``HTTPCoreError``. From `open` until the end
    /// `hasBytesAvailable` stays `true`, so a reader that stops at the first `false`
    /// (URLSession on Linux) never sends a short body. Taking it counts as the one read of
    /// a `.single` body.
    /// - Returns: The stream, or `nil` when the body is not made from streams.
    /// - Throws: ``HTTPCoreError/Code/bodyAlreadyConsumed`` when a single-use body was read
    ///   before; ``HTTPCoreError/Code/unreadableStream`` when making the stream threw.
    public func makeInputStream() throws(HTTPCoreError) -> InputStream? {
        guard case .stream(let producer) = storage, let make = producer.makeInputStream else { return nil }
        try producer.claim()
        return try CheckedInputStream.make(with: make, length: length)
    }
}

/// An `InputStream` over another that keeps to a declared length and reports failures as
/// ``HTTPCoreError``.
///
/// `hasBytesAvailable` is `true` from `open` until the end, leaving the wait to the base
/// stream's `read`. Once the declared length is reached, one more byte is read to check
/// that the base stream ends there. The base stream's `streamError` is read only when its
/// status is `.error`: swift-corelibs-foundation traps reading it from a healthy stream.
///
/// Thread-safe although `InputStream` cannot be `Sendable`: mutable state is read and
/// written under `lock`, and the base stream is read outside it (one read at a time; a
/// concurrent one returns -1), so `close` and the getters never wait for a read; a `close`
/// during a read closes the base stream when the read returns.
final class CheckedInputStream: InputStream {
    private let base: InputStream
    private let declared: Int64?
    private let lock = NSLock()
    private var delivered: Int64 = 0
    private var reading = false
    private var status = Stream.Status.notOpen
    private var failure: HTTPCoreError?

    init(base: InputStream, length: HTTPBody.Length) {
        self.base = base
        if case .known(let count) = length { declared = count } else { declared = nil }
        super.init(data: Data())
    }

    /// A checked stream over the one `make` returns.
    static func make(
        with make: @Sendable () throws -> InputStream, length: HTTPBody.Length
    ) throws(HTTPCoreError) -> CheckedInputStream {
        do {
            return CheckedInputStream(base: try make(), length: length)
        } catch {
            throw HTTPCoreError(.unreadableStream, value: "stream", reason: "making the input stream failed: \(error)")
        }
    }

    /// Reads up to `size` bytes from an open `stream`: `nil` at the end (the stream is
    /// then closed).
    static func readChunk(from stream: InputStream, size: Int) throws -> Data? {
        var chunk = Data(count: size)
        let count = chunk.withUnsafeMutableBytes { raw in
            stream.read(raw.baseAddress!.assumingMemoryBound(to: UInt8.self), maxLength: size)
        }
        if count < 0 {
            throw stream.streamError
                ?? HTTPCoreError(.unreadableStream, value: "stream", reason: "the input stream failed to read")
        }
        if count == 0 {
            stream.close()
            return nil
        }
        // A short read keeps only what it holds, not the whole buffer.
        return count < size / 2 ? Data(chunk.prefix(count)) : chunk.prefix(count)
    }

    /// Opens the base stream unless it is open already; a base stream closed before it was
    /// read fails the reads that follow.
    override func open() {
        let before = base.streamStatus
        if before == .notOpen { base.open() }
        lock.lock()
        defer { lock.unlock() }
        if before == .closed || base.streamStatus == .error {
            failLocked(base: "opening the input stream failed")
        } else if status == .notOpen {
            status = .open
        }
    }

    override func close() {
        lock.lock()
        if failure == nil { status = .closed }
        // A read in progress closes the base stream when it returns.
        let closeNow = !reading
        lock.unlock()
        if closeNow { base.close() }
    }

    override var streamStatus: Stream.Status {
        lock.lock()
        defer { lock.unlock() }
        return status
    }

    override var streamError: (any Error)? {
        lock.lock()
        defer { lock.unlock() }
        return failure
    }

    override var hasBytesAvailable: Bool {
        lock.lock()
        defer { lock.unlock() }
        return status == .open || status == .reading
    }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        lock.lock()
        guard failure == nil, status == .open || status == .reading, !reading else {
            defer { lock.unlock() }
            return status == .atEnd ? 0 : -1
        }
        guard len > 0 else {
            lock.unlock()
            return 0
        }
        let want = declared.map { Int(min(Int64(len), $0 - delivered)) } ?? len
        reading = true
        lock.unlock()
        // The base stream's read may wait; it runs outside the lock, so that `close` and the
        // status getters never wait for it.
        var extra: UInt8 = 0
        let count = want > 0 ? base.read(buffer, maxLength: want) : base.read(&extra, maxLength: 1)
        lock.lock()
        reading = false
        let result: Int
        if status == .closed {
            result = -1
        } else if count < 0 {
            failLocked(base: "reading the input stream failed")
            result = -1
        } else if want <= 0 {
            // At the declared length: the base stream must end there too.
            if count > 0, let declared {
                failure = HTTPCoreError(
                    .bodyLengthMismatch, value: String(delivered + 1),
                    reason: "stream yielded more than its declared \(declared) bytes")
                status = .error
                result = -1
            } else {
                status = .atEnd
                result = 0
            }
        } else if count > 0 {
            delivered += Int64(count)
            status = .reading
            result = count
        } else if let declared, delivered < declared {
            failure = HTTPCoreError(
                .bodyLengthMismatch, value: String(delivered),
                reason: "stream ended after \(delivered) of its declared \(declared) bytes")
            status = .error
            result = -1
        } else {
            status = .atEnd
            result = 0
        }
        let closeNow = status == .closed
        lock.unlock()
        if closeNow { base.close() }
        return result
    }

    /// Fails with the base stream's error, read only when its status says it has one (a
    /// closed stream's `read` also returns -1, with no error to read).
    private func failLocked(base what: String) {
        let baseStatus = base.streamStatus
        let reason: String
        if baseStatus == .error, let underlying = base.streamError {
            reason = "\(what): \(underlying)"
        } else if baseStatus == .closed {
            reason = "\(what): the stream was closed before it was read"
        } else {
            reason = "\(what) (status \(baseStatus.rawValue))"
        }
        failure = HTTPCoreError(.unreadableStream, value: "stream", reason: reason)
        status = .error
    }

    override func getBuffer(
        _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length len: UnsafeMutablePointer<Int>
    ) -> Bool {
        false
    }

    override func property(forKey key: Stream.PropertyKey) -> AnyObject? { nil }

    override func setProperty(_ property: AnyObject?, forKey key: Stream.PropertyKey) -> Bool { false }

    override func schedule(in aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}

    override func remove(from aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}
}
