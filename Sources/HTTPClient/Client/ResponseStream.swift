import Foundation
import HTTPCore

/// A response body arriving in chunks, from ``Client/stream(_:options:)``.
///
/// Iterate it once. Chunks that the reader has not consumed are buffered up to the
/// call's ``RequestOptions/responseBodyLimit``; releasing the stream unread, or
/// cancelling the task that reads it, stops the network work.
public struct ResponseStream: AsyncSequence, Sendable {
    /// A chunk of bytes.
    public typealias Element = Data

    private let chunks: HTTPBody.Chunks
    private let onChunk: (@Sendable (Int) -> Void)?
    private let idle: IdleLimit?

    /// Reads `body` as it arrives, once.
    /// - Parameter body: The body, such as one a ``ClientTransport`` returned.
    public init(_ body: HTTPBody) { self.init(body, onChunk: nil, idle: nil) }

    /// Reads `body` as it arrives; `onChunk` is told each chunk's size, and a wait for a chunk
    /// longer than `idle`'s timeout ends the reading.
    init(_ body: HTTPBody, onChunk: (@Sendable (Int) -> Void)?, idle: IdleLimit?) {
        self.chunks = body.chunks()
        self.onChunk = onChunk
        self.idle = idle
    }

    /// Starts reading the chunks.
    /// - Returns: The iterator.
    public func makeAsyncIterator() -> AsyncIterator {
        guard idle != nil else { return AsyncIterator(base: chunks.makeAsyncIterator(), onChunk: onChunk) }
        return AsyncIterator(reader: ChunkReader(chunks), onChunk: onChunk, idle: idle)
    }

    /// Reads chunks one at a time.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// The body's chunks, read in the caller's task; `nil` when an idle limit applies.
        private var base: HTTPBody.Chunks.AsyncIterator?
        /// The body's chunks, read in a task the idle timer can cancel; `nil` after a failure,
        /// while a cancelled read may still be unwinding.
        private var reader: ChunkReader?
        private let onChunk: (@Sendable (Int) -> Void)?
        private let idle: IdleLimit?

        init(base: HTTPBody.Chunks.AsyncIterator, onChunk: (@Sendable (Int) -> Void)?) {
            self.base = base
            self.onChunk = onChunk
            self.idle = nil
        }

        init(reader: ChunkReader, onChunk: (@Sendable (Int) -> Void)?, idle: IdleLimit?) {
            self.reader = reader
            self.onChunk = onChunk
            self.idle = idle
        }

        /// The next chunk, or `nil` at the end of the body.
        ///
        /// A cancelled reader gets `CancellationError`, never a `nil` that would pass a cut
        /// body off as complete.
        /// - Returns: A chunk, or `nil`.
        /// - Throws: The transport's failure, as ``ClientError``; ``ClientError/Code/timedOut``
        ///   when no chunk came within the idle timeout; or `CancellationError`.
        public mutating func next() async throws -> Data? {
            let next: Data?
            if base != nil {
                next = try await base?.next()
            } else if let reader, let idle {
                if Task.isCancelled {
                    // Read in this cancelled task, as the direct path does, so that the body's
                    // source learns that its reader is gone and ends the transfer.
                    self.reader = nil
                    _ = try await reader.next()
                    throw CancellationError()
                }
                do {
                    next = try await idle.scheduler.race(timeout: idle.timeout, onTimeout: idle.timedOut) {
                        try await reader.next()
                    }
                } catch {
                    // A read the timer or the caller cancelled may still be ending: this
                    // iterator never touches the reader again.
                    self.reader = nil
                    throw error
                }
            } else {
                return nil
            }
            guard let chunk = next else {
                try Task.checkCancellation()
                return nil
            }
            onChunk?(chunk.count)
            return chunk
        }
    }

    /// How long a streamed body may wait for a chunk, and the scheduler that times it.
    struct IdleLimit: Sendable {
        let timeout: Duration
        let scheduler: DeadlineScheduler
        let request: HTTPRequest

        @Sendable func timedOut() -> any Error {
            ClientError(
                .timedOut, "no chunk of the streamed response body arrived within the idle timeout of \(timeout)",
                request: request)
        }
    }

    /// The body's iterator, moved into the task that reads each chunk so that the idle timer
    /// can cancel a read that waits too long.
    ///
    /// `@unchecked Sendable`: one read at a time touches `base`, as `AsyncIteratorProtocol`
    /// requires of its caller, and after a failure (a timeout, a cancellation) the iterator
    /// holding this reader never calls it again while the cancelled read may still be ending.
    final class ChunkReader: @unchecked Sendable {
        private var base: HTTPBody.Chunks.AsyncIterator

        init(_ chunks: HTTPBody.Chunks) { base = chunks.makeAsyncIterator() }

        func next() async throws -> Data? { try await base.next() }
    }
}
