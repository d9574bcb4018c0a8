import AsyncHTTPClient
import Foundation
import HTTPClient
import HTTPCore
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// A buffered exchange (``TransportOptions/awaitsWholeBody``, a body in memory or none, no
/// upload progress) through AsyncHTTPClient's delegate API: the body is collected on the event
/// loop as it arrives, and `send` is resumed once, when the response is whole or has failed.
///
/// The async API spends an actor and a task inside AsyncHTTPClient per request, and a read
/// that waits there is stopped only by cancelling the task that reads: this path needs neither.
/// The watchdog's guard fails the `HTTPClient.Task` itself (which works from any thread, at any
/// point of the exchange) when the idle timeout or the body's deadline passes, and the caller's
/// cancellation cancels it the same way.
final class BufferedExchange: HTTPClientResponseDelegate, Sendable {
    typealias Response = Void

    /// Why the guard failed the task: the limit's own error is made from ``TransferGuard/reason``.
    struct GuardExpired: Error {}

    private struct State {
        var head: HTTPCore.HTTPResponse?
        var data = Data()
        var received: Int64 = 0
        var requestHeads = 0
        /// The error this delegate failed the exchange with, if any.
        var failure: ClientError?
        /// Whether the caller's task was cancelled while it waited.
        var cancelled = false
    }

    private let exchange: Exchange
    private let state = NIOLockedValueBox(State())

    private init(exchange: Exchange) { self.exchange = exchange }

    /// Sends `request` with AsyncHTTPClient's delegate API and returns the whole response. The
    /// exchange's guard enforces every limit, the head's deadline included (AsyncHTTPClient's
    /// own deadline would bound the whole body here).
    /// - Parameter exchange: What the transport worked out for this send (the guard, the options).
    static func run(_ exchange: Exchange) async throws -> TransportResponse {
        let clientRequest = try makeRequest(exchange)
        let delegate = BufferedExchange(exchange: exchange)
        let task = exchange.client.execute(
            request: clientRequest, delegate: delegate, eventLoop: .indifferent, deadline: nil)
        exchange.guardian?.cancelling { task.fail(reason: GuardExpired()) }
        let outcome: Result<Void, any Error> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                task.futureResult.whenComplete { continuation.resume(returning: $0) }
            }
        } onCancel: {
            delegate.state.withLockedValue { $0.cancelled = true }
            task.cancel()
        }
        exchange.end()
        return try delegate.response(outcome)
    }

    /// The request AsyncHTTPClient's delegate API sends for the exchange's (a body in memory,
    /// if any); ends the exchange when it cannot be made.
    static func makeRequest(_ exchange: Exchange) throws -> HTTPClient.Request {
        let request = exchange.request
        do {
            // `send` checked the URL (HTTPRequest.checkURL()).
            var headers = HTTPHeaders()
            request.addFields(to: &headers)
            var body: HTTPClient.Body?
            if case .data(let data)? = request.body?.source { body = .bytes(data) }
            // The URL as it is, not its text parsed again.
            return try HTTPClient.Request(
                url: request.url, method: NIOHTTP1.HTTPMethod(rawValue: request.method.rawValue), headers: headers,
                body: body)
        } catch let error as ClientError {
            exchange.end()
            throw error
        } catch {
            exchange.end()
            throw ClientError(
                .invalidRequest, "AsyncHTTPClient cannot send to \(URLRedaction.display(request.url))",
                request: request, underlying: error)
        }
    }

    /// The response once the task ended with `outcome`, or the error a caller gets.
    private func response(_ outcome: Result<Void, any Error>) throws -> TransportResponse {
        let request = exchange.request
        let (head, data, received, requestHeads, failure, cancelled) = state.withLockedValue {
            ($0.head, $0.data, $0.received, $0.requestHeads, $0.failure, $0.cancelled)
        }
        if requestHeads > 1 { throw exchange.followsRedirects }
        let declared = head?.decodedBodyLength
        switch outcome {
        case .failure(let error):
            if cancelled, exchange.guardian?.reason == nil { throw CancellationError() }
            if exchange.guardian?.reason == nil, let failure { throw failure }
            throw exchange.error(for: error, head: head, received: received, declared: declared)
        case .success:
            guard let head else {
                throw ClientError(
                    .invalidResponse, "AsyncHTTPClient ended the exchange without a response", request: request)
            }
            if exchange.guardian?.reason != nil {
                // The limit passed as the exchange ended: its end is not to be trusted.
                throw exchange.error(for: GuardExpired(), head: head, received: received, declared: declared)
            }
            try exchange.checkLength(received: received, declared: declared, head: head)
            let body: HTTPBody? = head.hasBody(answering: request) ? HTTPBody(data) : nil
            return TransportResponse(head: head, body: body, bytesSent: exchange.bytesSent, proxy: exchange.proxy)
        }
    }

    // MARK: HTTPClientResponseDelegate (on the event loop)

    func didSendRequestHead(task: HTTPClient.Task<Void>, _ head: HTTPRequestHead) {
        state.withLockedValue { $0.requestHeads += 1 }
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ received: HTTPResponseHead) -> EventLoopFuture<Void> {
        exchange.headArrived()
        let request = exchange.request
        let limit = exchange.options.responseBufferLimit
        // Made outside the lock: reading the fields is the longest step here.
        let head: HTTPCore.HTTPResponse
        var failure: ClientError?
        do {
            head = try HTTPCore.HTTPResponse(
                status: received.status, headers: received.headers, version: received.version, for: request)
        } catch {
            // The initializer throws ClientError (invalidResponse) only.
            state.withLockedValue { $0.failure = error }
            return task.eventLoop.makeFailedFuture(error)
        }
        let declared = head.hasBody(answering: request) ? head.decodedBodyLength : nil
        if let declared, declared > limit { failure = Self.tooLarge(limit, request: request, head: head) }
        state.withLockedValue { state in
            state.head = head
            state.failure = failure
            if let declared, failure == nil { state.data.reserveCapacity(Int(declared)) }
        }
        if let failure { return task.eventLoop.makeFailedFuture(failure) }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        exchange.guardian?.touch()
        let limit = Int64(exchange.options.responseBufferLimit)
        let request = exchange.request
        let failure: ClientError? = state.withLockedValue { state in
            state.received += Int64(buffer.readableBytes)
            guard state.received <= limit else {
                state.failure = Self.tooLarge(Int(limit), request: request, head: state.head)
                return state.failure
            }
            state.data.append(copying: buffer)
            return nil
        }
        if let failure { return task.eventLoop.makeFailedFuture(failure) }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {}

    private static func tooLarge(
        _ limit: Int, request: HTTPCore.HTTPRequest, head: HTTPCore.HTTPResponse?
    )
        -> ClientError
    {
        ClientError(
            .responseTooLarge, "the response body is longer than the \(limit)-byte limit", request: request,
            response: head)
    }
}
