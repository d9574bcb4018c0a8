import Foundation
import HTTPClient
import HTTPCore
import Testing

@Suite("Transport contract: cancellation")
struct TransportContractCancellationTests {
    /// Waits up to `seconds` for `transport` to have no transfer in flight.
    private func drained(
        _ subject: any ContractTransport, _ transport: any ClientTransport, within seconds: Double
    ) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if subject.activeTransfers(on: transport) == 0 { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return subject.activeTransfers(on: transport) == 0
    }

    @Test(arguments: ContractTransports.all)
    func cancellingTheTaskStopsTheRequestPromptly(_ subject: any ContractTransport) async throws {
        let transport = subject.make()
        let request = try TransportFixture.request(.get, TransportFixture.fault("/delay?seconds=60"))
        let task = Task { try await transport.send(request, options: TransportOptions()) }
        try await Task.sleep(for: .milliseconds(200))
        let cancelledAt = Date()
        task.cancel()
        let result = try await withWatchdog(seconds: 20) { await task.result }
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(Date().timeIntervalSince(cancelledAt) < 30)  // the server would answer after 60 s
        #expect(try await drained(subject, transport, within: 20))
    }

    @Test(arguments: ContractTransports.all)
    func alreadyCancelledTaskSendsNothing(_ subject: any ContractTransport) async throws {
        let key = UUID().uuidString
        let request = try TransportFixture.request(.get, TransportFixture.fault("/delay?seconds=0&key=\(key)"))
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await subject.shared.send(request, options: TransportOptions())
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        let count = try await TransportFixture.json(
            try await subject.shared.send(
                try TransportFixture.request(.get, TransportFixture.fault("/count?key=\(key)")),
                options: TransportOptions()))
        #expect(count["count"] as? Int == 0)
    }

    @Test(arguments: ContractTransports.all)
    func cancellingDuringAStalledStreamUploadUnblocksIt(_ subject: any ContractTransport) async throws {
        let transport = subject.make()
        let (chunks, continuation) = AsyncStream<Data>.makeStream()
        continuation.yield(Data(repeating: 1, count: 1000))  // then nothing: the reader blocks
        let body = HTTPBody(stream: chunks, length: .unknown)
        let request = try TransportFixture.request(.post, TransportFixture.fault("/hash"), body: body)
        let task = Task { try await transport.send(request, options: TransportOptions()) }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        let result = try await withWatchdog(seconds: 20) { await task.result }
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(try await drained(subject, transport, within: 20))
        continuation.finish()
    }

    @Test(arguments: ContractTransports.all)
    func cancellingAStreamedResponseReaderStopsTheTransfer(_ subject: any ContractTransport) async throws {
        let transport = subject.make()
        // 100 chunks half a second apart: the cancellation always comes while the reader waits.
        let request = try TransportFixture.request(
            .get, TransportFixture.fault("/slow?bytes=100000&chunks=100&interval=0.5"))
        let response = try await transport.send(request, options: TransportOptions())
        let stream = try #require(response.body).chunks()
        let reader = Task {
            var total = 0
            for try await chunk in stream { total += chunk.count }
            return total
        }
        try await Task.sleep(for: .milliseconds(300))
        reader.cancel()
        let result = try await withWatchdog(seconds: 20) { await reader.result }
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(try await drained(subject, transport, within: 20))
    }

    @Test(arguments: ContractTransports.all)
    func aReaderThatCancelsItselfMidBodyGetsCancellationErrorNotTheRest(_ subject: any ContractTransport) async throws {
        let transport = subject.make()
        let request = try TransportFixture.request(
            .get, TransportFixture.fault("/slow?bytes=100000&chunks=100&interval=0.01"))
        let response = try await transport.send(request, options: TransportOptions())
        let stream = try #require(response.body).chunks()
        let reader = Task {
            var total = 0
            for try await chunk in stream {
                total += chunk.count
                withUnsafeCurrentTask { $0?.cancel() }
            }
            return total
        }
        let result = try await withWatchdog(seconds: 20) { await reader.result }
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(try await drained(subject, transport, within: 20))
    }

    @Test(arguments: ContractTransports.all)
    func aBodyReleasedUnreadStopsTheTransfer(_ subject: any ContractTransport) async throws {
        let transport = subject.make()
        do {
            let response = try await transport.send(
                try TransportFixture.request(
                    .get, TransportFixture.fault("/slow?bytes=100000&chunks=100&interval=0.5")),
                options: TransportOptions())
            #expect(response.head.status == .ok)
        }
        #expect(try await drained(subject, transport, within: 20))
    }

    @Test(arguments: ContractTransports.all)
    func aCancelledReaderStopsEvenWhenTheWholeBodyIsAlreadyHere(_ subject: any ContractTransport) async throws {
        let transport = subject.make()
        let request = try TransportFixture.request(.get, TransportFixture.fault("/slow?bytes=3000&chunks=3&interval=0"))
        let response = try await transport.send(request, options: TransportOptions())
        let body = try #require(response.body)
        #expect(try await drained(subject, transport, within: 20))  // every chunk is here
        let reader = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            var total = 0
            for try await chunk in body.chunks() { total += chunk.count }
            return total
        }
        await #expect(throws: CancellationError.self) { try await reader.value }
    }

    /// Many concurrent requests, about a fifth cancelled at random moments, round after round.
    /// `HERON_STORM_ROUNDS` sets the number of rounds (5 by default).
    @Test(arguments: ContractTransports.all)
    func cancellationStormNeverHangs(_ subject: any ContractTransport) async throws {
        let rounds = ProcessInfo.processInfo.environment["HERON_STORM_ROUNDS"].flatMap(Int.init) ?? 5
        let transport = subject.make()
        let base = try TransportFixture.fault("/delay")
        for round in 1...rounds {
            let outcome = try await withWatchdog(seconds: 60) {
                try await Self.storm(transport: transport, base: base, requests: 300, concurrency: 50)
            }
            #expect(outcome.succeeded + outcome.cancelled == 300, "round \(round): \(outcome)")
            #expect(outcome.failures.isEmpty, "round \(round): \(outcome.failures.prefix(3))")
            #expect(outcome.cancelled > 0, "round \(round) cancelled nothing")
        }
        #expect(try await drained(subject, transport, within: 20))
    }

    struct StormOutcome: Sendable, CustomStringConvertible {
        var succeeded = 0
        var cancelled = 0
        var failures: [String] = []
        var description: String { "\(succeeded) succeeded, \(cancelled) cancelled, \(failures.count) failed" }
    }

    private static func storm(
        transport: any ClientTransport, base: URL, requests: Int, concurrency: Int
    ) async throws -> StormOutcome {
        try await withThrowingTaskGroup(of: Result<TransportResponse, any Error>.self) { group in
            var outcome = StormOutcome()
            var started = 0
            func launch() throws {
                let delay = Double.random(in: 0...0.1)
                let url = try #require(URL(string: base.absoluteString + "?seconds=\(delay)"))
                let request = HTTPRequest(url: url)
                let cancelAfter: Double? = Double.random(in: 0..<1) < 0.2 ? Double.random(in: 0...0.12) : nil
                group.addTask {
                    let send = Task { try await transport.send(request, options: TransportOptions()) }
                    if let cancelAfter {
                        try? await Task.sleep(for: .seconds(cancelAfter))
                        send.cancel()
                    }
                    return await send.result
                }
                started += 1
            }
            for _ in 0..<min(concurrency, requests) { try launch() }
            while let result = try await group.next() {
                switch result {
                case .success(let response) where response.head.status == .ok: outcome.succeeded += 1
                case .success(let response): outcome.failures.append("status \(response.head.status)")
                case .failure(is CancellationError): outcome.cancelled += 1
                case .failure(let error): outcome.failures.append("\(error)")
                }
                if started < requests { try launch() }
            }
            return outcome
        }
    }
}

/// The transport enforces ``TransportOptions/deadline`` itself, and runs callers' progress
/// callbacks off the threads its requests share.
@Suite("Transport contract: deadlines and callbacks")
struct TransportContractDeadlineTests {
    @Test(arguments: ContractTransports.all)
    func transportSaysItEnforcesEveryLimit(_ subject: any ContractTransport) {
        #expect(subject.make().enforcedLimits == .all)
    }

    @Test(arguments: ContractTransports.all)
    func deadlinePassingFailsWithTimedOutPromptlyAndEndsTheTransfer(_ subject: any ContractTransport) async throws {
        let transport = subject.make()
        let request = try TransportFixture.request(.get, TransportFixture.fault("/delay?seconds=40"))
        let start = ContinuousClock.now
        let error = try await withWatchdog(seconds: 35) {
            await #expect(throws: ClientError.self) {
                try await transport.send(request, options: TransportOptions(deadline: .now + .milliseconds(300)))
            }
        }
        let elapsed = ContinuousClock.now - start
        #expect(error?.code == .timedOut, "got \(String(describing: error))")
        #expect(elapsed >= .milliseconds(250))
        #expect(elapsed < .seconds(30))
        try await withWatchdog(seconds: 20) {
            while subject.activeTransfers(on: transport) > 0 { try await Task.sleep(for: .milliseconds(20)) }
        }
    }

    @Test(arguments: ContractTransports.all)
    func deadlineAlreadyPastFailsAtOnce(_ subject: any ContractTransport) async throws {
        let request = try TransportFixture.request(.get, TransportFixture.fault("/delay?seconds=40"))
        let error = try await withWatchdog(seconds: 30) {
            await #expect(throws: ClientError.self) {
                try await subject.shared.send(request, options: TransportOptions(deadline: .now - .seconds(1)))
            }
        }
        #expect(error?.code == .timedOut, "got \(String(describing: error))")
    }

    @Test(arguments: ContractTransports.all)
    func deadlineOnlyCoversAStreamedResponseUntilItsHead(_ subject: any ContractTransport) async throws {
        // 3 chunks 2.5 s apart: the body outlasts the deadline, the head (sent at once) does not.
        let request = try TransportFixture.request(
            .get, TransportFixture.fault("/slow?bytes=3000&chunks=3&interval=2.5"))
        let received = try await HoggingStep.timed {
            try await withWatchdog(seconds: 40) {
                let response = try await subject.shared.send(
                    request, options: TransportOptions(deadline: .now + .seconds(4)))
                var count = 0
                for try await chunk in try #require(response.body).chunks() { count += chunk.count }
                return count
            }
        }
        #expect(received == 3000)
    }

    @Test(arguments: ContractTransports.all)
    func bodyDeadlineEndsABodyStillArriving(_ subject: any ContractTransport) async throws {
        let request = try TransportFixture.request(
            .get, TransportFixture.fault("/slow?bytes=3000&chunks=3&interval=2.5"))
        let error = try await withWatchdog(seconds: 40) {
            await #expect(throws: ClientError.self) {
                let response = try await subject.shared.send(
                    request, options: TransportOptions(bodyDeadline: .now + .seconds(1)))
                _ = try await TransportFixture.data(response)
            }
        }
        #expect(error?.code == .timedOut, "got \(String(describing: error))")
    }

    /// A slow progress callback runs off the threads every request shares.
    @Test(arguments: ContractTransports.all)
    func slowProgressCallbackDoesNotStallOtherRequests(_ subject: any ContractTransport) async throws {
        let upload = try TransportFixture.request(
            .post, TransportFixture.fault("/hash"), body: HTTPBody(TransportFixture.pattern(200_000)))
        let blocking = BlockingProgress(seconds: 15)
        async let uploaded = subject.shared.send(upload, options: TransportOptions(progress: blocking.callback))
        try await withWatchdog(seconds: 30) { await blocking.waitUntilBlocked() }
        try await HoggingStep.timed {
            let start = ContinuousClock.now
            let quick = try await subject.shared.send(
                try TransportFixture.request(.get, TransportFixture.fault("/bytes?n=10")), options: TransportOptions())
            #expect(quick.head.status == .ok)
            #expect(ContinuousClock.now - start < .seconds(12))
        }
        let response = try await uploaded
        #expect(try await TransportFixture.json(response)["bytes"] as? Int == 200_000)
    }

    @Test(arguments: ContractTransports.all)
    func everyUploadReportArrivesBeforeSendReturns(_ subject: any ContractTransport) async throws {
        let recorder = ProgressRecorder()
        let request = try TransportFixture.request(
            .post, TransportFixture.fault("/hash"), body: HTTPBody(TransportFixture.pattern(300_000)))
        _ = try await subject.shared.send(request, options: TransportOptions(progress: recorder.callback))
        let last = try #require(recorder.reports(.upload).last)
        #expect(last.completed == 300_000)
        #expect(last.expected == 300_000)
    }

    @Test(arguments: ContractTransports.all)
    func everyDownloadReportArrivesBeforeTheClientReturns(_ subject: any ContractTransport) async throws {
        let recorder = ProgressRecorder()
        let request = try TransportFixture.request(.get, TransportFixture.fault("/bytes?n=300000"))
        _ = try await Client(transport: subject.shared).send(
            request, options: RequestOptions(progress: recorder.destination))
        let last = try #require(recorder.reports(.download).last)
        #expect(last.completed == 300_000)
        #expect(last.expected == 300_000)
    }
}
