import AsyncHTTPClient
import Foundation
import HTTPCore
import NIOConcurrencyHelpers
import NIOCore

/// Hands a request body to AsyncHTTPClient as it is read, one chunk at a time, each written
/// only once AsyncHTTPClient is ready for it (its writer's futures complete when the
/// connection can take more), so a body of any size goes out in constant memory.
///
/// A file is read straight into `ByteBuffer`s (``FileBodyReader``); a stream body's chunks
/// are read in a task; a body made from `InputStream`s is read on a thread of its own,
/// because an `InputStream`'s `read` blocks (a pipe may stall for ever) and must never hold
/// one of Swift's few cooperative threads. A failure to read the body goes to `onFailure`,
/// which fails the request; ``close()`` stops the reading when the request ends first.
final class RequestBodyPump: Sendable {
    /// A write that failed because the request failed elsewhere: not the body's fault.
    private struct WriteFailed: Error {}

    private struct State {
        var closed = false
        var task: Task<Void, Never>?
    }

    private let body: HTTPBody
    private let chunkSize: Int
    private let eventLoop: any EventLoop
    private let onFailure: @Sendable (any Error) -> Void
    private let state = NIOLockedValueBox(State())

    /// A pump for `body`.
    /// - Parameters:
    ///   - body: A file or stream body (bytes in memory need no pump).
    ///   - chunkSize: The size of the chunks a file or stream is read in.
    ///   - eventLoop: Where the pump's future completes.
    ///   - onFailure: Told when reading the body fails.
    init(
        body: HTTPBody, chunkSize: Int, eventLoop: any EventLoop, onFailure: @escaping @Sendable (any Error) -> Void
    ) {
        self.body = body
        self.chunkSize = chunkSize
        self.eventLoop = eventLoop
        self.onFailure = onFailure
    }

    /// The AsyncHTTPClient body: `Content-Length` when the length is known, chunked otherwise.
    var clientBody: HTTPClient.Body {
        var length: Int64?
        if case .known(let count) = body.length { length = count }
        return .stream(contentLength: length) { [self] writer in start(writer) }
    }

    /// Stops reading: the request ended.
    func close() {
        let task = state.withLockedValue { state in
            state.closed = true
            defer { state.task = nil }
            return state.task
        }
        task?.cancel()
    }

    private var isClosed: Bool { state.withLockedValue { $0.closed } }

    /// Starts reading into `writer`.
    /// - Returns: A future that completes when the whole body is written, or fails.
    private func start(_ writer: HTTPClient.Body.StreamWriter) -> EventLoopFuture<Void> {
        let promise = eventLoop.makePromise(of: Void.self)
        if body.makesInputStreams {
            let thread = Thread { [self] in promise.completeWith(Result { try pumpInputStream(into: writer) }) }
            thread.name = "Heron.AsyncHTTPClientTransport.upload"
            thread.start()
            return promise.futureResult
        }
        let task = Task { [self] in
            do {
                try await pumpChunks(into: writer)
                promise.succeed(())
            } catch {
                promise.fail(error)
            }
        }
        let closed = state.withLockedValue { state in
            if !state.closed { state.task = task }
            return state.closed
        }
        if closed { task.cancel() }
        return promise.futureResult
    }

    /// Reports a failure to read the body (not a failed write) and passes it on.
    private func reading<T>(_ work: () throws -> T) throws -> T {
        do {
            return try work()
        } catch {
            if !isClosed { onFailure(error) }
            throw error
        }
    }

    /// Reads a file or a stream in a task.
    private func pumpChunks(into writer: HTTPClient.Body.StreamWriter) async throws {
        let allocator = ByteBufferAllocator()
        if case .file(let url) = body.source, case .known(let size) = body.length {
            let reader = try reading { try FileBodyReader(url: url, size: size) }
            defer { reader.close() }
            while !Task.isCancelled,
                let chunk = try reading({ try reader.read(chunkSize: chunkSize, allocator: allocator) })
            {
                try await write(chunk, to: writer)
            }
            return
        }
        var chunks = body.chunks(size: chunkSize).makeAsyncIterator()
        while true {
            let chunk: Data?
            do {
                chunk = try await chunks.next()
            } catch {
                if !isClosed { onFailure(error) }
                throw error
            }
            guard let chunk else { return }
            try await write(allocator.buffer(bytes: chunk), to: writer)
        }
    }

    /// Writes `chunk` and waits until AsyncHTTPClient can take the next.
    private func write(_ chunk: ByteBuffer, to writer: HTTPClient.Body.StreamWriter) async throws {
        do {
            try await writer.write(.byteBuffer(chunk)).get()
        } catch {
            throw WriteFailed()
        }
    }

    /// Reads a body made from `InputStream`s on this thread, blocking in each `read`.
    private func pumpInputStream(into writer: HTTPClient.Body.StreamWriter) throws {
        guard let stream = try reading({ try body.makeInputStream() }) else { return }
        stream.open()
        defer { stream.close() }
        let allocator = ByteBufferAllocator()
        while !isClosed {
            var buffer = allocator.buffer(capacity: chunkSize)
            var count = 0
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: chunkSize) { raw in
                count = stream.read(raw.baseAddress!.assumingMemoryBound(to: UInt8.self), maxLength: chunkSize)
                return max(0, count)
            }
            if count < 0 {
                let error: any Error =
                    stream.streamError
                    ?? HTTPCoreError(.unreadableStream, value: "stream", reason: "the input stream failed to read")
                _ = try reading { throw error }
            }
            if count == 0 { return }
            do {
                try writer.write(.byteBuffer(buffer)).wait()
            } catch {
                throw WriteFailed()
            }
        }
    }
}
