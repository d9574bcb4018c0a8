import Foundation
import Testing

@testable import HTTPClient

/// The URLSession transport's timer as events of its state machine: the deadline and the idle
/// timeout judged on instants the tests choose, so no test waits or depends on how busy the
/// machine is.
///
/// A timer that fires late (a busy machine) must still fail the transfer: a late answer is
/// never turned into a success.
@Suite("URLSessionTransferState: deadline and idle timer")
struct URLSessionTransferStateTimerTests {
    typealias State = URLSessionTransferState

    static let start = ContinuousClock.now

    static func at(_ offset: Duration) -> ContinuousClock.Instant { start + offset }

    /// A transfer with its task running and a 1 s idle timeout counted from ``start``.
    static func idleState(
        deadline: Duration? = nil, bodyDeadline: Duration? = nil, wholeBody: Bool = false
    ) -> State {
        var state = State(
            bufferLimit: 64, answersWithWholeBody: wholeBody, deadline: deadline.map(at),
            bodyDeadline: bodyDeadline.map(at), idleTimeout: .seconds(1), start: start)
        _ = state.taskCreated()
        return state
    }

    static func idleEnding(_ answer: State.CallerAnswer?) -> Duration? {
        guard case .failure(.idleTimedOut(let timeout))? = answer else { return nil }
        return timeout
    }

    static func idleEnding(_ answer: State.ReaderAnswer?) -> Duration? {
        guard case .failure(.idleTimedOut(let timeout))? = answer else { return nil }
        return timeout
    }

    @Test("no limit: no timer")
    func noLimitNoTimer() {
        var state = State(bufferLimit: 64)
        _ = state.taskCreated()
        #expect(!state.needsTimer)
        #expect(state.timerDue == nil)
        let actions = state.timerFired(at: Self.at(.seconds(100)))
        #expect(actions.answerCaller == nil)
        #expect(actions.setTimer == nil)
        #expect(state.phase == .awaitingHead)
    }

    @Test("a silent server fails the caller once the idle timeout has passed")
    func silenceBeforeTheHead() {
        var state = Self.idleState()
        #expect(state.timerDue == Self.at(.seconds(1)))
        let actions = state.timerFired(at: Self.at(.seconds(1)))
        #expect(Self.idleEnding(actions.answerCaller) == .seconds(1))
        #expect(actions.cancelTask)
        #expect(state.phase == .finished)
        #expect(!state.needsTimer)
    }

    /// The defect seen on a busy machine: URLSession's timer came seconds late and the answer
    /// of a server silent far past the idle timeout came back as a success. However late the
    /// timer fires, the silence it measures fails the transfer, and the answer that follows
    /// only cancels the task.
    @Test("a timer that fires late still fails the transfer, and the late answer is not a success")
    func lateTimerStillFails() {
        var state = Self.idleState()
        let fired = state.timerFired(at: Self.at(.milliseconds(3_900)))
        #expect(Self.idleEnding(fired.answerCaller) == .seconds(1))
        state.progressed(at: Self.at(.seconds(4)))
        let late = state.headReceived(hasBody: true, declaredLength: 17)
        #expect(late.answerCaller == nil)
        #expect(state.phase == .finished)
        #expect(Self.idleEnding(state.callerAnswer) == .seconds(1))
    }

    @Test("an answer before the timer fires wins, whatever the clock says later")
    func answerBeforeTheTimer() {
        var state = Self.idleState()
        state.progressed(at: Self.at(.milliseconds(400)))
        let head = state.headReceived(hasBody: false, declaredLength: nil)
        guard case .head? = head.answerCaller else {
            Issue.record("the head was not handed over: \(String(describing: head.answerCaller))")
            return
        }
        #expect(!state.needsTimer)
        let fired = state.timerFired(at: Self.at(.seconds(5)))
        #expect(fired.answerCaller == nil)
        #expect(fired.setTimer == nil)
    }

    @Test("bytes moving push the idle timeout on: the timer is set again from the last byte")
    func progressPushesTheTimerOn() {
        var state = Self.idleState()
        state.progressed(at: Self.at(.milliseconds(600)))
        let early = state.timerFired(at: Self.at(.seconds(1)))
        #expect(early.answerCaller == nil)
        #expect(early.setTimer == Self.at(.milliseconds(1_600)))
        #expect(state.phase == .awaitingHead)
        let due = state.timerFired(at: Self.at(.milliseconds(1_600)))
        #expect(Self.idleEnding(due.answerCaller) == .seconds(1))
    }

    @Test("request body bytes sent count as progress too")
    func uploadProgressCounts() {
        var state = Self.idleState()
        for tenth in 1...30 {
            state.progressed(at: Self.at(.milliseconds(tenth * 100)))
            let fired = state.timerFired(at: Self.at(.milliseconds(tenth * 100 + 50)))
            #expect(fired.answerCaller == nil, "after \(tenth * 100) ms")
        }
        #expect(state.timerDue == Self.at(.seconds(4)))
    }

    @Test("an idle body fails its reader, not the caller answered already")
    func silenceWithinTheBody() {
        var state = Self.idleState()
        state.progressed(at: Self.at(.milliseconds(200)))
        _ = state.headReceived(hasBody: true, declaredLength: nil)
        state.progressed(at: Self.at(.milliseconds(500)))
        _ = state.dataReceived(Data([1, 2, 3]))
        #expect(state.timerDue == Self.at(.milliseconds(1_500)))
        _ = state.chunkWanted(wait: true)  // the chunk already here
        _ = state.chunkWanted(wait: true)  // the reader waits
        let fired = state.timerFired(at: Self.at(.milliseconds(1_500)))
        #expect(fired.answerCaller == nil)
        #expect(Self.idleEnding(fired.answerReader) == .seconds(1))
        #expect(fired.cancelTask)
        #expect(state.phase == .finished)
    }

    @Test("in whole-body mode the caller, still waiting, gets the idle failure")
    func silenceWithinTheBodyWholeBodyMode() {
        var state = Self.idleState(wholeBody: true)
        state.progressed(at: Self.at(.milliseconds(100)))
        #expect(state.headReceived(hasBody: true, declaredLength: nil).answerCaller == nil)
        let fired = state.timerFired(at: Self.at(.seconds(2)))
        #expect(Self.idleEnding(fired.answerCaller) == .seconds(1))
    }

    @Test("a deadline before the end of the idle timeout fails with timedOut first")
    func deadlineFirst() {
        var state = Self.idleState(deadline: .milliseconds(500))
        #expect(state.timerDue == Self.at(.milliseconds(500)))
        let fired = state.timerFired(at: Self.at(.milliseconds(500)))
        guard case .failure(.timedOut)? = fired.answerCaller else {
            Issue.record("expected the deadline's failure, got \(String(describing: fired.answerCaller))")
            return
        }
        #expect(fired.cancelTask)
    }

    @Test("a deadline that does not cover the body stops counting at the head; the idle timeout goes on")
    func deadlineEndsAtTheHeadIdleGoesOn() {
        var state = Self.idleState(deadline: .milliseconds(800))
        state.progressed(at: Self.at(.milliseconds(700)))
        _ = state.headReceived(hasBody: true, declaredLength: nil)
        #expect(state.needsTimer)
        #expect(state.timerDue == Self.at(.milliseconds(1_700)))
        let pastDeadline = state.timerFired(at: Self.at(.milliseconds(900)))
        #expect(pastDeadline.answerReader == nil)
        #expect(pastDeadline.setTimer == Self.at(.milliseconds(1_700)))
        #expect(state.phase == .receivingBody)
    }

    @Test("a body's deadline ends it while bytes still move")
    func deadlineCoversTheBody() {
        var state = Self.idleState(bodyDeadline: .seconds(2))
        state.progressed(at: Self.at(.milliseconds(100)))
        _ = state.headReceived(hasBody: true, declaredLength: nil)
        _ = state.chunkWanted(wait: true)
        state.progressed(at: Self.at(.milliseconds(1_900)))
        #expect(state.timerDue == Self.at(.seconds(2)))
        let fired = state.timerFired(at: Self.at(.seconds(2)))
        guard case .failure(.timedOut)? = fired.answerReader else {
            Issue.record("expected the deadline's failure, got \(String(describing: fired.answerReader))")
            return
        }
    }

    @Test("without an idle timeout, the deadline alone sets the timer, and only until the head")
    func deadlineAlone() {
        var state = State(bufferLimit: 64, deadline: Self.at(.seconds(1)))
        _ = state.taskCreated()
        #expect(state.timerDue == Self.at(.seconds(1)))
        state.progressed(at: Self.at(.milliseconds(500)))
        #expect(state.timerDue == Self.at(.seconds(1)))
        _ = state.headReceived(hasBody: true, declaredLength: nil)
        #expect(!state.needsTimer)
        #expect(state.timerFired(at: Self.at(.seconds(3))).answerReader == nil)
    }

    @Test("a body that ended needs no timer, and a timer firing then changes nothing")
    func finishedBodyNeedsNoTimer() {
        var state = Self.idleState()
        _ = state.headReceived(hasBody: true, declaredLength: nil)
        _ = state.completed(error: nil)
        #expect(!state.needsTimer)
        let fired = state.timerFired(at: Self.at(.seconds(10)))
        #expect(fired.answerReader == nil)
        #expect(fired.setTimer == nil)
        #expect(Self.isEnd(state.chunkWanted(wait: true).answerReader))
    }

    @Test("a cancelled transfer needs no timer")
    func cancelledNeedsNoTimer() {
        var state = Self.idleState(deadline: .seconds(1))
        _ = state.cancelled()
        #expect(!state.needsTimer)
        #expect(state.timerFired(at: Self.at(.seconds(5))).answerCaller == nil)
    }

    static func isEnd(_ answer: State.ReaderAnswer?) -> Bool {
        if case .end? = answer { return true }
        return false
    }
}
