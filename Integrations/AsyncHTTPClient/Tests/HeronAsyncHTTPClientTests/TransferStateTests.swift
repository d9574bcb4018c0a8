import Foundation
import Testing

@testable import HeronAsyncHTTPClient

/// The transfer's state machine driven through orderings no network test can pin down.
@Suite("TransferState")
struct TransferStateTests {
    private func streaming(limit: Int = 1 << 20, coversBody: Bool = false) -> TransferState {
        var state = TransferState(bufferLimit: limit, deadlineCoversBody: coversBody)
        _ = state.taskCreated()
        return state
    }

    @Test func headAnswersTheCallerAndPartsWaitForTheReader() {
        var state = streaming()
        let head = state.headReceived(hasBody: true, declaredLength: 6)
        guard case .head? = head.answerCaller else {
            Issue.record("caller not answered: \(head)")
            return
        }
        #expect(head.stopTimers)
        #expect(!state.partReceived(Data("abc".utf8)).holdDemand)
        guard case .chunk(let chunk)? = state.chunkWanted(wait: true).answerReader else {
            Issue.record("no chunk for the reader")
            return
        }
        #expect(chunk == Data("abc".utf8))
        #expect(state.chunkWanted(wait: true).answerReader == nil)
        #expect(state.readerWaiting)
        guard case .chunk? = state.partReceived(Data("def".utf8)).answerReader else {
            Issue.record("the waiting reader did not get the part")
            return
        }
        let end = state.ended(error: nil)
        #expect(end.answerReader == nil)
        guard case .end? = state.chunkWanted(wait: true).answerReader else {
            Issue.record("no end")
            return
        }
    }

    @Test func aReaderBehindHoldsDemandUntilItCatchesUp() {
        var state = streaming(limit: 100_000)
        _ = state.headReceived(hasBody: true, declaredLength: nil)
        #expect(!state.partReceived(Data(count: 60_000)).holdDemand)
        #expect(state.partReceived(Data(count: 60_000)).holdDemand)
        #expect(state.demandHeld)
        // Taking one part leaves 60,000 unread, below the 100,000 limit: the server may go on.
        #expect(state.chunkWanted(wait: true).resumeDemand)
        #expect(!state.demandHeld)
    }

    @Test func demandIsReleasedOnlyBelowTheHighWaterMark() {
        var state = streaming(limit: 1 << 30)
        _ = state.headReceived(hasBody: true, declaredLength: nil)
        #expect(state.highWater == 256 * 1024)
        #expect(!state.partReceived(Data(count: 100_000)).holdDemand)
        #expect(!state.partReceived(Data(count: 100_000)).holdDemand)
        #expect(state.partReceived(Data(count: 100_000)).holdDemand)
        #expect(state.buffered == 300_000)
        #expect(state.chunkWanted(wait: true).resumeDemand)
        #expect(state.buffered == 200_000)
    }

    @Test func aBodyShorterThanDeclaredEndsTruncated() {
        var state = streaming()
        _ = state.headReceived(hasBody: true, declaredLength: 1000)
        _ = state.partReceived(Data(count: 10))
        _ = state.ended(error: nil)
        _ = state.chunkWanted(wait: true)
        guard case .failure(.truncated(let received, let declared))? = state.chunkWanted(wait: true).answerReader else {
            Issue.record("not truncated")
            return
        }
        #expect(received == 10)
        #expect(declared == 1000)
    }

    @Test func wholeBodyModeAnswersAtTheEndAndFailsPastTheLimit() {
        var state = TransferState(bufferLimit: 10, deadlineCoversBody: true, answersWithWholeBody: true)
        _ = state.taskCreated()
        #expect(state.headReceived(hasBody: true, declaredLength: nil).answerCaller == nil)
        #expect(state.partReceived(Data(count: 8)).answerCaller == nil)
        let past = state.partReceived(Data(count: 8))
        guard case .failure(.tooLarge(let limit))? = past.answerCaller else {
            Issue.record("not too large")
            return
        }
        #expect(limit == 10)
        #expect(past.cancelTask)
    }

    @Test func wholeBodyModeHandsTheBytesOver() {
        var state = TransferState(bufferLimit: 100, deadlineCoversBody: true, answersWithWholeBody: true)
        _ = state.taskCreated()
        _ = state.headReceived(hasBody: true, declaredLength: 6)
        _ = state.partReceived(Data("abc".utf8))
        _ = state.partReceived(Data("def".utf8))
        guard case .head? = state.ended(error: nil).answerCaller else {
            Issue.record("not answered")
            return
        }
        #expect(state.takeWholeBody() == Data("abcdef".utf8))
    }

    @Test func cancellingBeforeTheTaskExistsCancelsItWhenMade() {
        var state = TransferState(bufferLimit: 10, deadlineCoversBody: false)
        guard case .failure(.cancelled)? = state.cancelled().answerCaller else {
            Issue.record("not cancelled")
            return
        }
        #expect(state.taskCreated().cancelTask)
    }

    @Test func theDeadlineEndsACoveredBodyButNotAnUncoveredOne() {
        var covered = streaming(coversBody: true)
        _ = covered.headReceived(hasBody: true, declaredLength: nil)
        #expect(covered.deadlinePassed().cancelTask)
        var uncovered = streaming(coversBody: false)
        _ = uncovered.headReceived(hasBody: true, declaredLength: nil)
        #expect(!uncovered.deadlinePassed().cancelTask)
        #expect(uncovered.deadlineOver)
    }

    @Test func aReaderGoneCancelsTheTaskAndReleasesDemand() {
        var state = streaming(limit: 10)
        _ = state.headReceived(hasBody: true, declaredLength: nil)
        #expect(state.partReceived(Data(count: 20)).holdDemand)
        let gone = state.readerGone()
        #expect(gone.cancelTask)
        #expect(gone.resumeDemand)
        #expect(state.phase == .finished)
    }

    @Test func aRequestBodyFailureIsWhatTheCallerGets() {
        struct Broken: Error {}
        var state = streaming()
        #expect(state.requestBodyFailed(Broken()).cancelTask)
        guard case .failure(.requestBodyFailed(let error))? = state.ended(error: CancellationError()).answerCaller
        else {
            Issue.record("the body's failure was lost")
            return
        }
        #expect(error is Broken)
    }
}
