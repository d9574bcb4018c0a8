import Foundation

/// The life of one request on an ``AsyncHTTPClientTransport``, as a value: events go in, and
/// each returns the ``Actions`` its shell (``Transfer``) must carry out.
///
/// It decides everything that depends on the order in which things happen (the head, body
/// parts, the reader asking for them, the end or failure AsyncHTTPClient reports, the
/// caller's cancellation, the deadline, the idle timeout) and nothing else: it makes no
/// AsyncHTTPClient call, completes no future, resumes no continuation and builds no error, so
/// tests drive it through every ordering without a network.
///
/// Unlike URLSession on Linux, AsyncHTTPClient reads a body only as fast as its delegate
/// takes it (each part's future completes when the delegate wants the next), so a slow reader
/// pauses the server instead of filling memory: past ``highWater`` unread bytes the machine
/// asks the shell to hold the part's future (``Actions/holdDemand``), and the reader taking
/// bytes releases it (``Actions/resumeDemand``).
///
/// The phases:
/// - ``Phase/awaitingHead``: `send` waits for the response head.
/// - ``Phase/receivingBody``: the head was handed over with a body; parts arrive and wait
///   until the body's reader asks for them.
/// - ``Phase/finished``: the caller got a failure, or the body ended (parts may still wait
///   for the reader, then the end or the failure comes).
struct TransferState: Sendable {
    /// Where the transfer is.
    enum Phase: Sendable, Hashable {
        /// `send` waits for the response head.
        case awaitingHead
        /// The head was handed over; the body is arriving.
        case receivingBody
        /// Nothing more arrives: the caller failed, or the body ended or failed.
        case finished
    }

    /// Why a transfer ended other than with a complete body: the shell turns it into an error.
    enum Ending: Sendable {
        /// The caller's task was cancelled, or the body's reader went away.
        case cancelled
        /// The deadline passed.
        case timedOut
        /// Nothing moved for longer than the idle timeout.
        case idle
        /// More than `limit` body bytes arrived while the caller waited for the whole body.
        case tooLarge(limit: Int)
        /// The connection ended after `received` of the `declared` bytes of the body.
        case truncated(received: Int64, declared: Int64)
        /// The response head could not be read.
        case invalidHead(any Error)
        /// Reading the request body failed.
        case requestBodyFailed(any Error)
        /// AsyncHTTPClient failed the request with this error, after `received` body bytes.
        case failed(any Error, received: Int64)
    }

    /// What the caller waiting in `send` gets.
    enum CallerAnswer: Sendable {
        /// The head arrived (and, when the caller waits for it, the whole body): return it.
        case head
        /// The transfer ended before the head.
        case failure(Ending)
    }

    /// What the body's reader gets.
    enum ReaderAnswer: Sendable {
        /// The next chunk.
        case chunk(Data)
        /// The body ended.
        case end
        /// The body failed.
        case failure(Ending)
    }

    /// What the shell does after an event; every field is independent.
    struct Actions: Sendable {
        /// Resume the caller of `send`.
        var answerCaller: CallerAnswer?
        /// Resume the body's reader, which waits.
        var answerReader: ReaderAnswer?
        /// Cancel the AsyncHTTPClient task (it exists and has not ended).
        var cancelTask = false
        /// Stop reading the request body.
        var closeRequestBody = false
        /// Hold the future of the part just received until ``resumeDemand``: the reader is
        /// behind.
        var holdDemand = false
        /// Complete the held future: AsyncHTTPClient may deliver the next part.
        var resumeDemand = false
        /// Stop the deadline and idle timers: nothing they guard is left.
        var stopTimers = false

        /// No action.
        static let none = Actions()
    }

    /// Where the AsyncHTTPClient task is: not made yet, running, cancelled by this transfer
    /// (its end still to come), or ended.
    enum TaskState: Sendable, Hashable {
        case notCreated, running, cancelling, ended
    }

    private(set) var phase = Phase.awaitingHead
    private(set) var task = TaskState.notCreated
    /// Body bytes received, and those waiting for the reader.
    private(set) var received: Int64 = 0
    private(set) var buffered = 0
    /// Whether the reader waits for an answer.
    private(set) var readerWaiting = false
    /// Whether the future of the last part is held, pausing AsyncHTTPClient's reads.
    private(set) var demandHeld = false

    /// What the caller was answered, once it was: a caller that comes later (its
    /// continuation stored after the transfer ended) gets the same.
    private(set) var callerAnswer: CallerAnswer?
    /// Whether the deadline also ends a body still arriving.
    let deadlineCoversBody: Bool
    /// Whether the caller is answered once the whole body is here (or failed), not at the head.
    let answersWithWholeBody: Bool
    /// The most unread bytes held before AsyncHTTPClient is paused (streaming), or the most
    /// bytes of a whole body (when the caller waits for it).
    let bufferLimit: Int
    /// Unread bytes from which AsyncHTTPClient is paused: the buffer limit, at most 256 KiB.
    let highWater: Int

    private var declaredLength: Int64?
    private var chunks: [Data] = []
    private var nextChunk = 0
    /// How the body ended, told to the reader once the chunks before it are read.
    private var bodyEnd: ReaderAnswer?
    private var requestBodyError: (any Error)?

    /// Creates the state of a transfer not yet started.
    /// - Parameters:
    ///   - bufferLimit: The most body bytes that may wait for the reader.
    ///   - deadlineCoversBody: Whether the deadline also ends a body still arriving.
    ///   - answersWithWholeBody: Whether the caller waits for the whole body, not the head.
    init(bufferLimit: Int, deadlineCoversBody: Bool, answersWithWholeBody: Bool = false) {
        self.bufferLimit = max(1, bufferLimit)
        self.highWater = min(self.bufferLimit, 256 * 1024)
        self.deadlineCoversBody = deadlineCoversBody
        self.answersWithWholeBody = answersWithWholeBody
    }

    /// Whether the caller of `send` still waits for its answer.
    var callerWaiting: Bool { callerAnswer == nil }

    /// Whether the deadline no longer matters: the transfer is over, or the head was handed
    /// over and the deadline does not cover the body.
    var deadlineOver: Bool {
        phase == .finished || (phase == .receivingBody && !deadlineCoversBody && !callerWaiting)
    }

    // MARK: Events

    /// The task was made. If the transfer ended meanwhile, the task must be cancelled.
    mutating func taskCreated() -> Actions {
        guard task == .notCreated else { return .none }
        if phase == .finished {
            task = .cancelling
            return Actions(cancelTask: true, closeRequestBody: true)
        }
        task = .running
        return .none
    }

    /// The response head arrived and could be read: the caller is answered, unless it
    /// waits for the whole body (a transfer already over cancels its task).
    /// `declaredLength` is the body length the server declared and the transport can check.
    mutating func headReceived(hasBody: Bool, declaredLength: Int64?) -> Actions {
        guard phase == .awaitingHead else { return cancellingTask() }
        self.declaredLength = hasBody ? declaredLength : nil
        guard hasBody else {
            phase = .finished
            bodyEnd = .end
            return answering(Actions(answerCaller: .head, stopTimers: true))
        }
        phase = .receivingBody
        if answersWithWholeBody { return .none }
        return answering(Actions(answerCaller: .head, stopTimers: !deadlineCoversBody))
    }

    /// The response head could not be read: the caller fails with `error`.
    mutating func failedToReadHead(_ error: any Error) -> Actions {
        phase == .awaitingHead ? failingCaller(.invalidHead(error)) : cancellingTask()
    }

    /// A body part arrived.
    /// - Returns: It goes to a waiting reader or waits; past ``highWater`` unread bytes the
    ///   part's future is held; when the caller waits for the whole body, past the buffer
    ///   limit the body fails and the task is cancelled; a transfer already over cancels its
    ///   task.
    mutating func partReceived(_ data: Data) -> Actions {
        guard phase == .receivingBody else { return cancellingTask() }
        received += Int64(data.count)
        if readerWaiting {
            readerWaiting = false
            return Actions(answerReader: .chunk(data))
        }
        if answersWithWholeBody, buffered + data.count > bufferLimit {
            return endBody(.failure(.tooLarge(limit: bufferLimit)), cancel: true)
        }
        chunks.append(data)
        buffered += data.count
        guard !answersWithWholeBody, buffered >= highWater else { return .none }
        demandHeld = true
        return Actions(holdDemand: true)
    }

    /// The body's reader asks for the next chunk.
    /// - Parameter wait: Whether the reader waits when there is nothing yet; `false` only
    ///   asks, so the reader can avoid suspending.
    /// - Returns: An answer now, or none: the reader then waits (if `wait`) and is answered
    ///   by a later event. Taking bytes below ``highWater`` releases a held future.
    mutating func chunkWanted(wait: Bool) -> Actions {
        if nextChunk < chunks.count {
            let chunk = chunks[nextChunk]
            nextChunk += 1
            buffered -= chunk.count
            if nextChunk == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                nextChunk = 0
            }
            var actions = Actions(answerReader: .chunk(chunk))
            if demandHeld, buffered < highWater {
                demandHeld = false
                actions.resumeDemand = true
            }
            return actions
        }
        if let bodyEnd { return Actions(answerReader: bodyEnd) }
        if wait, phase == .receivingBody { readerWaiting = true }
        return .none
    }

    /// The whole body, when it ended successfully and none of it was read: handed over as
    /// bytes (one chunk uncopied), which empties the buffer; `nil` otherwise.
    mutating func takeWholeBody() -> Data? {
        guard case .end? = bodyEnd, !readerWaiting else { return nil }
        var whole = nextChunk < chunks.count ? chunks[nextChunk] : Data()
        for chunk in chunks.dropFirst(nextChunk + 1) { whole.append(chunk) }
        chunks = []
        nextChunk = 0
        buffered = 0
        return whole
    }

    /// AsyncHTTPClient ended the request, with `error` or successfully.
    mutating func ended(error: (any Error)?) -> Actions {
        let wasCancelling = task == .cancelling
        task = .ended
        switch phase {
        case .awaitingHead:
            let ending: Ending
            if let requestBodyError {
                ending = .requestBodyFailed(requestBodyError)
            } else if let error {
                ending = wasCancelling ? .cancelled : .failed(error, received: 0)
            } else {
                // AsyncHTTPClient ends a request only after its head; a defensive answer.
                ending = .failed(NoHead(), received: 0)
            }
            return failingCaller(ending)
        case .receivingBody:
            let ending: Ending?
            if let requestBodyError {
                ending = .requestBodyFailed(requestBodyError)
            } else if let declaredLength, received < declaredLength {
                ending = .truncated(received: received, declared: declaredLength)
            } else if let error {
                ending = wasCancelling ? .cancelled : .failed(error, received: received)
            } else {
                ending = nil
            }
            return endBody(ending.map { .failure($0) } ?? .end, cancel: false)
        case .finished:
            return Actions(closeRequestBody: true, resumeDemand: releasingDemand(), stopTimers: true)
        }
    }

    /// Reading the request body failed: the task is cancelled, and its end reports this
    /// failure.
    mutating func requestBodyFailed(_ error: any Error) -> Actions {
        if requestBodyError == nil { requestBodyError = error }
        return cancellingTask()
    }

    /// The task awaiting `send` was cancelled: the caller fails at once. Once the head was
    /// handed over, the body's reader decides instead.
    mutating func cancelled() -> Actions { failingCaller(.cancelled) }

    /// The body's reader was cancelled or went away: the chunks are dropped and the task
    /// is cancelled.
    mutating func readerGone() -> Actions {
        chunks = []
        nextChunk = 0
        buffered = 0
        let answer: ReaderAnswer? = readerWaiting ? .failure(.cancelled) : nil
        readerWaiting = false
        guard phase == .receivingBody else {
            if bodyEnd == nil || answer != nil { bodyEnd = .failure(.cancelled) }
            return Actions(answerReader: answer, resumeDemand: releasingDemand())
        }
        phase = .finished
        bodyEnd = .failure(.cancelled)
        var actions = cancellingTask()
        actions.answerReader = answer
        actions.stopTimers = true
        return actions
    }

    /// The deadline passed: the caller fails if it still waits, and so does a body still
    /// arriving when the deadline covers it.
    mutating func deadlinePassed() -> Actions {
        if callerWaiting { return failingCaller(.timedOut) }
        guard phase == .receivingBody, deadlineCoversBody else { return .none }
        return endBody(.failure(.timedOut), cancel: true)
    }

    /// Nothing moved for the idle timeout (while the transfer was not paused for its
    /// reader): the caller fails if it still waits, else a body still arriving.
    mutating func idleTimedOut() -> Actions {
        if callerWaiting { return failingCaller(.idle) }
        guard phase == .receivingBody else { return .none }
        return endBody(.failure(.idle), cancel: true)
    }

    // MARK: Helpers

    /// AsyncHTTPClient's end came without a head (never seen: a defensive ending).
    struct NoHead: Error, CustomStringConvertible {
        var description: String { "the request ended without a response head" }
    }

    /// Records the caller's answer in `actions`.
    private mutating func answering(_ actions: Actions) -> Actions {
        callerAnswer = actions.answerCaller
        return actions
    }

    /// Whether a held future must be released (the transfer is over); clears it.
    private mutating func releasingDemand() -> Bool {
        defer { demandHeld = false }
        return demandHeld
    }

    /// Fails a caller still waiting with `ending`, ends the transfer and cancels its task.
    private mutating func failingCaller(_ ending: Ending) -> Actions {
        guard callerWaiting, phase != .finished else { return .none }
        phase = .finished
        chunks = []
        nextChunk = 0
        buffered = 0
        bodyEnd = .failure(ending)
        var actions = cancellingTask()
        actions.answerCaller = .failure(ending)
        actions.stopTimers = true
        if readerWaiting {
            readerWaiting = false
            actions.answerReader = .failure(ending)
        }
        return answering(actions)
    }

    /// Ends the body with `end`, which the reader gets after the chunks still waiting; a
    /// caller waiting for the whole body gets it now, or the failure.
    private mutating func endBody(_ end: ReaderAnswer, cancel: Bool) -> Actions {
        phase = .finished
        bodyEnd = end
        var actions = cancel ? cancellingTask() : Actions(closeRequestBody: true)
        actions.stopTimers = true
        actions.resumeDemand = releasingDemand()
        if readerWaiting {
            readerWaiting = false
            actions.answerReader = end
        }
        if callerWaiting {
            if case .failure(let ending) = end {
                actions.answerCaller = .failure(ending)
            } else {
                actions.answerCaller = .head
            }
            return answering(actions)
        }
        return actions
    }

    /// Cancels the task if it runs (a task not made yet is cancelled when made, through
    /// ``taskCreated()``), stops the request body and releases a held future.
    private mutating func cancellingTask() -> Actions {
        var actions = Actions(closeRequestBody: task != .cancelling, resumeDemand: releasingDemand())
        guard task == .running else { return actions }
        task = .cancelling
        actions.cancelTask = true
        return actions
    }
}
