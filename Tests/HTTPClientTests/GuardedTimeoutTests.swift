import Foundation
import HTTPCore
import Testing

@testable import HTTPClient

/// The timeout's meaning over a transport that enforces no limit itself (a test double, a
/// user's own): the client's guard bounds the wait for the head with the timeout, each wait
/// for a body chunk with the idle timeout, and the whole body only with the call's deadline.
/// The transport contract suite checks the same over URLSession and AsyncHTTPClient.
@Suite("Timeouts over a transport that enforces none")
struct GuardedTimeoutTests {
    /// Answers with a body of `chunks` chunks of 10 bytes, one every `gap`, after a head sent
    /// after `headDelay`; enforces nothing. The chunks come from a dispatch queue, on time
    /// however busy the suite keeps Swift's cooperative pool.
    struct TricklingTransport: ClientTransport {
        var headDelay: Duration = .zero
        let chunks: Int
        let gap: Duration

        func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
            if headDelay > .zero { try await Task.sleep(for: headDelay) }
            let (chunks, gap) = (self.chunks, self.gap)
            let milliseconds = Int(gap.components.seconds * 1000 + gap.components.attoseconds / 1_000_000_000_000_000)
            let stream = AsyncThrowingStream<Data, any Error> { continuation in
                @Sendable func send(_ index: Int) {
                    guard index < chunks else {
                        continuation.finish()
                        return
                    }
                    guard case .enqueued = continuation.yield(Data(repeating: UInt8(index), count: 10)) else { return }
                    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds)) {
                        send(index + 1)
                    }
                }
                send(0)
            }
            return TransportResponse(head: HTTPResponse(status: .ok), body: HTTPBody(stream: stream, length: .unknown))
        }
    }

    private func client(_ transport: TricklingTransport, timeout: Duration) -> Client {
        Client(transport: transport, retry: .none, timeout: timeout)
    }

    private let url = URL(string: "https://api.example.com/trickle")!

    // The client's guard times the waits of the reader, which runs on Swift's cooperative pool:
    // the full suite can keep that pool busy for seconds (8.6 s seen), and a reader not run
    // meanwhile waits. So each limit below that must not pass is 10 s or more.

    @Test("the timeout does not bound a body that keeps arriving: an idle timeout set apart bounds its gaps")
    func tricklingBodyCompletes() async throws {
        let transport = TricklingTransport(chunks: 12, gap: .milliseconds(250))
        // A 1 s timeout, and 15 s for each gap: the body takes 2.75 s, past the timeout.
        let options = RequestOptions(timeout: .seconds(1), idleTimeout: .seconds(15))
        let start = ContinuousClock.now
        let response = try await client(transport, timeout: .seconds(60)).send(HTTPRequest(url: url), options: options)
        #expect(ContinuousClock.now - start >= .milliseconds(2_700))
        #expect(response.body.count == 120)
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("heron-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: destination) }
        let file = try await client(transport, timeout: .seconds(60)).download(
            HTTPRequest(url: url), to: destination, options: options)
        #expect(try Data(contentsOf: file.body).count == 120)
    }

    @Test("a gap longer than the timeout fails timedOut, naming the idle timeout")
    func gapFails() async throws {
        // Had the gap not ended it, the body would have arrived whole (at 60 s) and the call
        // succeeded.
        let transport = TricklingTransport(chunks: 3, gap: .seconds(30))
        let error = await #expect(throws: ClientError.self) {
            try await client(transport, timeout: .milliseconds(300)).send(HTTPRequest(url: url))
        }
        #expect(error?.code == .timedOut)
        #expect(error?.message.contains("idle timeout") == true, "got \(String(describing: error))")
    }

    @Test("the call's idle timeout bounds the gaps apart from the timeout")
    func idleTimeoutApart() async throws {
        let transport = TricklingTransport(chunks: 3, gap: .milliseconds(600))
        // A 300 ms timeout with a 15 s idle timeout: the 600 ms gaps pass.
        let response = try await client(transport, timeout: .milliseconds(300)).send(
            HTTPRequest(url: url), options: RequestOptions(idleTimeout: .seconds(15)))
        #expect(response.body.count == 30)
        // A 15 s timeout with a 200 ms idle timeout: the first gap fails.
        let error = await #expect(throws: ClientError.self) {
            try await client(transport, timeout: .seconds(15)).send(
                HTTPRequest(url: url), options: RequestOptions(idleTimeout: .milliseconds(200)))
        }
        #expect(error?.code == .timedOut)
    }

    @Test("a head later than the timeout fails timedOut, naming the timeout")
    func lateHeadFails() async throws {
        let transport = TricklingTransport(headDelay: .seconds(5), chunks: 1, gap: .zero)
        let error = await #expect(throws: ClientError.self) {
            try await client(transport, timeout: .milliseconds(200)).send(HTTPRequest(url: url))
        }
        #expect(error?.code == .timedOut)
        #expect(error?.message.contains("no response within the timeout") == true, "got \(String(describing: error))")
    }

    @Test("a reader slow to take each chunk (a slow disk) is not timed out")
    func slowReaderIsNotIdle() async throws {
        let transport = TricklingTransport(chunks: 3, gap: .milliseconds(10))
        // The progress callback runs in the reading loop: 250 ms per chunk, over a 150 ms timeout.
        let progress = ProgressDestination.callback { _ in usleep(250_000) }
        let response = try await client(transport, timeout: .milliseconds(150)).send(
            HTTPRequest(url: url), options: RequestOptions(progress: progress))
        #expect(response.body.count == 30)
    }

    @Test("the call's deadline ends a body still arriving, mid-way")
    func deadlineEndsTheBody() async throws {
        // 30 chunks 500 ms apart: had the deadline not ended it, the body would have arrived
        // whole (at 14.5 s) and the call succeeded. (When it ends is not asserted: the reader's
        // task runs on the cooperative pool, which the full suite may keep busy past 14.5 s.)
        let transport = TricklingTransport(chunks: 30, gap: .milliseconds(500))
        let error = await #expect(throws: ClientError.self) {
            try await client(transport, timeout: .seconds(30)).send(
                HTTPRequest(url: url), options: RequestOptions(deadline: .now + .milliseconds(700)))
        }
        #expect(error?.code == .timedOut)
        #expect(error?.message.contains("deadline") == true, "got \(String(describing: error))")
    }

    @Test("a transport that enforces every limit gets them as options and no guard")
    func enforcingTransportGetsTheLimits() async throws {
        let seen = Locked<TransportOptions?>(nil)
        struct Recording: ClientTransport {
            let seen: Locked<TransportOptions?>
            var enforcedLimits: TransportLimits { .all }
            func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
                seen.withLock { $0 = options }
                return TransportResponse(head: HTTPResponse(status: .ok), body: HTTPBody("ok"))
            }
        }
        let client = Client(transport: Recording(seen: seen), retry: .none, timeout: .seconds(7))
        let before = ContinuousClock.now
        _ = try await client.send(HTTPRequest(url: url), options: RequestOptions(deadline: .now + .seconds(30)))
        let options = try #require(seen.withLock { $0 })
        #expect(options.idleTimeout == .seconds(7))
        let head = try #require(options.deadline)
        #expect(head > before + .seconds(6) && head <= ContinuousClock.now + .seconds(7))
        let body = try #require(options.bodyDeadline)
        #expect(body > before + .seconds(29))
        // A stream's body belongs to its reader: no body deadline.
        _ = try await client.stream(HTTPRequest(url: url), options: RequestOptions(deadline: .now + .seconds(30)))
        #expect(seen.withLock { $0?.bodyDeadline } == nil)
    }
}
