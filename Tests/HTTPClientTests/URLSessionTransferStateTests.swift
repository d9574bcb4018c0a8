import Foundation
import TestTraits
import Testing

@testable import HTTPClient

/// The URLSession transport's state machine, driven with no network: every event in every
/// phase, every ordering of cancellation, deadline and completion, and invariants checked
/// over every sequence of up to five events.
@Suite("URLSessionTransferState")
struct URLSessionTransferStateTests {
    typealias State = URLSessionTransferState

    /// An event, named for failure messages.
    enum Event: CaseIterable {
        case taskCreated, head, headNoBody, badHead, data, wantWait, wantPeek, complete, completeError
        case requestBodyFailed, cancelled, readerGone, deadline
        /// The shell takes a body that arrived whole for the caller (whole-body mode).
        case takeWhole

        func apply(to state: inout State) -> State.Actions {
            switch self {
            case .taskCreated: return state.taskCreated()
            case .head: return state.headReceived(hasBody: true, declaredLength: nil)
            case .headNoBody: return state.headReceived(hasBody: false, declaredLength: nil)
            case .badHead: return state.failedToReadHead(Failure.head)
            case .data: return state.dataReceived(Data([1, 2, 3]))
            case .wantWait: return state.chunkWanted(wait: true)
            case .wantPeek: return state.chunkWanted(wait: false)
            case .complete: return state.completed(error: nil)
            case .completeError: return state.completed(error: Failure.network)
            case .requestBodyFailed: return state.requestBodyFailed(Failure.body)
            case .cancelled: return state.cancelled()
            case .readerGone: return state.readerGone()
            case .deadline: return state.deadlinePassed()
            case .takeWhole:
                _ = state.takeWholeBody()
                return .none
            }
        }
    }

    enum Failure: Error {
        case head, network, body
    }

    /// What a sequence of events did, for the invariants.
    struct Trace {
        var state = State(bufferLimit: 8, bodyDeadline: .now + .seconds(3600))
        var callerAnswers: [State.CallerAnswer] = []
        var readerAnswers: [State.ReaderAnswer] = []
        var cancels = 0
        var bytesIn = 0
        var bytesOut = 0
        var readerWaits = false

        init(bodyDeadline: Bool = true, wholeBody: Bool = false) {
            state = State(
                bufferLimit: 8, answersWithWholeBody: wholeBody,
                bodyDeadline: bodyDeadline ? .now + .seconds(3600) : nil)
        }

        mutating func run(_ event: Event) -> State.Actions {
            let taskWasRunning = state.task == .running
            let before = state.phase
            if event == .takeWhole {
                // Bytes taken whole leave as the reader's do.
                bytesOut += state.takeWholeBody()?.count ?? 0
                return .none
            }
            let actions = event.apply(to: &state)
            if event == .data, before == .receivingBody { bytesIn += 3 }
            if let answer = actions.answerCaller { callerAnswers.append(answer) }
            if let answer = actions.answerReader {
                readerAnswers.append(answer)
                if case .chunk(let data) = answer { bytesOut += data.count }
            }
            if actions.cancelTask {
                cancels += 1
                // A cancel is asked only for a running task, or for one made after the end.
                #expect(taskWasRunning || event == .taskCreated, "cancel without a running task: \(event)")
            }
            return actions
        }
    }

    // MARK: Every event in every phase

    /// Drives a fresh state into `phase`.
    static func state(in phase: State.Phase, taskRunning: Bool = true) -> State {
        var state = State(bufferLimit: 8, bodyDeadline: .now + .seconds(3600))
        if taskRunning { _ = state.taskCreated() }
        switch phase {
        case .awaitingHead: break
        case .receivingBody: _ = state.headReceived(hasBody: true, declaredLength: nil)
        case .finished: _ = state.cancelled()
        }
        return state
    }

    @Test("awaiting the head: each event's answer", arguments: Event.allCases)
    func awaitingHead(_ event: Event) {
        var state = Self.state(in: .awaitingHead)
        let actions = event.apply(to: &state)
        switch event {
        case .taskCreated, .data, .wantWait, .wantPeek, .readerGone, .takeWhole:
            #expect(actions.answerCaller == nil)
            #expect(actions.answerReader == nil)
            #expect(state.phase == .awaitingHead || event == .data)
        case .head:
            #expect(Self.isHead(actions.answerCaller))
            #expect(state.phase == .receivingBody)
        case .headNoBody:
            #expect(Self.isHead(actions.answerCaller))
            #expect(state.phase == .finished)
        case .badHead:
            #expect(Self.ending(actions.answerCaller).map { if case .invalidHead = $0 { true } else { false } } == true)
            #expect(actions.cancelTask)
        case .complete:
            #expect(Self.ending(actions.answerCaller).map { if case .noHead = $0 { true } else { false } } == true)
        case .completeError:
            #expect(Self.ending(actions.answerCaller).map { if case .failed = $0 { true } else { false } } == true)
        case .requestBodyFailed:
            #expect(actions.answerCaller == nil)
            #expect(actions.cancelTask)
            let next = state.completed(error: Failure.network)
            #expect(
                Self.ending(next.answerCaller).map { if case .requestBodyFailed = $0 { true } else { false } } == true)
        case .cancelled:
            #expect(Self.ending(actions.answerCaller).map { if case .cancelled = $0 { true } else { false } } == true)
            #expect(actions.cancelTask)
        case .deadline:
            #expect(Self.ending(actions.answerCaller).map { if case .timedOut = $0 { true } else { false } } == true)
            #expect(actions.cancelTask)
        }
    }

    @Test("receiving the body: each event's answer", arguments: Event.allCases)
    func receivingBody(_ event: Event) {
        var state = Self.state(in: .receivingBody)
        _ = state.chunkWanted(wait: true)  // the reader waits
        let actions = event.apply(to: &state)
        #expect(actions.answerCaller == nil, "the caller was answered already")
        switch event {
        case .taskCreated, .wantPeek, .wantWait, .cancelled, .requestBodyFailed, .takeWhole:
            #expect(actions.answerReader == nil)
            #expect(state.phase == .receivingBody)
            #expect(actions.cancelTask == (event == .requestBodyFailed))
        case .head, .headNoBody, .badHead:
            #expect(actions.cancelTask, "a second head ends nothing but the task")
        case .data:
            #expect(Self.chunk(actions.answerReader) == Data([1, 2, 3]))
        case .complete:
            #expect(Self.isEnd(actions.answerReader))
            #expect(state.phase == .finished)
        case .completeError:
            #expect(Self.failure(actions.answerReader).map { if case .failed = $0 { true } else { false } } == true)
        case .readerGone:
            #expect(Self.failure(actions.answerReader).map { if case .cancelled = $0 { true } else { false } } == true)
            #expect(actions.cancelTask)
        case .deadline:
            #expect(Self.failure(actions.answerReader).map { if case .timedOut = $0 { true } else { false } } == true)
            #expect(actions.cancelTask)
        }
    }

    @Test("finished: no event answers the caller again or restarts the body", arguments: Event.allCases)
    func finished(_ event: Event) {
        var state = Self.state(in: .finished)
        let actions = event.apply(to: &state)
        #expect(actions.answerCaller == nil)
        #expect(state.phase == .finished)
        if event == .wantWait || event == .wantPeek {
            #expect(state.readerWaiting == false)
        }
    }

    @Test(
        "every event in every phase keeps the invariants, in both modes, with the task made or not and the reader waiting or not",
        arguments: [false, true])
    func everyEventInEveryVariant(wholeBody: Bool) {
        var checked = 0
        for taskRunning in [false, true] {
            for phase in [State.Phase.awaitingHead, .receivingBody, .finished] {
                for readerWaits in [false, true] {
                    var start = Trace(wholeBody: wholeBody)
                    if taskRunning { _ = start.run(.taskCreated) }
                    switch phase {
                    case .awaitingHead: break
                    case .receivingBody:
                        _ = start.run(.head)
                        _ = start.run(.data)
                    case .finished: _ = start.run(.cancelled)
                    }
                    if readerWaits { _ = start.run(.wantWait) }
                    for event in Event.allCases {
                        var trace = start
                        let waiting = trace.state.readerWaiting
                        let actions = trace.run(event)
                        checked += 1
                        let variant = "\(phase), task \(taskRunning), reader waits \(readerWaits), \(event)"
                        #expect(trace.callerAnswers.count <= 1, "\(variant)")
                        if actions.answerReader != nil {
                            #expect(event == .wantPeek || event == .wantWait || waiting, "\(variant)")
                        }
                        #expect(trace.bytesOut <= trace.bytesIn, "\(variant)")
                        #expect(trace.cancels <= 1, "\(variant)")
                        if phase == .finished { #expect(trace.state.phase == .finished, "\(variant)") }
                        if trace.state.readerWaiting { #expect(trace.state.phase == .receivingBody, "\(variant)") }
                        // In whole-body mode the caller hears nothing until the body ended.
                        if wholeBody, case .head? = actions.answerCaller {
                            #expect(trace.state.phase == .finished, "\(variant)")
                        }
                    }
                }
            }
        }
        #expect(checked == 2 * 3 * 2 * Event.allCases.count)
    }

    @Test("a task made after the transfer ended is cancelled, not run")
    func taskAfterTheEnd() {
        var state = Self.state(in: .awaitingHead, taskRunning: false)
        let cancelled = state.cancelled()
        #expect(!cancelled.cancelTask, "no task to cancel yet")
        #expect(state.taskCreated().cancelTask)
    }

    // MARK: Orderings of cancellation, deadline and completion

    /// Every order of cancellation, the deadline and the task's completion (with or
    /// without an error): 12 orderings.
    static var orderings: [[Event]] {
        var result: [[Event]] = []
        func permute(_ prefix: [Event], _ rest: [Event]) {
            if rest.isEmpty { return result.append(prefix) }
            for (index, event) in rest.enumerated() {
                var remaining = rest
                remaining.remove(at: index)
                permute(prefix + [event], remaining)
            }
        }
        permute([], [.cancelled, .deadline, .complete])
        permute([], [.cancelled, .deadline, .completeError])
        return result
    }

    @Test("before the head, the first of cancel, deadline and completion decides", arguments: orderings)
    func racesBeforeTheHead(_ order: [Event]) {
        var trace = Trace()
        _ = trace.run(.taskCreated)
        for event in order { _ = trace.run(event) }
        #expect(trace.callerAnswers.count == 1)
        let ending = Self.ending(trace.callerAnswers.first)
        switch order.first {
        case .cancelled: #expect(ending.map { if case .cancelled = $0 { true } else { false } } == true)
        case .deadline: #expect(ending.map { if case .timedOut = $0 { true } else { false } } == true)
        case .complete: #expect(ending.map { if case .noHead = $0 { true } else { false } } == true)
        default: #expect(ending.map { if case .failed = $0 { true } else { false } } == true)
        }
        #expect(trace.cancels <= 1)
        #expect(trace.state.phase == .finished)
    }

    @Test("after the head, the first of reader gone, deadline and completion decides", arguments: orderings)
    func racesAfterTheHead(_ order: [Event]) {
        var trace = Trace()
        _ = trace.run(.taskCreated)
        _ = trace.run(.head)
        _ = trace.run(.wantWait)
        for event in order.map({ $0 == .cancelled ? .readerGone : $0 }) { _ = trace.run(event) }
        #expect(trace.callerAnswers.count == 1)
        #expect(trace.readerAnswers.count == 1, "the waiting reader is answered once")
        let first = order.first == .cancelled ? Event.readerGone : order.first
        switch (first, trace.readerAnswers.first) {
        case (.readerGone?, .failure(.cancelled)?), (.deadline?, .failure(.timedOut)?), (.complete?, .end?),
            (.completeError?, .failure(.failed)?):
            break
        default:
            Issue.record("first \(String(describing: first)) answered \(String(describing: trace.readerAnswers.first))")
        }
        #expect(trace.cancels <= 1)
    }

    @Test("a body outlives the head's deadline when it has no deadline of its own")
    func deadlineLeavesTheBody() {
        var trace = Trace(bodyDeadline: false)
        _ = trace.run(.taskCreated)
        _ = trace.run(.head)
        let actions = trace.run(.deadline)
        #expect(actions.answerReader == nil && !actions.cancelTask)
        _ = trace.run(.data)
        _ = trace.run(.complete)
        #expect(Self.chunk(trace.run(.wantPeek).answerReader) == Data([1, 2, 3]))
        #expect(Self.isEnd(trace.run(.wantPeek).answerReader))
    }

    // MARK: The body

    @Test("chunks wait for the reader in order; the end comes after them")
    func chunksInOrder() {
        var state = Self.state(in: .receivingBody)
        _ = state.dataReceived(Data([1]))
        _ = state.dataReceived(Data([2, 3]))
        _ = state.completed(error: nil)
        #expect(Self.chunk(state.chunkWanted(wait: false).answerReader) == Data([1]))
        #expect(Self.chunk(state.chunkWanted(wait: true).answerReader) == Data([2, 3]))
        #expect(Self.isEnd(state.chunkWanted(wait: true).answerReader))
        #expect(Self.isEnd(state.chunkWanted(wait: true).answerReader), "the end is told again")
    }

    @Test("more unread bytes than the limit fail the body and cancel the task")
    func overTheLimit() {
        var state = Self.state(in: .receivingBody)
        #expect(!state.dataReceived(Data(count: 8)).cancelTask)
        let actions = state.dataReceived(Data(count: 1))
        #expect(actions.cancelTask)
        #expect(Self.chunk(state.chunkWanted(wait: true).answerReader)?.count == 8)
        let failure = Self.failure(state.chunkWanted(wait: true).answerReader)
        #expect(failure.map { if case .tooLarge(limit: 8) = $0 { true } else { false } } == true)
    }

    @Test("a body shorter than its declared length is truncated, however the task ended")
    func truncation() {
        for error in [nil, Failure.network as (any Error)?] {
            var state = State(bufferLimit: 100, bodyDeadline: .now + .seconds(3600))
            _ = state.taskCreated()
            _ = state.headReceived(hasBody: true, declaredLength: 10)
            _ = state.dataReceived(Data(count: 4))
            _ = state.completed(error: error)
            _ = state.chunkWanted(wait: false)
            let failure = Self.failure(state.chunkWanted(wait: false).answerReader)
            #expect(failure.map { if case .truncated(received: 4, declared: 10) = $0 { true } else { false } } == true)
        }
    }

    // MARK: Invariants over every sequence

    @Test("a caller waiting for the whole body is answered at its end, with every chunk there")
    func wholeBody() {
        var trace = Trace(wholeBody: true)
        _ = trace.run(.taskCreated)
        #expect(trace.run(.head).answerCaller == nil)
        _ = trace.run(.data)
        _ = trace.run(.data)
        #expect(trace.callerAnswers.isEmpty)
        #expect(Self.isHead(trace.run(.complete).answerCaller))
        var copy = trace.state
        #expect(Self.chunk(trace.run(.wantPeek).answerReader) == Data([1, 2, 3]))
        #expect(Self.chunk(trace.run(.wantPeek).answerReader) == Data([1, 2, 3]))
        #expect(Self.isEnd(trace.run(.wantPeek).answerReader))
        // Or all at once, as bytes, by the shell: then nothing is left for a reader.
        #expect(copy.takeWholeBody() == Data([1, 2, 3, 1, 2, 3]))
        #expect(copy.buffered == 0)
        #expect(Self.isEnd(copy.chunkWanted(wait: false).answerReader))
    }

    @Test("no whole body to take while it arrives, or after it failed")
    func noWholeBody() {
        var state = Self.state(in: .receivingBody)
        _ = state.dataReceived(Data([1]))
        #expect(state.takeWholeBody() == nil)
        _ = state.completed(error: Failure.network)
        #expect(state.takeWholeBody() == nil)
        var empty = Self.state(in: .receivingBody)
        _ = empty.completed(error: nil)
        #expect(empty.takeWholeBody() == Data())
    }

    @Test("a caller waiting for the whole body gets its failure, not the head", arguments: orderings)
    func wholeBodyRaces(_ order: [Event]) {
        var trace = Trace(wholeBody: true)
        _ = trace.run(.taskCreated)
        _ = trace.run(.head)
        _ = trace.run(.data)
        for event in order { _ = trace.run(event) }
        #expect(trace.callerAnswers.count == 1)
        switch (order.first, trace.callerAnswers.first) {
        case (.cancelled?, .failure(.cancelled)?), (.deadline?, .failure(.timedOut)?), (.complete?, .head?),
            (.completeError?, .failure(.failed)?):
            break
        default:
            Issue.record(
                "first \(String(describing: order.first)) answered \(String(describing: trace.callerAnswers.first))")
        }
        #expect(trace.cancels <= 1)
    }

    @Test("invariants hold over every sequence of up to five events", .heavyWork, arguments: [false, true])
    func everySequence(wholeBody: Bool) async {
        let events = Event.allCases
        var checked = 0
        func explore(_ trace: Trace, depth: Int) async {
            guard depth > 0 else { return }
            // Hundreds of thousands of steps: the two top levels give the cooperative pool back
            // between their branches, so the suite's other tests (timing-sensitive ones among
            // them) are not held up for seconds while both of its threads run this.
            if depth >= 4 { await Task.yield() }
            for event in events {
                var next = trace
                let wasWaiting = next.state.readerWaiting
                let actions = next.run(event)
                checked += 1
                // The caller is answered at most once.
                #expect(next.callerAnswers.count <= 1)
                // A reader is answered only when it asked: now, or while it waited.
                if actions.answerReader != nil {
                    #expect(event == .wantPeek || event == .wantWait || wasWaiting)
                }
                // Bytes leave in the amount they came, never more.
                #expect(next.bytesOut <= next.bytesIn)
                // At most one cancel per task.
                #expect(next.cancels <= 1)
                // Unread bytes stay within the limit.
                #expect(next.state.buffered <= 8)
                // Once finished, always finished.
                if trace.state.phase == .finished { #expect(next.state.phase == .finished) }
                // A reader waits only while the body arrives.
                if next.state.readerWaiting { #expect(next.state.phase == .receivingBody) }
                await explore(next, depth: depth - 1)
            }
        }
        await explore(Trace(wholeBody: wholeBody), depth: 5)
        let count = Event.allCases.count
        #expect(
            checked
                == (1...5).reduce(0) { total, depth in total + (0..<depth).reduce(1) { product, _ in product * count } }
        )
    }

    // MARK: Helpers

    static func isHead(_ answer: State.CallerAnswer?) -> Bool {
        if case .head? = answer { return true }
        return false
    }

    static func ending(_ answer: State.CallerAnswer?) -> State.Ending? {
        if case .failure(let ending)? = answer { return ending }
        return nil
    }

    static func chunk(_ answer: State.ReaderAnswer?) -> Data? {
        if case .chunk(let data)? = answer { return data }
        return nil
    }

    static func isEnd(_ answer: State.ReaderAnswer?) -> Bool {
        if case .end? = answer { return true }
        return false
    }

    static func failure(_ answer: State.ReaderAnswer?) -> State.Ending? {
        if case .failure(let ending)? = answer { return ending }
        return nil
    }
}
