import Foundation

/// The response body of a transfer: the sequence behind the `HTTPBody` that `send` returns,
/// whose chunks the transfer's state machine hands out as the reader asks.
///
/// When the body and every iterator over it are released, the transfer learns that the
/// reader is gone and cancels its AsyncHTTPClient task.
final class ResponseBodyReader: AsyncSequence, Sendable {
    typealias Element = Data

    private let transfer: Transfer

    init(transfer: Transfer) { self.transfer = transfer }

    deinit { transfer.readerGone() }

    func makeAsyncIterator() -> Iterator { Iterator(reader: self) }

    /// Reads the chunks; holds the reader so the transfer goes on while it reads.
    struct Iterator: AsyncIteratorProtocol {
        let reader: ResponseBodyReader

        mutating func next() async throws -> Data? { try await reader.transfer.nextChunk() }
    }
}
