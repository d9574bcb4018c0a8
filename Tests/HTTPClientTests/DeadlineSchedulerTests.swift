import Foundation
import Testing

@testable import HTTPClient

@Suite("Deadline scheduler")
struct DeadlineSchedulerTests {
    struct TimedOut: Error {}

    func slow(_ duration: Duration) -> @Sendable () async throws -> Int {
        {
            try await Task.sleep(for: duration)
            return 1
        }
    }

    @Test("an operation past its deadline is cancelled and reported as a timeout")
    func fires() async throws {
        let scheduler = DeadlineScheduler()
        let clock = ContinuousClock()
        let start = clock.now
        await #expect(throws: TimedOut.self) {
            _ = try await scheduler.run(timeout: .milliseconds(100), onTimeout: { TimedOut() }, slow(.seconds(30)))
        }
        #expect(clock.now - start < .seconds(20))
    }

    @Test("a finished entry lets go of its action at once, though it still waits in the heap")
    func finishedEntryReleasesItsAction() {
        final class Marker: Sendable {
            func touch() {}
        }
        let scheduler = DeadlineScheduler()
        weak var released: Marker?
        let entry: DeadlineScheduler.Entry
        do {
            let marker = Marker()
            released = marker
            entry = scheduler.schedule(at: .now + .seconds(600)) { marker.touch() }
        }
        #expect(released != nil, "a pending entry keeps what its action captured")
        #expect(scheduler.finish(entry) == false)
        #expect(released == nil, "the action of a finished entry is still held")
    }

    @Test("a deadline passes on time while every thread of the cooperative pool is blocked")
    func firesWhileThePoolIsBlocked() async throws {
        let scheduler = DeadlineScheduler()
        let width = ProcessInfo.processInfo.activeProcessorCount
        let fired = DispatchSemaphore(value: 0)
        let entry = scheduler.schedule(at: .now + .milliseconds(50)) {
            for _ in 0..<width { fired.signal() }
        }
        // Each child blocks one cooperative thread until the deadline's action has run.
        let released = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<width {
                group.addTask { fired.wait(timeout: .now() + 3) == .success }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(released == Array(repeating: true, count: width))
        #expect(scheduler.finish(entry), "the entry was not marked fired")
    }

    @Test("a shorter deadline registered after a longer one still fires on time")
    func earlierDeadlineWakesSleeper() async throws {
        let scheduler = DeadlineScheduler()
        async let long: Int = scheduler.run(timeout: .seconds(30), onTimeout: { TimedOut() }, slow(.seconds(3)))
        try await Task.sleep(for: .milliseconds(50))
        let clock = ContinuousClock()
        let start = clock.now
        await #expect(throws: TimedOut.self) {
            _ = try await scheduler.run(timeout: .milliseconds(100), onTimeout: { TimedOut() }, self.slow(.seconds(30)))
        }
        #expect(clock.now - start < .seconds(20))
        #expect(try await long == 1)
    }

    @Test("operations that end in time are never cancelled, concurrently or in sequence")
    func finishedInTime() async throws {
        let scheduler = DeadlineScheduler()
        for _ in 0..<100 {
            #expect(try await scheduler.run(timeout: .seconds(30), onTimeout: { TimedOut() }, slow(.zero)) == 1)
        }
        try await withThrowingTaskGroup(of: Int.self) { group throws in
            for index in 0..<100 {
                group.addTask {
                    try await scheduler.run(
                        timeout: .milliseconds(30_000 + index), onTimeout: { TimedOut() }, self.slow(.milliseconds(20)))
                }
            }
            let total = try await group.reduce(0, +)
            #expect(total == 100)
        }
    }

    @Test("cancelling the caller cancels the operation and is not reported as a timeout")
    func callerCancellation() async throws {
        let scheduler = DeadlineScheduler()
        let task = Task {
            try await scheduler.run(timeout: .seconds(30), onTimeout: { TimedOut() }, self.slow(.seconds(10)))
        }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
    }
}
