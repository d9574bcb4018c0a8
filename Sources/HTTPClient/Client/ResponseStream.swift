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

    /// Reads `body` as it arrives, once.
    /// - Parameter body: The body, such as one a ``ClientTransport`` returned.
    public init(_ body: HTTPBody) { self.init(body, onChunk: nil) }

    /// Reads `body` as it arrives; `onChunk` is told each chunk's size.
    init(_ body: HTTPBody, onChunk: (@Sendable (Int) -> Void)?) {
        self.chunks = body.chunks()
        self.onChunk = onChunk
    }

    /// Starts reading the chunks.
    /// - Returns: The iterator.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: chunks.makeAsyncIterator(), onChunk: onChunk)
    }

    /// Reads chunks one at a time.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: HTTPBody.Chunks.AsyncIterator
        let onChunk: (@Sendable (Int) -> Void)?

        /// The next chunk, or `nil` at the end of the body.
        ///
        /// A cancelled reader gets `CancellationError`, never a `nil` that would pass a cut
        /// body off as complete.
        /// - Returns: A chunk, or `nil`.
        /// - Throws: The transport's failure, as ``ClientError``, or `CancellationError`.
        public mutating func next() async throws -> Data? {
            guard let chunk = try await base.next() else {
                try Task.checkCancellation()
                return nil
            }
            onChunk?(chunk.count)
            return chunk
        }
    }
}
