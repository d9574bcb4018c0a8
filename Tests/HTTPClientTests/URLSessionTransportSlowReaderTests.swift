import Foundation
import HTTPCore
import Testing

@testable import HTTPClient

/// A download's reader that falls behind on URLSession, which cannot be paused on Linux: the
/// transport holds each delivery for the reader (``TransportOptions/pausesForSlowReader``) on
/// URLSession's work queue, which requests starting meanwhile wait for too. Alone
/// (``HoggingStep``): the queue is every URLSession transfer's of the process.
@Suite("URLSessionTransport: a slow reader of a download")
struct URLSessionTransportSlowReaderTests {
    @Test("requests started while a delivery waits for a stalled reader still run, and the body arrives whole")
    func otherRequestsRunWhileADeliveryWaits() async throws {
        try await HoggingStep.alone { try await Self.otherRequestsRun() }
    }

    static func otherRequestsRun() async throws {
        let transport = URLSessionTransport()
        let count = 4_000_000
        var options = TransportOptions(responseBufferLimit: 64 * 1024)
        options.pausesForSlowReader = true
        let download = try await transport.send(
            try TransportFixture.request(.get, TransportFixture.fault("/bytes?n=\(count)")), options: options)
        // The reader stalls while 16 requests start on the same work queue, from more tasks than
        // the pool has threads: each waits for the queue while a delivery holds it.
        let statuses = try await withWatchdog(seconds: 15) {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<16 {
                    group.addTask {
                        let response = try await transport.send(
                            try TransportFixture.request(.get, TransportFixture.fault("/bytes?n=\(index + 1)")),
                            options: TransportOptions())
                        _ = try await TransportFixture.data(response)
                        return response.head.status.code
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
        }
        #expect(statuses == Array(repeating: 200, count: 16))
        #expect(try await TransportFixture.data(download) == TransportFixture.pattern(count))
    }
}
