import AsyncHTTPClient
import Foundation
import HTTPClient
import HTTPCore
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// The shell around one request's ``TransferState``: AsyncHTTPClient's delegate for it. It
/// feeds the machine the delegate callbacks, the end of AsyncHTTPClient's task, the caller's
/// cancellation, the timers and the body reader's requests, and carries out what the machine
/// answers.
///
/// `send` awaits a continuation resumed exactly once: with the head (and body), or with an
/// error. The body's reader awaits chunks through ``nextChunk()``. Continuations are resumed,
/// futures completed and the task cancelled outside the lock.
final class Transfer: HTTPClientResponseDelegate, Sendable {
    typealias Response = Void

    /// What the lock guards: the machine and the things only the shell can hold.
    private struct Shared {
        var machine: TransferState
        var caller: CheckedContinuation<TransportResponse, any Error>?
        var reader: CheckedContinuation<Data?, any Error>?
        var task: HTTPClient.Task<Void>?
        var head: HTTPResponse?
        var heldDemand: EventLoopPromise<Void>?
        var requestBody: RequestBodyPump?
        var deadlineTimer: Scheduled<Void>?
        var idleTimer: Scheduled<Void>?
        var lastActivity: NIODeadline
        var bytesSent: Int64 = 0
        var headsSeen = 0
        var counted = true
    }

    let request: HTTPRequest
    let eventLoop: any EventLoop
    private let progress: (@Sendable (TransferProgress) -> Void)?
    private let uploadExpected: Int64?
    private let idleTimeout: TimeAmount?
    private let transfers: TransferCount
    private let shared: NIOLockedValueBox<Shared>

    /// Where progress callbacks (callers' code) run, in order: never on an event loop, which
    /// every request of the client shares. The caller's answer is handed over through it
    /// too, so a caller sees every upload report before `send` returns.
    private let progressQueue: DispatchQueue?

    init(
        request: HTTPRequest, options: TransportOptions, eventLoop: any EventLoop, transfers: TransferCount
    ) {
        self.request = request
        self.eventLoop = eventLoop
        self.transfers = transfers
        progress = options.progress
        progressQueue =
            options.progress == nil ? nil : DispatchQueue(label: "Heron.AsyncHTTPClientTransport.progress")
        if case .known(let length)? = request.body?.length { uploadExpected = length } else { uploadExpected = nil }
        idleTimeout = options.idleTimeout.map(Self.timeAmount)
        shared = NIOLockedValueBox(
            Shared(
                machine: TransferState(
                    bufferLimit: options.responseBufferLimit, deadlineCoversBody: options.deadlineCoversBody,
                    answersWithWholeBody: options.awaitsWholeBody),
                lastActivity: .now()))
        transfers.add()
    }

    /// `duration` as NIO's time amount, clamped to what it can hold.
    static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        guard seconds < Int64.max / 1_000_000_000 - 1 else { return .nanoseconds(.max) }
        return .nanoseconds(max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
    }

    // MARK: The caller

    /// Stores the continuation of the awaiting `send`.
    /// - Returns: `false` when the transfer ended already (cancelled): the continuation is
    ///   then resumed and nothing must be sent.
    func prepare(_ continuation: CheckedContinuation<TransportResponse, any Error>) -> Bool {
        let ended: TransferState.Ending? = shared.withLockedValue { shared in
            guard shared.machine.phase == .finished else {
                shared.caller = continuation
                return nil
            }
            if case .failure(let ending)? = shared.machine.callerAnswer { return ending }
            return .cancelled
        }
        guard let ended else { return true }
        finishCount()
        continuation.resume(throwing: error(for: ended))
        return false
    }

    /// Keeps the pump that sends the request body, closed when the transfer ends.
    func attach(_ pump: RequestBodyPump) {
        shared.withLockedValue { $0.requestBody = pump }
    }

    /// Starts the timers: the deadline, unless `nil`, and the idle timeout, unless the
    /// deadline always comes first.
    func startTimers(deadline: ContinuousClock.Instant?) {
        var deadlineIn: TimeAmount?
        if let deadline { deadlineIn = Self.timeAmount(deadline - .now) }
        let idle = idleTimeout.flatMap { idle -> TimeAmount? in
            if let deadlineIn, deadlineIn <= idle, shared.withLockedValue({ $0.machine.deadlineCoversBody }) {
                return nil
            }
            return idle
        }
        let deadlineTimer = deadlineIn.map { delay in
            eventLoop.scheduleTask(in: delay) { [self] in handle { $0.machine.deadlinePassed() } }
        }
        let idleTimer = idle.map { delay in eventLoop.scheduleTask(in: delay) { [self] in idleCheck() } }
        let over = shared.withLockedValue { shared in
            shared.deadlineTimer = deadlineTimer
            shared.idleTimer = idleTimer
            return shared.machine.phase == .finished
        }
        if over { stopTimers() }
    }

    /// Stores AsyncHTTPClient's task, and follows its end.
    func start(_ task: HTTPClient.Task<Void>) {
        handle { shared in
            shared.task = task
            return shared.machine.taskCreated()
        }
        task.futureResult.whenComplete { [self] result in
            switch result {
            case .success: handle { $0.machine.ended(error: nil) }
            case .failure(let error): handle { $0.machine.ended(error: error) }
            }
            finishCount()
        }
    }

    /// The task awaiting `send` was cancelled.
    func cancel() { handle { $0.machine.cancelled() } }

    /// Reading the request body failed.
    func requestBodyFailed(_ error: any Error) { handle { $0.machine.requestBodyFailed(error) } }

    /// Takes this transfer out of the transport's count, once.
    private func finishCount() {
        let counted = shared.withLockedValue { shared in
            defer { shared.counted = false }
            return shared.counted
        }
        if counted { transfers.remove() }
    }

    // MARK: Timers

    /// The idle timer fired: the transfer fails if nothing moved for the idle timeout (a
    /// transfer paused for its reader counts as moving), else the timer is set again for
    /// the rest of the timeout.
    private func idleCheck() {
        guard let idleTimeout else { return }
        let now = NIODeadline.now()
        let rest: TimeAmount? = shared.withLockedValue { shared in
            if shared.machine.phase == .finished { return nil }
            if shared.machine.demandHeld { shared.lastActivity = now }
            let quiet = now - shared.lastActivity
            return quiet >= idleTimeout ? .zero : idleTimeout - quiet
        }
        guard let rest else { return }
        if rest == .zero {
            handle { $0.machine.idleTimedOut() }
            return
        }
        let timer = eventLoop.scheduleTask(in: rest) { [self] in idleCheck() }
        let over = shared.withLockedValue { shared in
            shared.idleTimer = timer
            return shared.machine.phase == .finished
        }
        if over { timer.cancel() }
    }

    /// Cancels both timers.
    private func stopTimers() {
        let timers = shared.withLockedValue { shared in
            defer {
                shared.deadlineTimer = nil
                shared.idleTimer = nil
            }
            return (shared.deadlineTimer, shared.idleTimer)
        }
        timers.0?.cancel()
        timers.1?.cancel()
    }

    // MARK: AsyncHTTPClient's delegate callbacks (on the task's event loop)

    func didSendRequestPart(task: HTTPClient.Task<Void>, _ part: IOData) {
        let sent = shared.withLockedValue { shared in
            shared.lastActivity = .now()
            shared.bytesSent += Int64(part.readableBytes)
            return shared.machine.phase == .finished ? nil : shared.bytesSent
        }
        if let sent { report(TransferProgress(direction: .upload, completed: sent, expected: uploadExpected)) }
    }

    func didVisitURL(task: HTTPClient.Task<Void>, _ request: HTTPClient.Request, _ head: HTTPResponseHead) {
        let heads = shared.withLockedValue { shared in
            shared.headsSeen += 1
            return shared.headsSeen
        }
        // A second head means the HTTPClient followed a redirect: not what a transport may do.
        if heads > 1 {
            requestBodyFailed(
                ClientError(
                    .transport,
                    "the AsyncHTTPClient HTTPClient follows redirects; make it with redirectConfiguration: .disallow "
                        + "(Heron's client follows them)", request: self.request))
        }
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        do {
            let response = try HTTPResponse(head, for: request)
            handle { shared in
                shared.lastActivity = .now()
                shared.head = response
                return shared.machine.headReceived(
                    hasBody: response.hasBody(answering: request), declaredLength: response.decodedBodyLength)
            }
        } catch {
            handle { $0.machine.failedToReadHead(error) }
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let data = Data(buffer.readableBytesView)
        var held: EventLoopPromise<Void>?
        handle { shared in
            shared.lastActivity = .now()
            let actions = shared.machine.partReceived(data)
            if actions.holdDemand {
                let promise = task.eventLoop.makePromise(of: Void.self)
                shared.heldDemand = promise
                held = promise
            }
            return actions
        }
        return held?.futureResult ?? task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {}

    // MARK: The body's reader

    /// The next chunk of the response body, waiting for one; `nil` at its end.
    func nextChunk() async throws -> Data? {
        // A cancelled reader gets no more chunks, even ones already here.
        if Task.isCancelled {
            readerGone()
            throw CancellationError()
        }
        // Asked first without a continuation: a chunk already here costs no suspension.
        var now: TransferState.Actions = .none
        handle { shared in
            now = shared.machine.chunkWanted(wait: false)
            return TransferState.Actions(resumeDemand: now.resumeDemand)
        }
        if let answer = now.answerReader { return try value(of: answer) }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                var answer: TransferState.ReaderAnswer?
                handle { shared in
                    let actions = shared.machine.chunkWanted(wait: true)
                    answer = actions.answerReader
                    if answer == nil { shared.reader = continuation }
                    return TransferState.Actions(resumeDemand: actions.resumeDemand)
                }
                guard let answer else { return }
                continuation.resume(with: Result { try value(of: answer) })
            }
        } onCancel: {
            readerGone()
        }
    }

    /// The body's reader was cancelled or released.
    func readerGone() { handle { $0.machine.readerGone() } }

    // MARK: Carrying out

    /// What one event's actions need, taken from the shared state under the lock.
    private struct Taken {
        var caller: CheckedContinuation<TransportResponse, any Error>?
        var reader: CheckedContinuation<Data?, any Error>?
        var task: HTTPClient.Task<Void>?
        var requestBody: RequestBodyPump?
        var demand: EventLoopPromise<Void>?
        var timers: (Scheduled<Void>?, Scheduled<Void>?) = (nil, nil)
        var head: HTTPResponse?
        var wholeBody: Data?
        var bytesSent: Int64 = 0
    }

    /// Feeds one event to the machine and carries out its actions outside the lock.
    private func handle(_ event: (inout Shared) -> TransferState.Actions) {
        var taken = Taken()
        let actions = shared.withLockedValue { shared in
            let actions = event(&shared)
            if let answer = actions.answerCaller {
                swap(&taken.caller, &shared.caller)
                taken.head = shared.head
                taken.bytesSent = shared.bytesSent
                if case .head = answer { taken.wholeBody = shared.machine.takeWholeBody() }
            }
            if actions.answerReader != nil { swap(&taken.reader, &shared.reader) }
            if actions.cancelTask { taken.task = shared.task }
            if actions.closeRequestBody { swap(&taken.requestBody, &shared.requestBody) }
            if actions.resumeDemand { swap(&taken.demand, &shared.heldDemand) }
            if actions.stopTimers || shared.machine.deadlineOver {
                taken.timers = (shared.deadlineTimer, shared.idleTimer)
                shared.deadlineTimer = nil
                shared.idleTimer = nil
            }
            return actions
        }
        taken.timers.0?.cancel()
        taken.timers.1?.cancel()
        taken.requestBody?.close()
        taken.task?.cancel()
        taken.demand?.succeed(())
        if let answer = actions.answerReader, let reader = taken.reader {
            reader.resume(with: Result { try value(of: answer) })
        }
        if let answer = actions.answerCaller, let caller = taken.caller {
            answerCaller(caller, with: answer, head: taken.head, wholeBody: taken.wholeBody, sent: taken.bytesSent)
        }
    }

    /// Resumes the caller of `send`, after the upload progress already reported; a body
    /// that arrived whole goes as bytes, with no reader behind it.
    private func answerCaller(
        _ caller: CheckedContinuation<TransportResponse, any Error>, with answer: TransferState.CallerAnswer,
        head: HTTPResponse?, wholeBody: Data?, sent: Int64
    ) {
        let result: Result<TransportResponse, any Error>
        switch (answer, head) {
        case (.head, let head?):
            var body: HTTPBody?
            if !head.hasBody(answering: request) {
                body = nil
            } else if let wholeBody {
                body = HTTPBody(wholeBody)
            } else {
                let reader = ResponseBodyReader(transfer: self)
                body = HTTPBody(length: .unknown, iterationBehavior: .single) { reader }
            }
            if request.body != nil, uploadExpected != sent {
                // A body of unknown length ends at what was sent: the last report says 100%.
                report(TransferProgress(direction: .upload, completed: sent, expected: sent))
            }
            result = .success(
                TransportResponse(head: head, body: body, bytesSent: request.body == nil ? 0 : sent))
        case (.head, nil):
            result = .failure(error(for: .failed(TransferState.NoHead(), received: 0)))
        case (.failure(let ending), _):
            result = .failure(error(for: ending))
        }
        guard let progressQueue else { return caller.resume(with: result) }
        progressQueue.async { caller.resume(with: result) }
    }

    /// The chunk in `answer`, `nil` at the end, or its failure thrown.
    private func value(of answer: TransferState.ReaderAnswer) throws -> Data? {
        switch answer {
        case .chunk(let data): return data
        case .end: return nil
        case .failure(let ending): throw error(for: ending)
        }
    }

    /// The error a caller or reader gets for `ending`.
    private func error(for ending: TransferState.Ending) -> any Error {
        let head = shared.withLockedValue { $0.head }
        switch ending {
        case .cancelled:
            return CancellationError()
        case .timedOut:
            return ClientError(
                .timedOut, "no response before the deadline of the attempt", request: request, response: head)
        case .idle:
            return ClientError(
                .timedOut, "no data moved within the idle timeout", request: request, response: head)
        case .tooLarge(let limit):
            return ClientError(
                .responseTooLarge, "the response body is longer than the \(limit)-byte limit", request: request,
                response: head)
        case .truncated(let received, let declared):
            return ClientError(
                .truncatedBody, "the body ended after \(received) of the \(declared) bytes its Content-Length declared",
                request: request, response: head)
        case .invalidHead(let error):
            return error
        case .requestBodyFailed(let error):
            if let error = error as? ClientError { return error }
            return ClientError(
                .invalidRequest, "the request body could not be read: \(error)", request: request, response: head,
                underlying: error)
        case .failed(let error, let received):
            return AsyncHTTPClientTransport.mapError(error, request: request, response: head, bodyBytes: received)
        }
    }

    /// Hands `progress` to the callback on the progress queue.
    private func report(_ progress: TransferProgress) {
        guard let callback = self.progress, let progressQueue else { return }
        progressQueue.async { callback(progress) }
    }
}
