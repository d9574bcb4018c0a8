import Foundation
import HTTPClient
import HTTPCore
import Testing

/// What a call's `timeout` means over every transport (issue 41, Decision 1): it bounds each
/// attempt up to the response head and then every gap between body chunks, as URLSession's
/// `timeoutInterval` does, but not the whole body; time the body waits for a slow reader is
/// not a gap; only the call's `deadline` bounds the whole body.
@Suite("Transport contract: the client's timeout and deadline", .serialized)
struct TransportContractTimeoutTests {
    /// A client with `timeout`, no retries (each failure shows as it is), over a transport of
    /// its own: these bodies hold their connections for seconds, and on the shared transport
    /// they would queue the suite's other requests to the fault server behind URLSession's
    /// per-host connection limit (their 15 s watchdogs expired so in a cold CI run).
    private func client(_ subject: any ContractTransport, timeout: Duration) -> Client {
        Client(transport: subject.make(), retry: .none, timeout: timeout)
    }

    /// 19 chunks 1 s apart: a body that takes 18 s, three times the timeout, with every gap a
    /// sixth of it. The old per-attempt timeout failed it at 6 s. (The suite runs one test at a
    /// time: URLSession on Linux runs every session's transfers on one work queue. Each gap
    /// leaves 5 s of room: other tests of the suite's process hold that queue for seconds at a
    /// time, reading a stalled body stream on purpose, and with a 4 s timeout URLSession's own
    /// timer once ended the body so.)
    @Test(arguments: ContractTransports.all)
    func bodyTricklingForThreeTimesTheTimeoutCompletes(_ subject: any ContractTransport) async throws {
        let request = try TransportFixture.request(
            .get, TransportFixture.fault("/slow?bytes=19000&chunks=19&interval=1"))
        let start = ContinuousClock.now
        let response = try await HoggingStep.timed {
            try await withWatchdog(seconds: 60) {
                try await client(subject, timeout: .seconds(6)).send(request)
            }
        }
        #expect(ContinuousClock.now - start > .seconds(17))
        #expect(response.body == TransportFixture.pattern(19000))
    }

    /// A gap of 3 s in the body, over a 1 s timeout: the call fails with `timedOut` after the
    /// head arrived, for a buffered call and a download alike.
    @Test(arguments: ContractTransports.all)
    func gapLongerThanTheTimeoutFailsTimedOut(_ subject: any ContractTransport) async throws {
        let request = try TransportFixture.request(.get, TransportFixture.fault("/slow?bytes=20&chunks=2&interval=3"))
        let client = client(subject, timeout: .seconds(1))
        let buffered = try await withWatchdog(seconds: 30) {
            await #expect(throws: ClientError.self) { try await client.send(request) }
        }
        #expect(buffered?.code == .timedOut, "got \(String(describing: buffered))")
        let destination = TransportFixture.temporaryFile("gap")
        let downloaded = try await withWatchdog(seconds: 30) {
            await #expect(throws: ClientError.self) { try await client.download(request, to: destination) }
        }
        #expect(downloaded?.code == .timedOut, "got \(String(describing: downloaded))")
        #expect(!FileManager.default.fileExists(atPath: destination.path), "a failed download leaves no file")
    }

    /// An idle timeout set apart for the body, shorter than the timeout: a server that takes
    /// 6 s to answer is within the timeout (20 s) and is not cut at the idle timeout (3 s),
    /// while an 8 s gap in a body is.
    @Test(arguments: ContractTransports.all)
    func idleTimeoutBoundsTheBodyNotTheWaitForTheHead(_ subject: any ContractTransport) async throws {
        let client = client(subject, timeout: .seconds(20))
        let options = RequestOptions(idleTimeout: .seconds(3))
        let slowHead = try TransportFixture.request(.get, TransportFixture.fault("/delay?seconds=6"))
        let response = try await HoggingStep.timed {
            try await withWatchdog(seconds: 40) { try await client.send(slowHead, options: options) }
        }
        #expect(response.status == .ok)
        let gap = try TransportFixture.request(.get, TransportFixture.fault("/slow?bytes=20&chunks=2&interval=8"))
        let error = try await withWatchdog(seconds: 40) {
            await #expect(throws: ClientError.self) { try await client.send(gap, options: options) }
        }
        #expect(error?.code == .timedOut, "got \(String(describing: error))")
    }

    /// A reader that stops for 6 s, over a 4 s timeout, while 2 MB wait for it: the body
    /// waited for its reader, not for the server, and arrives whole.
    @Test(arguments: ContractTransports.all)
    func slowReaderIsNotTimedOut(_ subject: any ContractTransport) async throws {
        let request = try TransportFixture.request(
            .get, TransportFixture.fault("/slow?bytes=2000000&chunks=4&interval=0"))
        let received = try await HoggingStep.timed {
            try await withWatchdog(seconds: 40) {
                let response = try await client(subject, timeout: .seconds(4)).stream(request)
                var count = 0
                var paused = false
                for try await chunk in response.body {
                    count += chunk.count
                    if !paused {
                        paused = true
                        try await Task.sleep(for: .seconds(6))
                    }
                }
                return count
            }
        }
        #expect(received == 2_000_000)
    }

    /// A call's deadline still bounds the whole call: a body that keeps arriving (each gap
    /// well within the timeout) is ended at it, mid-way.
    @Test(arguments: ContractTransports.all)
    func deadlineEndsABodyMidWay(_ subject: any ContractTransport) async throws {
        let request = try TransportFixture.request(
            .get, TransportFixture.fault("/slow?bytes=4000&chunks=4&interval=1.5"))
        // Had the deadline not ended it, the body would have arrived whole (at 4.5 s) and the
        // call would have succeeded.
        let error = try await HoggingStep.timed {
            try await withWatchdog(seconds: 30) {
                await #expect(throws: ClientError.self) {
                    try await client(subject, timeout: .seconds(10)).send(
                        request, options: RequestOptions(deadline: .now + .seconds(2)))
                }
            }
        }
        #expect(error?.code == .timedOut, "got \(String(describing: error))")
        #expect(error?.message.contains("deadline") == true, "got \(String(describing: error))")
    }

    /// A file that nginx sends at 256 KiB/s (`limit_rate`), 2 MiB in about 8 s, downloaded
    /// under a 5 s timeout: it completes whole (scripts/with-servers starts the nginx).
    @Test(arguments: ContractTransports.all)
    func throttledNginxDownloadLongerThanTheTimeoutCompletes(_ subject: any ContractTransport) async throws {
        let url = try TransportFixture.server("HERON_NGINX_URL").appendingPathComponent("throttled/2MiB")
        let destination = TransportFixture.temporaryFile("throttled")
        defer { try? FileManager.default.removeItem(at: destination) }
        let start = ContinuousClock.now
        let response = try await HoggingStep.timed {
            try await withWatchdog(seconds: 60) {
                try await client(subject, timeout: .seconds(5)).download(
                    TransportFixture.request(.get, url), to: destination)
            }
        }
        #expect(response.status == .ok)
        #expect(ContinuousClock.now - start > .seconds(5), "the download was not throttled")
        #expect(try Data(contentsOf: response.body) == TransportFixture.pattern(2 << 20))
    }
}
