import AsyncHTTPClient
import Foundation
import HTTPClient
import HTTPCore
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// An exchange whose body is handed over at its head (a stream, a download), through
/// AsyncHTTPClient's delegate API: `send` is resumed at the head, and each body part is pushed
/// from the event loop into a ``Handoff`` that the reader (``StreamedBody``) takes from.
///
/// Past the hand-off's limit the part's future is completed only once the reader has made
/// room, so AsyncHTTPClient reads no more from the server meanwhile (backpressure), and the
/// guard does not count that wait as idle. No task carries the body: no pump, no hop per chunk
/// through one. The guard, the reader's cancellation and a body released unread fail or
/// cancel the `HTTPClient.Task` directly.
final class StreamedExchange: HTTPClientResponseDelegate, Sendable {
    typealias Response = Void

    private struct State {
        /// `send`'s continuation, until the head (or a failure before it) answers it.
        var caller: CheckedContinuation<TransportResponse, any Error>?
        /// `send`'s answer when it came before `send` waited for it.
        var answer: Result<TransportResponse, any Error>?
        var answered = false
        var handoff: Handoff?
        var requestHeads = 0
        /// Whether the caller's task was cancelled while it waited for the head.
        var cancelled = false
    }

    private let exchange: Exchange
    private let state = NIOLockedValueBox(State())

    private init(exchange: Exchange) { self.exchange = exchange }

    /// Sends the exchange's request and returns at the head, the body arriving behind it.
    static func run(_ exchange: Exchange) async throws -> TransportResponse {
        let clientRequest = try BufferedExchange.makeRequest(exchange)
        let delegate = StreamedExchange(exchange: exchange)
        let task = exchange.client.execute(
            request: clientRequest, delegate: delegate, eventLoop: .indifferent, deadline: nil)
        exchange.guardian?.cancelling { task.fail(reason: BufferedExchange.GuardExpired()) }
        task.futureResult.whenComplete { delegate.ended($0) }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // The head (or a failure) may have come before this.
                let ready: Result<TransportResponse, any Error>? = delegate.state.withLockedValue { state in
                    if let answer = state.answer {
                        state.answer = nil
                        return answer
                    }
                    state.caller = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            delegate.state.withLockedValue { $0.cancelled = true }
            task.cancel()
        }
    }

    /// Answers `send` once, now or when it waits.
    private func answer(_ result: Result<TransportResponse, any Error>) {
        let caller: CheckedContinuation<TransportResponse, any Error>? = state.withLockedValue { state in
            guard !state.answered else { return nil }
            state.answered = true
            guard let caller = state.caller else {
                state.answer = result
                return nil
            }
            state.caller = nil
            return caller
        }
        caller?.resume(with: result)
    }

    // MARK: HTTPClientResponseDelegate (on the event loop)

    func didSendRequestHead(task: HTTPClient.Task<Void>, _ head: HTTPRequestHead) {
        let redirected = state.withLockedValue { state in
            state.requestHeads += 1
            return state.requestHeads > 1
        }
        if redirected { task.fail(reason: exchange.followsRedirects) }
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ received: HTTPResponseHead) -> EventLoopFuture<Void> {
        exchange.headArrived()
        let request = exchange.request
        let head: HTTPCore.HTTPResponse
        do {
            head = try HTTPCore.HTTPResponse(
                status: received.status, headers: received.headers, version: received.version, for: request)
        } catch {
            return task.eventLoop.makeFailedFuture(error)
        }
        var body: HTTPBody?
        var handoff: Handoff?
        if head.hasBody(answering: request) {
            let queue = Handoff(limit: min(exchange.options.responseBufferLimit, 256 * 1024))
            let reader = StreamedBody(
                exchange: exchange, head: head, declared: head.decodedBodyLength, handoff: queue,
                stop: { task.cancel() })
            body = HTTPBody(length: .unknown, iterationBehavior: .single) { reader }
            handoff = queue
        }
        state.withLockedValue { $0.handoff = handoff }
        answer(
            .success(TransportResponse(head: head, body: body, bytesSent: exchange.bytesSent, proxy: exchange.proxy)))
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let guardian = exchange.guardian
        guardian?.touch()
        guard let handoff = state.withLockedValue({ $0.handoff }) else {
            return task.eventLoop.makeSucceededVoidFuture()
        }
        handoff.offer(buffer)
        if handoff.hasRoom { return task.eventLoop.makeSucceededVoidFuture() }
        // The reader is behind: AsyncHTTPClient waits for it, and so does the idle timeout.
        let promise = task.eventLoop.makePromise(of: Void.self)
        guardian?.pause()
        handoff.whenRoom { room in
            guardian?.resume()
            if room {
                promise.succeed()
            } else {
                promise.fail(CancellationError())
            }
        }
        return promise.futureResult
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {}

    /// The task ended: the body ends (or fails) behind the chunks still held, or `send` fails.
    private func ended(_ outcome: Result<Void, any Error>) {
        exchange.end()
        let (answered, handoff, cancelled) = state.withLockedValue { ($0.answered, $0.handoff, $0.cancelled) }
        guard answered else {
            if cancelled {
                answer(.failure(CancellationError()))
                return
            }
            let error: any Error
            switch outcome {
            case .failure(let failure): error = failure
            case .success:
                error = ClientError(
                    .invalidResponse, "the exchange ended without a response", request: exchange.request)
            }
            answer(.failure(exchange.error(for: error, head: nil, received: 0, declared: nil)))
            return
        }
        // The body's reader maps a failure itself (none for a HEAD request, 204, 304).
        handoff?.finish(outcome)
    }
}
