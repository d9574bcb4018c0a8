import AsyncHTTPClient
import Dispatch
import Foundation
import HTTPClient
import HTTPCore
import NIOConcurrencyHelpers
import NIOCore

/// A request body as AsyncHTTPClient takes it: an asynchronous sequence of `ByteBuffer`s
/// that AsyncHTTPClient asks for one at a time, each once the connection can take it (so a
/// body of any size goes out in constant memory), with `Content-Length` when the length is
/// known, chunked otherwise.
///
/// Bytes in memory go as one buffer; a file is read straight into `ByteBuffer`s
/// (``FileBodyReader``). A stream body is read in a task of its own and a body made from
/// `InputStream`s on a thread of its own (an `InputStream`'s `read` blocks, and a pipe may
/// stall for ever), each handed over through a ``Handoff``, so that ``close()`` stops a read
/// that stalls. Each chunk handed to AsyncHTTPClient counts as sent: it is reported as upload
/// progress and as activity to the transfer's guard. A failure to read the body is kept as
/// ``error``: it, not what AsyncHTTPClient makes of it, is the request's failure.
final class Upload: Sendable {
    fileprivate struct State {
        var sent: Int64 = 0
        var error: (any Error)?
        var closed = false
        /// Whether AsyncHTTPClient asked for the body's first chunk.
        var started = false
        var handoff: Handoff?
        var stop: (@Sendable () -> Void)?
    }

    let body: HTTPBody
    let chunkSize: Int
    /// The body's length, when known.
    let expected: Int64?
    private let progress: ProgressReports?
    private let guardian: TransferGuard?
    fileprivate let state = NIOLockedValueBox(State())

    init(body: HTTPBody, chunkSize: Int, progress: ProgressReports?, guardian: TransferGuard?) {
        self.body = body
        self.chunkSize = chunkSize
        self.progress = progress
        self.guardian = guardian
        if case .known(let length) = body.length { expected = length } else { expected = nil }
    }

    /// The body AsyncHTTPClient sends.
    var clientBody: HTTPClientRequest.Body {
        .stream(Chunks(upload: self), length: expected.map { .known($0) } ?? .unknown)
    }

    /// Bytes handed to AsyncHTTPClient.
    var sent: Int64 { state.withLockedValue { $0.sent } }

    /// Whether AsyncHTTPClient asked for any of the body: `false` when the request failed
    /// before a connection to the origin carried it (a proxy's `407` to its `CONNECT`), when
    /// the body, even a one-shot stream, is intact and can be sent again.
    var started: Bool { state.withLockedValue { $0.started } }

    /// Why reading the body failed, if it did.
    var error: (any Error)? { state.withLockedValue { $0.error } }

    /// Stops reading the body: the request ended.
    func close() {
        let (handoff, stop) = state.withLockedValue { state in
            state.closed = true
            defer {
                state.handoff = nil
                state.stop = nil
            }
            return (state.handoff, state.stop)
        }
        stop?()
        handoff?.close()
    }

    private var isClosed: Bool { state.withLockedValue { $0.closed } }

    private func handed(_ count: Int) {
        let sent = state.withLockedValue { state in
            state.sent += Int64(count)
            return state.sent
        }
        guardian?.touch()
        progress?.report(TransferProgress(direction: .upload, completed: sent, expected: expected))
    }

    private func failed(_ error: any Error) {
        state.withLockedValue { state in
            if !state.closed, state.error == nil { state.error = error }
        }
    }

    /// Starts reading a stream body in a task, or a body of `InputStream`s on a thread.
    private func startReading() -> Handoff {
        let handoff = Handoff()
        let stop: (@Sendable () -> Void)?
        if body.makesInputStreams {
            let thread = Thread { [self] in readInputStream(into: handoff) }
            thread.name = "Heron.AsyncHTTPClientTransport.upload"
            thread.start()
            stop = nil
        } else {
            let task = Task { [body, chunkSize] in
                do {
                    for try await chunk in body.chunks(size: chunkSize) {
                        guard await handoff.put(ByteBuffer(bytes: chunk)) else { return }
                    }
                    handoff.finish(.success(()))
                } catch {
                    handoff.finish(.failure(error))
                }
            }
            stop = { task.cancel() }
        }
        let closed = state.withLockedValue { state in
            if !state.closed {
                state.handoff = handoff
                state.stop = stop
            }
            return state.closed
        }
        if closed {
            stop?()
            handoff.close()
        }
        return handoff
    }

    /// Reads a body made from `InputStream`s on this thread, blocking in each `read`.
    private func readInputStream(into handoff: Handoff) {
        do {
            guard let stream = try body.makeInputStream() else { return handoff.finish(.success(())) }
            guard !isClosed else { return handoff.close() }
            stream.open()
            defer { stream.close() }
            let allocator = ByteBufferAllocator()
            while true {
                var buffer = allocator.buffer(capacity: chunkSize)
                var count = 0
                buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: chunkSize) { raw in
                    count = stream.read(raw.baseAddress!.assumingMemoryBound(to: UInt8.self), maxLength: chunkSize)
                    return max(0, count)
                }
                if count < 0 {
                    throw stream.streamError
                        ?? HTTPCoreError(.unreadableStream, value: "stream", reason: "the input stream failed to read")
                }
                if count == 0 { return handoff.finish(.success(())) }
                guard handoff.putBlocking(buffer) else { return }
            }
        } catch {
            handoff.finish(.failure(error))
        }
    }

    /// The chunks AsyncHTTPClient sends.
    struct Chunks: AsyncSequence, Sendable {
        typealias Element = ByteBuffer
        let upload: Upload

        func makeAsyncIterator() -> Iterator { Iterator(upload: upload) }

        /// Reads the body a chunk at a time.
        struct Iterator: AsyncIteratorProtocol {
            private enum Source {
                case start
                case file(FileBodyReader, ByteBufferAllocator)
                case handoff(Handoff)
                case finished
            }

            let upload: Upload
            private var source = Source.start

            init(upload: Upload) { self.upload = upload }

            mutating func next() async throws -> ByteBuffer? {
                let chunk: ByteBuffer?
                do {
                    chunk = try await read()
                } catch {
                    source = .finished
                    upload.failed(error)
                    throw error
                }
                if let chunk { upload.handed(chunk.readableBytes) } else { source = .finished }
                return chunk
            }

            private mutating func read() async throws -> ByteBuffer? {
                switch source {
                case .start:
                    upload.state.withLockedValue { $0.started = true }
                    let body = upload.body
                    if case .data(let data) = body.source {
                        source = .finished
                        return data.isEmpty ? nil : ByteBuffer(bytes: data)
                    }
                    if case .file(let url) = body.source, case .known(let size) = body.length {
                        source = .file(try FileBodyReader(url: url, size: size), ByteBufferAllocator())
                    } else {
                        source = .handoff(upload.startReading())
                    }
                    return try await read()
                case .file(let reader, let allocator):
                    return try reader.read(chunkSize: upload.chunkSize, allocator: allocator)
                case .handoff(let handoff):
                    return try await handoff.next()
                case .finished:
                    return nil
                }
            }
        }
    }
}

/// A caller's upload progress callback, run in order on a serial queue of its own: never on
/// an event loop or Swift's shared threads, which a slow callback would stall.
final class ProgressReports: Sendable {
    private let queue = DispatchQueue(label: "Heron.AsyncHTTPClientTransport.progress")
    private let callback: @Sendable (TransferProgress) -> Void

    init(_ callback: @escaping @Sendable (TransferProgress) -> Void) { self.callback = callback }

    /// Queues `progress` for the callback.
    func report(_ progress: TransferProgress) {
        queue.async { [callback] in callback(progress) }
    }

    /// Returns once every report queued so far was delivered.
    func flush() async {
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    }
}
