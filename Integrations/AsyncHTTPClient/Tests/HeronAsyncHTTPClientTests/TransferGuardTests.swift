import AsyncHTTPClient
import NIOConcurrencyHelpers
import NIOCore
import Testing

@testable import HeronAsyncHTTPClient

/// The limits of a transfer, its watchdog and the hand-off, driven through orderings and
/// times no network test can pin down.
@Suite("TransferGuard, Watchdog and Handoff")
struct TransferGuardTests {
    /// Counts the cancellations a guard makes.
    final class Cancellations: Sendable {
        private let count = NIOLockedValueBox(0)
        var value: Int { count.withLockedValue { $0 } }
        var cancel: @Sendable () -> Void { { self.count.withLockedValue { $0 += 1 } } }
    }

    /// An hour from now: the watchdog's real timer, set for the guards' times, never fires
    /// during a test, which drives the watchdog by hand.
    private let start = NIODeadline.now() + .hours(1)

    @Test func theDeadlineEndsTheTransferWithItsReason() {
        let guardian = TransferGuard(deadline: start + .seconds(5), idleTimeout: nil, now: start)
        let cancellations = Cancellations()
        guardian.cancelling(cancellations.cancel)
        #expect(guardian.due == start + .seconds(5))
        #expect(!guardian.expire(now: start + .seconds(4)))
        #expect(cancellations.value == 0)
        #expect(guardian.expire(now: start + .seconds(5)))
        #expect(guardian.reason == .deadline)
        #expect(cancellations.value == 1)
        // Once ended, it stays ended and cancels nothing more.
        #expect(guardian.expire(now: start + .seconds(6)))
        #expect(cancellations.value == 1)
    }

    @Test func activityPushesTheIdleLimitBack() {
        let guardian = TransferGuard(deadline: nil, idleTimeout: .seconds(2), now: start)
        #expect(guardian.due == start + .seconds(2))
        guardian.touch(now: start + .seconds(1))
        #expect(guardian.due == start + .seconds(3))
        #expect(!guardian.expire(now: start + .milliseconds(2_500)))
        #expect(guardian.expire(now: start + .seconds(3)))
        #expect(guardian.reason == .idle)
    }

    @Test func aTransferPausedForItsReaderIsNotIdle() {
        let guardian = TransferGuard(deadline: start + .seconds(60), idleTimeout: .seconds(1), now: start)
        guardian.pause()
        // Only the deadline is left while the reader is behind.
        #expect(guardian.due == start + .seconds(60))
        #expect(!guardian.expire(now: start + .seconds(10)))
        // The watchdog looks again one idle timeout later, in case it resumed by then.
        #expect(guardian.wakeUp(now: start + .seconds(10)) == start + .seconds(11))
        guardian.resume(now: start + .seconds(10))
        #expect(guardian.due == start + .seconds(11))
        #expect(guardian.wakeUp(now: start + .seconds(10)) == start + .seconds(11))
    }

    @Test func theEarlierLimitDecidesTheReason() {
        let guardian = TransferGuard(deadline: start + .seconds(3), idleTimeout: .seconds(1), now: start)
        #expect(guardian.expire(now: start + .seconds(1)))
        #expect(guardian.reason == .idle)
        let late = TransferGuard(deadline: start + .seconds(3), idleTimeout: .seconds(10), now: start)
        #expect(late.expire(now: start + .seconds(3)))
        #expect(late.reason == .deadline)
    }

    @Test func workRegisteredAfterTheLimitPassedIsCancelledAtOnce() {
        let guardian = TransferGuard(deadline: start, idleTimeout: nil, now: start)
        #expect(guardian.expire(now: start))
        let cancellations = Cancellations()
        guardian.cancelling(cancellations.cancel)
        #expect(cancellations.value == 1)
    }

    @Test func theWatchdogEndsOnlyTheGuardsThatAreDue() {
        let watchdog = Watchdog(eventLoop: HTTPClient.defaultEventLoopGroup.next())
        let soon = TransferGuard(deadline: start + .seconds(1), idleTimeout: nil, now: start)
        let later = TransferGuard(deadline: start + .seconds(9), idleTimeout: nil, now: start)
        let gone = TransferGuard(deadline: start + .seconds(1), idleTimeout: nil, now: start)
        for guardian in [soon, later, gone] { watchdog.watch(guardian) }
        watchdog.unwatch(gone)
        #expect(watchdog.count == 2)
        watchdog.check(now: start + .seconds(2))
        #expect(soon.reason == .deadline)
        #expect(later.reason == nil)
        #expect(gone.reason == nil)
        #expect(watchdog.count == 1)
    }

    @Test func aGuardPausedThenResumedIsEndedOneIdleTimeoutAfterItResumed() {
        let watchdog = Watchdog(eventLoop: HTTPClient.defaultEventLoopGroup.next())
        let guardian = TransferGuard(deadline: nil, idleTimeout: .seconds(1), now: start)
        guardian.pause()
        watchdog.watch(guardian)
        watchdog.check(now: start + .seconds(5))
        #expect(guardian.reason == nil)
        guardian.resume(now: start + .seconds(5))
        watchdog.check(now: start + .milliseconds(5_900))
        #expect(guardian.reason == nil)
        watchdog.check(now: start + .seconds(6))
        #expect(guardian.reason == .idle)
    }

    @Test func heldChunksComeBeforeTheEnd() async throws {
        let handoff = Handoff()
        handoff.offer(ByteBuffer(string: "abc"))
        handoff.finish(.failure(Broken()))
        #expect(try await handoff.next() == ByteBuffer(string: "abc"))
        await #expect(throws: Broken.self) { _ = try await handoff.next() }
    }

    @Test func theProducerWaitsFromTheLimitUntilTheConsumerTakesEnough() async throws {
        let handoff = Handoff(limit: 10)
        handoff.offer(ByteBuffer(string: "abcd"))
        #expect(await handoff.room())
        handoff.offer(ByteBuffer(string: "efghijkl"))
        let freed = NIOLockedValueBox<Bool?>(nil)
        handoff.whenRoom { room in freed.withLockedValue { $0 = room } }
        // 12 bytes held: no room until the consumer takes the first chunk (8 left).
        #expect(freed.withLockedValue { $0 } == nil)
        #expect(try await handoff.next() == ByteBuffer(string: "abcd"))
        #expect(freed.withLockedValue { $0 } == true)
    }

    @Test func closingReleasesAWaitingProducerAndRefusesLaterChunks() async throws {
        let handoff = Handoff()
        let producer = Task { await handoff.put(ByteBuffer(string: "abc")) }
        try await Task.sleep(for: .milliseconds(50))
        handoff.close()
        #expect(await producer.value == false)
        #expect(await handoff.put(ByteBuffer(string: "def")) == false)
        await #expect(throws: CancellationError.self) { _ = try await handoff.next() }
    }

    @Test func aWaitingConsumerGetsTheChunkAndTheProducerGoesOn() async throws {
        let handoff = Handoff()
        let consumer = Task { try await handoff.next() }
        try await Task.sleep(for: .milliseconds(50))
        #expect(await handoff.put(ByteBuffer(string: "abc")))
        #expect(try await consumer.value == ByteBuffer(string: "abc"))
        handoff.finish(.success(()))
        #expect(try await handoff.next() == nil)
    }

    struct Broken: Error {}
}
