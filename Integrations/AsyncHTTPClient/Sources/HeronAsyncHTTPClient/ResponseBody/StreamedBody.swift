import Foundation
import HTTPClient
import HTTPCore
import NIOCore

/// The body of a response handed over at its head: the sequence behind the `HTTPBody` that
/// `send` returns, read once.
///
/// Chunks come from a task that reads AsyncHTTPClient's body (see ``Exchange``) through a
/// ``Handoff``; AsyncHTTPClient reads no more from the server until the reader catches up
/// (backpressure). A reader that is cancelled, or a body released before its end, stops that
/// task, which cancels AsyncHTTPClient's request if it still runs.
final class StreamedBody: AsyncSequence, Sendable {
    typealias Element = Data

    let exchange: Exchange
    let head: HTTPResponse
    /// The length `Content-Length` declares, checked at the end.
    let declared: Int64?
    private let handoff: Handoff
    private let stopReading: @Sendable () -> Void

    init(
        exchange: Exchange, head: HTTPResponse, declared: Int64?, handoff: Handoff,
        stop: @escaping @Sendable () -> Void
    ) {
        self.exchange = exchange
        self.head = head
        self.declared = declared
        self.handoff = handoff
        self.stopReading = stop
    }

    deinit { stop() }

    /// Stops reading the body: the reader went away.
    func stop() {
        stopReading()
        handoff.close()
    }

    func makeAsyncIterator() -> Iterator { Iterator(body: self) }

    /// Reads the chunks; holds the body, so the transfer goes on while it reads.
    struct Iterator: AsyncIteratorProtocol {
        let body: StreamedBody
        var received: Int64 = 0
        var done = false

        mutating func next() async throws -> Data? {
            guard !done else { return nil }
            // A cancelled reader gets no more chunks, even ones already here.
            if Task.isCancelled {
                done = true
                body.stop()
                throw CancellationError()
            }
            let chunk: ByteBuffer?
            do {
                chunk = try await withTaskCancellationHandler {
                    try await body.handoff.next()
                } onCancel: { [body] in
                    body.stop()
                }
            } catch {
                done = true
                body.stop()
                throw body.exchange.error(for: error, head: body.head, received: received, declared: body.declared)
            }
            guard let chunk else {
                done = true
                try body.exchange.checkLength(received: received, declared: body.declared, head: body.head)
                return nil
            }
            received += Int64(chunk.readableBytes)
            return Data(copying: chunk)
        }
    }
}
