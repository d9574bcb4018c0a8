import Foundation

/// The life of one request on a ``URLSessionTransport``, as a value: events go in, and
/// each returns the ``Actions`` its shell (``URLSessionTransfer``) must carry out.
///
/// It decides everything that depends on the order in which things happen (the head, body
/// bytes, the reader asking for them, the task's completion, the caller's cancellation,
/// the deadline, the idle timeout) and nothing else: it makes no URLSession call, resumes
/// no continuation, reads no clock and builds no error, so tests drive it through every
/// ordering, and every timing, without a network.
///
/// Time comes in with the events that need it. The shell keeps one timer per transfer, set
/// for ``timerDue``: the deadline or the end of the idle timeout, whichever comes first. When
/// it fires, ``timerFired(at:)`` fails the transfer if a limit has passed, or asks for the
/// timer again at the new ``timerDue`` (bytes moved meanwhile: ``progressed(at:)``).
///
/// The phases:
/// - ``Phase/awaitingHead``: `send` waits for the response head.
/// - ``Phase/receivingBody``: the head was handed over with a body; chunks arrive and
///   wait (at most `bufferLimit` bytes) until the body's reader asks for them.
/// - ``Phase/finished``: the caller got a failure, or the body ended (chunks may still
///   wait for the reader, then the end or the failure comes).
struct URLSessionTransferState: Sendable {
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
        /// No byte moved for `timeout`, the idle timeout.
        case idleTimedOut(Duration)
        /// More than `limit` body bytes were waiting for the reader.
        case tooLarge(limit: Int)
        /// The task ended after `received` of the `declared` bytes of the body.
        case truncated(received: Int64, declared: Int64)
        /// The task ended successfully without a response head.
        case noHead
        /// The response head could not be read.
        case invalidHead(any Error)
        /// Reading the request body failed.
        case requestBodyFailed(any Error)
        /// URLSession failed the task with this error, after `received` body bytes.
        case failed(any Error, received: Int64)
    }

    /// What the caller waiting in `send` gets.
    enum CallerAnswer: Sendable {
        /// The head arrived: return it, with a body when `hasBody`.
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
        /// Cancel the URLSession task (it exists and has not completed).
        var cancelTask = false
        /// Stop reading the request body.
        var closeRequestBody = false
        /// Set the transfer's timer (which has just fired) again, for this instant.
        var setTimer: ContinuousClock.Instant?

        /// No action.
        static let none = Actions()
    }

    /// Where the URLSession task is: not made yet, running, cancelled by this transfer
    /// (its completion still to come), or completed.
    enum TaskState: Sendable, Hashable {
        case notCreated, running, cancelling, completed
    }

    private(set) var phase = Phase.awaitingHead
    private(set) var task = TaskState.notCreated
    /// Body bytes received, and those waiting for the reader.
    private(set) var received: Int64 = 0
    private(set) var buffered = 0
    /// Whether the reader waits for an answer.
    private(set) var readerWaiting = false

    /// What the caller was answered, once it was: a caller that comes later (its
    /// continuation stored after the transfer ended) gets the same.
    private(set) var callerAnswer: CallerAnswer?
    /// Whether the caller is answered once the whole body is here (or failed), not at the head.
    let answersWithWholeBody: Bool

    /// When the response head must have arrived, if ever.
    let deadline: ContinuousClock.Instant?
    /// When the whole body (and so the head) must have arrived, if ever.
    let bodyDeadline: ContinuousClock.Instant?
    /// The longest time without a byte moving, in either direction, if limited.
    let idleTimeout: Duration?
    /// When bytes last moved, or the transfer began; the idle timeout counts from here.
    private(set) var lastProgress: ContinuousClock.Instant?

    private let bufferLimit: Int
    private var declaredLength: Int64?
    private var chunks: [Data] = []
    private var nextChunk = 0
    /// How the body ended, told to the reader once the chunks before it are read.
    private var bodyEnd: ReaderAnswer?
    private var requestBodyError: (any Error)?

    /// Creates the state of a transfer not yet started.
    /// - Parameters:
    ///   - bufferLimit: The most body bytes that may wait for the reader.
    ///   - answersWithWholeBody: Whether the caller waits for the whole body, not the head.
    ///   - deadline: When the head must have arrived, if ever; ``timerFired(at:)`` enforces it.
    ///   - bodyDeadline: When the whole body must have arrived, if ever; enforced the same way.
    ///   - idleTimeout: The longest time without a byte moving, counted from `start`, if limited.
    ///   - start: When the transfer began; needed with an idle timeout.
    init(
        bufferLimit: Int, answersWithWholeBody: Bool = false, deadline: ContinuousClock.Instant? = nil,
        bodyDeadline: ContinuousClock.Instant? = nil, idleTimeout: Duration? = nil,
        start: ContinuousClock.Instant? = nil
    ) {
        self.bufferLimit = max(1, bufferLimit)
        self.bodyDeadline = bodyDeadline
        self.answersWithWholeBody = answersWithWholeBody
        self.deadline = deadline
        self.idleTimeout = start == nil ? nil : idleTimeout
        self.lastProgress = start
    }

    /// Whether the caller of `send` still waits for its answer.
    var callerWaiting: Bool { callerAnswer == nil }

    // MARK: Events

    /// The task was made. If the transfer ended meanwhile, the task must be cancelled
    /// instead of resumed.
    mutating func taskCreated() -> Actions {
        guard task == .notCreated else { return .none }
        if phase == .finished {
            task = .completed
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
        if hasBody {
            phase = .receivingBody
            // The idle timeout applies from now on where the head's deadline held before it:
            // the timer, set for that deadline, is set again for the idle timeout.
            let rearm = idleTimeout != nil && deadline != nil ? timerDue : nil
            if answersWithWholeBody { return Actions(setTimer: rearm) }
            return answering(Actions(answerCaller: .head, setTimer: rearm))
        } else {
            phase = .finished
            bodyEnd = .end
        }
        return answering(Actions(answerCaller: .head))
    }

    /// The response head could not be read: the caller fails with `error`.
    mutating func failedToReadHead(_ error: any Error) -> Actions {
        phase == .awaitingHead ? failingCaller(.invalidHead(error)) : cancellingTask()
    }

    /// Body bytes arrived.
    /// - Returns: They go to a waiting reader or wait; past the limit the body fails and the
    ///   task is cancelled; a transfer already over cancels its task.
    mutating func dataReceived(_ data: Data) -> Actions {
        guard phase == .receivingBody else { return cancellingTask() }
        received += Int64(data.count)
        if readerWaiting {
            readerWaiting = false
            return Actions(answerReader: .chunk(data))
        }
        guard buffered + data.count <= bufferLimit else {
            return endBody(.failure(.tooLarge(limit: bufferLimit)), cancel: true)
        }
        chunks.append(data)
        buffered += data.count
        return .none
    }

    /// The body's reader asks for the next chunk.
    /// - Parameter wait: Whether the reader waits when there is nothing yet; `false` only
    ///   asks, so the reader can avoid suspending.
    /// - Returns: An answer now, or none: the reader then waits (if `wait`) and is answered
    ///   by a later event.
    mutating func chunkWanted(wait: Bool) -> Actions {
        if nextChunk < chunks.count {
            let chunk = chunks[nextChunk]
            nextChunk += 1
            buffered -= chunk.count
            if nextChunk == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                nextChunk = 0
            }
            return Actions(answerReader: .chunk(chunk))
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

    /// URLSession completed the task, with `error` or successfully.
    mutating func completed(error: (any Error)?) -> Actions {
        let wasCancelling = task == .cancelling
        task = .completed
        switch phase {
        case .awaitingHead:
            phase = .finished
            let ending: Ending
            if let requestBodyError {
                ending = .requestBodyFailed(requestBodyError)
            } else if let error {
                ending = wasCancelling ? .cancelled : .failed(error, received: 0)
            } else {
                ending = .noHead
            }
            return answering(Actions(answerCaller: .failure(ending), closeRequestBody: true))
        case .receivingBody:
            let ending: Ending?
            if let requestBodyError {
                ending = .requestBodyFailed(requestBodyError)
            } else if let declaredLength, received < declaredLength {
                ending = .truncated(received: received, declared: declaredLength)
            } else if let error {
                ending = .failed(error, received: received)
            } else {
                ending = nil
            }
            return endBody(ending.map { .failure($0) } ?? .end, cancel: false)
        case .finished:
            return Actions(closeRequestBody: true)
        }
    }

    /// Reading the request body failed: the task is cancelled, and its completion reports
    /// this failure.
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
            return Actions(answerReader: answer)
        }
        phase = .finished
        bodyEnd = .failure(.cancelled)
        var actions = cancellingTask()
        actions.answerReader = answer
        return actions
    }

    /// The deadline that applies now passed: the caller fails if the head has not come, and
    /// so does a body still arriving when it has a ``bodyDeadline`` (the caller too, when it
    /// waits for the whole body).
    mutating func deadlinePassed() -> Actions {
        if phase == .awaitingHead { return failingCaller(.timedOut) }
        guard phase == .receivingBody, bodyDeadline != nil else { return .none }
        if callerWaiting { return failingCaller(.timedOut) }
        return endBody(.failure(.timedOut), cancel: true)
    }

    // MARK: Time

    /// Bytes moved at `now`, in either direction (a response head, body bytes, request body
    /// bytes sent): the idle timeout counts again from here.
    mutating func progressed(at now: ContinuousClock.Instant) {
        guard idleTimeout != nil, phase != .finished else { return }
        if let lastProgress, lastProgress >= now { return }
        lastProgress = now
    }

    /// Whether the transfer still needs its timer: while the caller waits or the body
    /// arrives, as long as a limit (``deadline``, ``idleTimeout``) still applies.
    var needsTimer: Bool {
        phase != .finished && (idleTimeout != nil || currentDeadline != nil)
    }

    /// Whether the idle timeout bounds the transfer now: always once the head is in; before it
    /// only when no ``deadline`` bounds the wait for the head (a call's timeout bounds the head,
    /// and a shorter idle timeout set for the body must not end a slow server's answer).
    private var idleApplies: Bool { phase == .receivingBody || deadline == nil }

    /// The deadline that ends something now: the earlier of the two while the head is awaited,
    /// the body's once it arrives.
    private var currentDeadline: ContinuousClock.Instant? {
        switch phase {
        case .awaitingHead:
            guard let deadline else { return bodyDeadline }
            return bodyDeadline.map { min($0, deadline) } ?? deadline
        case .receivingBody: return bodyDeadline
        case .finished: return nil
        }
    }

    /// When the timer should fire next: the deadline (while it applies) or the end of the idle
    /// timeout, whichever comes first; `nil` when no limit applies any more.
    var timerDue: ContinuousClock.Instant? {
        guard needsTimer else { return nil }
        var due: ContinuousClock.Instant?
        if let deadline = currentDeadline { due = deadline }
        if let idleTimeout, let lastProgress, idleApplies {
            let idleEnd = lastProgress + idleTimeout
            due = due.map { min($0, idleEnd) } ?? idleEnd
        }
        return due
    }

    /// The transfer's timer fired at `now`, which the shell read from its own clock (not
    /// URLSession's, which a busy work queue can hold back).
    ///
    /// - Returns: A failure with ``Ending/timedOut`` when the deadline has passed (as
    ///   ``deadlinePassed()``), else with ``Ending/idleTimedOut(_:)`` when no byte moved for the
    ///   idle timeout, before the head (the caller fails) or within the body (the reader does);
    ///   otherwise ``Actions/setTimer`` for the next ``timerDue``, if any.
    mutating func timerFired(at now: ContinuousClock.Instant) -> Actions {
        guard needsTimer else { return .none }
        if let deadline = currentDeadline, now >= deadline { return deadlinePassed() }
        if let idleTimeout, let lastProgress, idleApplies, now - lastProgress >= idleTimeout {
            if callerWaiting { return failingCaller(.idleTimedOut(idleTimeout)) }
            return endBody(.failure(.idleTimedOut(idleTimeout)), cancel: true)
        }
        return Actions(setTimer: timerDue)
    }

    // MARK: Helpers

    /// Records the caller's answer in `actions`.
    private mutating func answering(_ actions: Actions) -> Actions {
        callerAnswer = actions.answerCaller
        return actions
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
    /// ``taskCreated()``), and stops the request body.
    private mutating func cancellingTask() -> Actions {
        guard task == .running else { return Actions(closeRequestBody: task != .cancelling) }
        task = .cancelling
        return Actions(cancelTask: true, closeRequestBody: true)
    }
}
