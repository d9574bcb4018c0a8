import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import HTTPClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The transport's idle timeout holds on its own clock, whatever URLSession does.
///
/// URLSession on Linux runs its timeout timer on its work queue, one serial queue for every
/// session of the process: while another transfer holds that queue (a hostile response head
/// of many thousand fields held it for seconds on a busy machine), the timer cannot fire, and
/// once it could, the silent server's late answer had come and cancelled it. These tests
/// drive a transfer as URLSession's delegate would, and leave URLSession silent: the
/// timeout must fire all the same, and what URLSession reports afterwards must not revive
/// the transfer. They do not depend on the machine being idle: only a lower bound on the
/// time is checked, and a hang fails by the time limit.
@Suite("URLSessionTransport: the idle timeout on the transport's own clock", .timeLimit(.minutes(1)))
struct URLSessionTransportIdleTimeoutTests {
    static func request() throws -> HTTPRequest {
        try TransportFixture.request(.get, try #require(URL(string: "http://127.0.0.1:9/silent")))
    }

    /// Starts `transfer` as `send` does (no URLSession task: URLSession stays silent), then runs
    /// `deliver`, the callbacks URLSession would make.
    static func send(
        _ transfer: URLSessionTransfer, deliver: @Sendable () -> Void = {}
    ) async throws -> TransportResponse {
        try await withCheckedThrowingContinuation { continuation in
            guard transfer.prepare(continuation) else { return }
            if let due = transfer.firstTimerDue { transfer.setTimer(at: due) }
            deliver()
        }
    }

    static func head(_ status: Int, for request: HTTPRequest, fields: [String: String]) throws -> HTTPURLResponse {
        try #require(
            HTTPURLResponse(url: request.url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: fields))
    }

    @Test func silentServerTimesOutWithoutAnyWordFromURLSession() async throws {
        let request = try Self.request()
        let transfer = URLSessionTransfer(
            request: request, options: TransportOptions(idleTimeout: .seconds(1)), timers: DeadlineScheduler())
        let start = ContinuousClock.now
        let error = await #expect(throws: ClientError.self) { try await Self.send(transfer) }
        #expect(ContinuousClock.now - start >= .seconds(1), "the idle timeout fired early")
        #expect(error?.code == .timedOut, "got \(String(describing: error))")
        #expect((error?.underlying as? URLError)?.code == .timedOut)
        // What URLSession reports late is handed to no one: the caller, answered once already,
        // would trap on a second answer.
        let late = try Self.head(200, for: request, fields: ["Content-Length": "17"])
        _ = transfer.didReceive(late)
        _ = transfer.didReceive(Data(repeating: 0x20, count: 17))
        transfer.didComplete(error: nil)
    }

    @Test func idleTimeoutIsRoundedUpToWholeSecondsAsURLSessionsIs() async throws {
        let request = try Self.request()
        let transfer = URLSessionTransfer(
            request: request, options: TransportOptions(idleTimeout: .milliseconds(200)), timers: DeadlineScheduler())
        let start = ContinuousClock.now
        let error = await #expect(throws: ClientError.self) { try await Self.send(transfer) }
        #expect(ContinuousClock.now - start >= .seconds(1))
        #expect(error?.code == .timedOut)
    }

    /// swift-corelibs-foundation stops its own timer once the transfer is done, then raises
    /// the `401`'s authentication challenge: a challenge that never resolved left the task,
    /// and the body's reader, waiting for ever. The transport's timer still ends the body.
    @Test func unauthorizedBodyWhoseTaskNeverCompletesEndsAtTheIdleTimeout() async throws {
        let request = try Self.request()
        let transfer = URLSessionTransfer(
            request: request, options: TransportOptions(idleTimeout: .seconds(1)), timers: DeadlineScheduler())
        let head = try Self.head(
            401, for: request, fields: ["WWW-Authenticate": "Basic realm=\"heron\"", "Content-Length": "10"])
        let response = try await Self.send(transfer) {
            _ = transfer.didReceive(head)
            _ = transfer.didReceive(Data(repeating: 0x61, count: 4))
        }
        #expect(response.head.status == .unauthorized)
        let error = await #expect(throws: ClientError.self) {
            try await TransportFixture.data(response)
        }
        #expect(error?.code == .timedOut, "got \(String(describing: error))")
        #expect(error?.response?.status == .unauthorized)
    }

    @Test func noIdleTimeoutNoDeadlineSetsNoTimer() throws {
        let transfer = URLSessionTransfer(
            request: try Self.request(), options: TransportOptions(), timers: DeadlineScheduler())
        #expect(transfer.firstTimerDue == nil)
    }
}
