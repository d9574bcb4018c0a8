import Foundation
import HTTPCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The shell around one request's ``URLSessionTransferState``: it feeds the machine the
/// session delegate's callbacks, the caller's cancellation, its timer and the body
/// reader's requests, and carries out what the machine answers.
///
/// The timer is one ``DeadlineScheduler`` entry at a time, set for the machine's
/// ``URLSessionTransferState/timerDue`` (the deadline, or the end of the idle timeout):
/// Heron's own clock on a queue of its own, so the limits hold even while URLSession's work
/// queue, where its own timeout timer runs, is held up (on a busy machine it was late by
/// seconds, and a silent server's late answer then came back as a success).
///
/// `send` awaits a continuation resumed exactly once: with the head (and body), or with an
/// error. The body's reader awaits chunks through ``nextChunk()``.
/// Continuations are resumed and tasks cancelled outside the lock; URLSession tasks are
/// cancelled on another queue, never on the caller's thread or URLSession's work queue.
final class URLSessionTransfer: Sendable {
    /// What the lock guards: the machine and the things only the shell can hold.
    private struct Shared: Sendable {
        var machine: URLSessionTransferState
        var caller: CheckedContinuation<TransportResponse, any Error>?
        var reader: CheckedContinuation<Data?, any Error>?
        var task: URLSessionTask?
        var requestBody: (any URLSessionBodySource)?
        /// Makes the body's source anew, for a body that can be read again.
        var remakeBody: (@Sendable () -> any URLSessionBodySource)?
        var head: HTTPResponse?
        var bytesSent: Int64 = 0
        /// The timer's entry while it is set.
        var timer: DeadlineScheduler.Entry?
        /// Whether the transfer still counts in ``inFlight``.
        var inFlight = true
        /// A head held until what follows tells whose it is (see ``tunnels``).
        var heldHead: URLResponse?
    }

    /// Transfers of every ``URLSessionTransport`` of the process made and whose task has not
    /// completed: while another is, URLSession's work queue (which every session shares) may be
    /// busy with it, and ``URLSessionTransport`` then makes its tasks on a queue of its own.
    static let inFlight = Locked(0)

    let request: HTTPRequest
    /// The proxy the request goes through, if any: named in the response and in errors.
    let proxy: Proxy?
    /// Whether the request goes to an `https` origin through an HTTP proxy, in a `CONNECT`
    /// tunnel: libcurl then hands over the proxy's answer to `CONNECT` as a response head of
    /// its own (`200 Connection established`, or the refusal), before the origin's, and none
    /// when it reuses a tunnel already open. So each head is held until what follows tells
    /// whose it is: another head (the held one was the proxy's, dropped), body bytes or a
    /// successful end (it was the origin's), a failure (the tunnel's or the TLS handshake's,
    /// reported as such, without the proxy's head).
    private let tunnels: Bool
    private let progress: (@Sendable (TransferProgress) -> Void)?
    private let uploadExpected: Int64?
    private let shared: Locked<Shared>
    /// Where the timer is set.
    private let timers: DeadlineScheduler
    /// Whether the machine counts idle time, so callbacks read the clock.
    private let watchesIdle: Bool
    /// When the timer is first due, if the transfer has a time limit.
    let firstTimerDue: ContinuousClock.Instant?

    /// Where progress callbacks (callers' code) run, in order: never on URLSession's work
    /// queue, where the delegate calls this transfer on Linux. The caller's answer is handed
    /// over through it too, so a caller sees every upload report before `send` returns.
    private let progressQueue: DispatchQueue?

    /// The queue that cancels URLSession tasks, never from the caller's thread: cancelling
    /// synchronously from a cancellation handler can deadlock swift-corelibs-foundation.
    private static let cancelQueue = DispatchQueue(label: "Heron.URLSessionTransport.cancel")

    /// Creates the transfer of `request`.
    /// - Parameters:
    ///   - request: The request.
    ///   - options: The options of the send.
    ///   - timers: Where the transfer's timer is set.
    ///   - proxy: The proxy the request goes through, if any.
    init(request: HTTPRequest, options: TransportOptions, timers: DeadlineScheduler, proxy: Proxy? = nil) {
        Self.inFlight.withLock { $0 += 1 }
        self.request = request
        self.proxy = proxy
        tunnels = (proxy?.kind == .http || proxy?.kind == .https) && request.url.scheme?.lowercased() == "https"
        self.progress = options.progress
        self.timers = timers
        progressQueue = options.progress == nil ? nil : DispatchQueue(label: "Heron.URLSessionTransport.progress")
        if case .known(let length)? = request.body?.length { uploadExpected = length } else { uploadExpected = nil }
        // The idle timeout URLSession is given (whole seconds), so both clocks enforce the same
        // limit. A century or more is none (and would overflow the clock's arithmetic).
        let idleTimeout = URLSessionTransport.timeoutInterval(for: options.idleTimeout).flatMap {
            $0 < 3_153_600_000 ? Duration.seconds(Int64($0)) : nil
        }
        let machine = URLSessionTransferState(
            bufferLimit: options.responseBufferLimit, answersWithWholeBody: options.awaitsWholeBody,
            deadline: options.deadline, bodyDeadline: options.bodyDeadline, idleTimeout: idleTimeout,
            start: idleTimeout == nil ? nil : ContinuousClock.now)
        watchesIdle = idleTimeout != nil
        firstTimerDue = machine.timerDue
        shared = Locked(Shared(machine: machine))
    }

    /// A transfer whose task never started or never completed leaves ``inFlight`` here.
    deinit {
        if shared.withLock({ $0.inFlight }) { Self.inFlight.withLock { $0 -= 1 } }
    }

    /// Cancels `task` on the cancel queue.
    static func cancelLater(_ task: URLSessionTask) {
        cancelQueue.async { task.cancel() }
    }

    // MARK: The caller

    /// Stores the continuation of the awaiting `send`.
    /// - Returns: `false` when the transfer ended already (cancelled, or past its
    ///   deadline): the continuation is then resumed and no task must be made.
    func prepare(_ continuation: CheckedContinuation<TransportResponse, any Error>) -> Bool {
        let ended: URLSessionTransferState.Ending? = shared.withLock { shared in
            guard shared.machine.phase == .finished else {
                shared.caller = continuation
                return nil
            }
            if case .failure(let ending)? = shared.machine.callerAnswer { return ending }
            return .cancelled
        }
        guard let ended else { return true }
        continuation.resume(throwing: error(for: ended))
        return false
    }

    /// Keeps the source URLSession reads the request body from, closed when the transfer ends.
    func attach(_ source: any URLSessionBodySource) {
        shared.withLock { $0.requestBody = source }
    }

    /// Lets the transfer make its body's source again (a body that can be read again).
    func allowRemakingBody(_ make: @escaping @Sendable () -> any URLSessionBodySource) {
        shared.withLock { $0.remakeBody = make }
    }

    /// A new stream of the whole body, when URLSession must send it again: libcurl found the
    /// kept-alive connection it sent the request on closed by the server before any answer,
    /// and sends the request again on a new one, asking for the body from its start.
    ///
    /// Given only for an idempotent method's body that can be read again (a file, a
    /// replayable stream). Otherwise `nil`, and the transfer fails at once with
    /// ``ClientError/Code/connectionLost`` saying what happened (see
    /// ``closedBeforeAnswer(_:)``), rather than let libcurl send the head without its body,
    /// which left both sides waiting until the timeout (60 s by default): the server may have
    /// acted on the request, so one whose method is not idempotent is not sent again
    /// (RFC 9110 §9.2.2, RFC 9112 §9.3.1), and the client's retry policy decides, as after any
    /// lost connection. A body in memory cannot be given again: URLSession on Linux takes a
    /// new stream only for a body it reads from a stream.
    func freshBodyStream() -> InputStream? {
        let make = shared.withLock { $0.remakeBody }
        guard let make, request.method.isIdempotent else {
            requestBodyFailed(ClientError(.connectionLost, Self.closedBeforeAnswer(request), request: request))
            return nil
        }
        // Made, and the old source closed, outside the lock, as the transfer's end closes it.
        let fresh = make()
        let old = shared.withLock { shared in
            defer { shared.requestBody = fresh }
            return shared.requestBody
        }
        old?.close()
        return fresh.makeInputStream()
    }

    /// What a request that libcurl had to send again on a new connection failed of: the
    /// server closed the connection before it answered, the request may have reached it, and
    /// why its body, named by kind, is not sent again.
    static func closedBeforeAnswer(_ request: HTTPRequest) -> String {
        let closed =
            "the server closed the connection the request was sent on before it answered, so the request may "
            + "have reached the server"
        guard let body = request.body else { return closed }
        let kind: String
        switch body.source {
        case .data(let data): kind = "\(data.count) bytes in memory"
        case .file: kind = "a file"
        case .stream: kind = body.isReplayable ? "a stream that can be read again" : "a one-shot stream"
        }
        if !request.method.isIdempotent {
            return closed
                + "; its body (\(kind)) is not sent again: \(request.method.rawValue) is not idempotent "
                + "(RFC 9110 §9.2.2)"
        }
        if case .data = body.source {
            return closed
                + "; its body (\(kind)) cannot be sent again on a new connection by URLSession, which re-sends "
                + "only a streamed body"
        }
        return closed + "; its body (\(kind)) cannot be read again"
    }

    /// Stores the task before it runs.
    /// - Returns: `false` when the transfer ended meanwhile: the task must not run.
    func start(_ task: URLSessionTask) -> Bool {
        var made = false
        handle { shared in
            shared.task = task
            let actions = shared.machine.taskCreated()
            made = !actions.cancelTask
            // The caller unregisters and cancels the task itself.
            return URLSessionTransferState.Actions(closeRequestBody: actions.closeRequestBody)
        }
        return made
    }

    /// Sets the timer for `due`; an entry set when the transfer no longer needs it is finished
    /// at once. The entry's action holds the transfer strongly (a weak reference would move
    /// every retain of the transfer to a slower path): finishing the entry, once the limits no
    /// longer matter, releases it even while the entry waits in the scheduler's heap.
    func setTimer(at due: ContinuousClock.Instant) {
        let entry = timers.schedule(at: due) { [self] in timerFired() }
        let unneeded = shared.withLock { shared -> DeadlineScheduler.Entry? in
            guard shared.machine.needsTimer else { return entry }
            // The entry set before (one that fired, or a later one set again earlier) is done.
            defer { shared.timer = entry }
            return shared.timer
        }
        if let unneeded { timers.finish(unneeded) }
    }

    /// Stops the timer if the limits no longer matter; for `send` once it is answered.
    func stopTimerIfOver() {
        let over = shared.withLock { shared in
            guard !shared.machine.needsTimer else { return DeadlineScheduler.Entry?.none }
            defer { shared.timer = nil }
            return shared.timer
        }
        if let over { timers.finish(over) }
    }

    /// The timer fired: the machine judges the time read now, and the timer is set again
    /// when no limit has passed yet.
    private func timerFired() {
        let now = ContinuousClock.now
        let actions = handle { $0.machine.timerFired(at: now) }
        if let due = actions.setTimer { setTimer(at: due) }
    }

    /// The task awaiting `send` was cancelled.
    func cancel() { handle { $0.machine.cancelled() } }

    /// Reading the request body failed.
    func requestBodyFailed(_ error: any Error) { handle { $0.machine.requestBodyFailed(error) } }

    // MARK: Delegate callbacks (one at a time; on Linux on URLSession's work queue)

    /// The response head arrived.
    /// - Returns: Whether to go on receiving the body.
    func didReceive(_ response: URLResponse) -> Bool {
        guard tunnels else { return deliver(response) }
        if let status = (response as? HTTPURLResponse)?.statusCode, (100..<200).contains(status), status != 101 {
            return deliver(response)
        }
        // A head held before this one was the proxy's answer to CONNECT: dropped.
        shared.withLock { shared in
            shared.heldHead = response
            if watchesIdle { shared.machine.progressed(at: .now) }
        }
        return true
    }

    /// Hands the head held for a tunnelled request on, if there is one.
    /// - Returns: Whether to go on receiving.
    private func deliverHeldHead() -> Bool {
        guard
            let held = shared.withLock({ shared in
                defer { shared.heldHead = nil }
                return shared.heldHead
            })
        else {
            return true
        }
        return deliver(held)
    }

    /// Gives the machine a response head.
    /// - Returns: Whether to go on receiving the body.
    private func deliver(_ response: URLResponse) -> Bool {
        // An interim response (`100 Continue` to `Expect: 100-continue`, `103 Early Hints`)
        // precedes the final one on the same task (RFC 9110 §15.2); libcurl hands it over as a
        // head of its own. It is not the answer: wait for the next head.
        let now = watchesIdle ? ContinuousClock.now : nil
        if let status = (response as? HTTPURLResponse)?.statusCode, (100..<200).contains(status), status != 101 {
            if let now { shared.withLock { $0.machine.progressed(at: now) } }
            return true
        }
        let head: HTTPResponse
        do {
            head = try HTTPResponse(response, for: request)
        } catch {
            handle { $0.machine.failedToReadHead(error) }
            return false
        }
        let actions = handle { shared in
            shared.head = head
            if let now { shared.machine.progressed(at: now) }
            return shared.machine.headReceived(
                hasBody: head.hasBody(answering: request), declaredLength: head.decodedBodyLength)
        }
        if let due = actions.setTimer { setTimer(at: due) }
        return !actions.cancelTask
    }

    /// Body bytes arrived.
    /// - Returns: `false` when the transfer is over and its task should be cancelled.
    func didReceive(_ data: Data) -> Bool {
        if tunnels, !deliverHeldHead() { return false }
        let now = watchesIdle ? ContinuousClock.now : nil
        return !handle { shared in
            if let now { shared.machine.progressed(at: now) }
            return shared.machine.dataReceived(data)
        }.cancelTask
    }

    /// Request body bytes went out.
    func didSend(totalBytesSent: Int64) {
        let now = watchesIdle ? ContinuousClock.now : nil
        let over = shared.withLock { shared in
            shared.bytesSent = totalBytesSent
            if let now { shared.machine.progressed(at: now) }
            return shared.machine.phase == .finished
        }
        if !over { report(TransferProgress(direction: .upload, completed: totalBytesSent, expected: uploadExpected)) }
    }

    /// The task ended, with `error` or successfully.
    func didComplete(error: (any Error)?) {
        if tunnels {
            if error == nil {
                _ = deliverHeldHead()
            } else {
                shared.withLock { $0.heldHead = nil }
            }
        }
        handle { $0.machine.completed(error: error) }
    }

    // MARK: The body's reader

    /// The next chunk of the response body, waiting for one; `nil` at its end.
    func nextChunk() async throws -> Data? {
        // A cancelled reader gets no more chunks, even ones already here: when a starved
        // reader's task is cancelled after the whole body arrived, it must still stop.
        if Task.isCancelled {
            readerGone()
            throw CancellationError()
        }
        // Asked first without a continuation: a chunk already here costs no suspension.
        let now = shared.withLock { $0.machine.chunkWanted(wait: false) }
        if let answer = now.answerReader { return try value(of: answer) }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                let actions = shared.withLock { shared in
                    let actions = shared.machine.chunkWanted(wait: true)
                    if actions.answerReader == nil { shared.reader = continuation }
                    return actions
                }
                guard let answer = actions.answerReader else { return }
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
        var task: URLSessionTask?
        var requestBody: (any URLSessionBodySource)?
        var timer: DeadlineScheduler.Entry?
        var leftFlight = false
        var head: HTTPResponse?
        var wholeBody: Data?
        var bytesSent: Int64 = 0
    }

    /// Feeds one event to the machine and carries out its actions outside the lock.
    /// - Returns: The actions.
    @discardableResult
    private func handle(_ event: (inout Shared) -> URLSessionTransferState.Actions) -> URLSessionTransferState.Actions {
        var taken = Taken()
        let actions = shared.withLock { shared in
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
            // When the caller is answered, `send` stops the timer on its own thread instead
            // (``stopTimerIfOver()``): less work on URLSession's work queue.
            if shared.timer != nil, actions.answerCaller == nil, !shared.machine.needsTimer {
                swap(&taken.timer, &shared.timer)
            }
            // Once the task completed, URLSession's work queue has nothing more of it to do.
            if shared.inFlight, shared.machine.task == .completed {
                shared.inFlight = false
                taken.leftFlight = true
            }
            return actions
        }
        if taken.leftFlight { Self.inFlight.withLock { $0 -= 1 } }
        if let timer = taken.timer { timers.finish(timer) }
        taken.requestBody?.close()
        if let task = taken.task { Self.cancelLater(task) }
        if let answer = actions.answerReader, let reader = taken.reader {
            reader.resume(with: Result { try value(of: answer) })
        }
        if let answer = actions.answerCaller, let caller = taken.caller {
            answerCaller(caller, with: answer, head: taken.head, wholeBody: taken.wholeBody, sent: taken.bytesSent)
        }
        return actions
    }

    /// Resumes the caller of `send`, after the upload progress already reported; a body
    /// that arrived whole goes as bytes, with no reader behind it.
    private func answerCaller(
        _ caller: CheckedContinuation<TransportResponse, any Error>, with answer: URLSessionTransferState.CallerAnswer,
        head: HTTPResponse?, wholeBody: Data?, sent: Int64
    ) {
        let result: Result<TransportResponse, any Error>
        switch (answer, head) {
        case (.head, let head?):
            var bytesSent: Int64 = 0
            if request.body != nil {
                // URLSession does not always report small bodies: 100% is reported for them.
                bytesSent = sent > 0 ? sent : uploadExpected ?? 0
                if sent != bytesSent || uploadExpected != bytesSent {
                    report(TransferProgress(direction: .upload, completed: bytesSent, expected: bytesSent))
                }
            }
            var body: HTTPBody?
            if !head.hasBody(answering: request) {
                body = nil
            } else if let wholeBody {
                body = HTTPBody(wholeBody)
            } else {
                let reader = ResponseBodyReader(transfer: self)
                body = HTTPBody(length: .unknown, iterationBehavior: .single) { reader }
            }
            result = .success(TransportResponse(head: head, body: body, bytesSent: bytesSent, proxy: proxy))
        case (.head, nil):
            result = .failure(error(for: .noHead))
        case (.failure(let ending), _):
            result = .failure(error(for: ending))
        }
        guard let progressQueue else { return caller.resume(with: result) }
        progressQueue.async { caller.resume(with: result) }
    }

    /// The chunk in `answer`, `nil` at the end, or its failure thrown.
    private func value(of answer: URLSessionTransferState.ReaderAnswer) throws -> Data? {
        switch answer {
        case .chunk(let data): return data
        case .end: return nil
        case .failure(let ending): throw error(for: ending)
        }
    }

    /// The error a caller or reader gets for `ending`.
    private func error(for ending: URLSessionTransferState.Ending) -> any Error {
        let head = shared.withLock { $0.head }
        switch ending {
        case .cancelled:
            return CancellationError()
        case .timedOut:
            let what =
                head == nil
                ? "no response before the deadline of the attempt"
                : "the response body did not end before the call's deadline"
            return ClientError(.timedOut, what, request: request, response: head)
        case .idleTimedOut(let timeout):
            // The same error whichever clock saw it first, this transfer's or URLSession's:
            // the underlying error is URLError's timeout either way.
            return ClientError(
                .timedOut, "no byte moved within the idle timeout of \(timeout)", request: request, response: head,
                underlying: URLError(.timedOut))
        case .tooLarge(let limit):
            return ClientError(
                .responseTooLarge, "the response body outgrew the \(limit)-byte buffer before it was read",
                request: request, response: head)
        case .truncated(let received, let declared):
            return ClientError(
                .truncatedBody, "the body ended after \(received) of the \(declared) bytes its Content-Length declared",
                request: request, response: head)
        case .noHead:
            return ClientError(.invalidResponse, "the connection ended without a response head", request: request)
        case .invalidHead(let error):
            return error
        case .requestBodyFailed(let error as ClientError):
            // The transfer's own verdict on the body (one that cannot be sent again).
            return error
        case .requestBodyFailed(let error):
            return ClientError(
                .invalidRequest, "the request body could not be read: \(error)", request: request, response: head,
                underlying: error)
        case .failed(let error, let received):
            if let proxy, let urlError = error as? URLError,
                let failure = URLSessionTransport.proxyError(urlError, request: request, proxy: proxy)
            {
                // The head, if any, was the proxy's answer to CONNECT, which libcurl passes on.
                return failure
            }
            if let head, let urlError = error as? URLError, let coding = URLSessionTransport.undecodable(urlError, head)
            {
                return ClientError(
                    .contentDecodingFailed,
                    "the body's Content-Encoding \(coding) could not be decoded (URLError \(urlError.code.rawValue))",
                    request: request, response: head, underlying: urlError)
            }
            if let head, let urlError = error as? URLError, urlError.code == .unknown {
                // libcurl reports a connection closed inside a body of unknown length as an
                // unknown error (-1, "transfer closed with outstanding read data").
                return ClientError(
                    .connectionLost, "the connection closed after \(received) bytes of the body (URLError -1)",
                    request: request, response: head, underlying: urlError)
            }
            return URLSessionTransport.mapError(error, request: request, response: head, proxy: proxy)
        }
    }

    /// Hands `progress` to the callback on the progress queue.
    private func report(_ progress: TransferProgress) {
        guard let callback = self.progress, let progressQueue else { return }
        progressQueue.async { callback(progress) }
    }
}
