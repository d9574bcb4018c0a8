import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import HTTPClient

/// A `401` with `WWW-Authenticate` comes back as a normal response, promptly.
///
/// swift-corelibs-foundation turns such a response into an authentication challenge and,
/// left to its default handling, never completes the task: these tests bound every request
/// by a watchdog far shorter than the transport's own timeout, so a regression fails instead
/// of hanging.
@Suite("URLSessionTransport: 401 challenges")
struct URLSessionTransportChallengeTests {
    /// Far longer than any answer from the local servers, far shorter than `idleTimeout`.
    static let watchdog = Duration.seconds(15)

    /// Options whose timeout cannot end the request before the watchdog does.
    static func options() -> TransportOptions {
        TransportOptions(idleTimeout: .seconds(120))
    }

    /// Runs `work`, failing the test when it has not finished within ``watchdog``; never beside
    /// a hostile head that holds URLSession's work queue (``HoggingStep``).
    static func withinWatchdog<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try await HoggingStep.timed { try await race(work) }
    }

    private static func race<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(for: watchdog)
                return nil
            }
            defer { group.cancelAll() }
            let first = try await group.next() ?? nil
            return try #require(first, "no answer within \(watchdog): the 401 challenge left the task pending")
        }
    }

    @Test func basicChallengeWithoutCredentialsReturnsTheUnauthorizedResponse() async throws {
        let transport = URLSessionTransport()
        let request = try TransportFixture.request(.get, TransportFixture.httpbin("/basic-auth/u/p"))
        let response = try await Self.withinWatchdog { try await transport.send(request, options: Self.options()) }
        #expect(response.head.status == .unauthorized)
        #expect(response.head.headerFields[.wwwAuthenticate]?.hasPrefix("Basic") == true)
        _ = try await Self.withinWatchdog { try await TransportFixture.data(response) }
        #expect(transport.delegate.activeTransferCount == 0)
    }

    @Test func unauthorizedBodyIsDeliveredWhole() async throws {
        let transport = URLSessionTransport()
        let request = try TransportFixture.request(.get, TransportFixture.httpbin("/status/401"))
        let response = try await Self.withinWatchdog { try await transport.send(request, options: Self.options()) }
        #expect(response.head.status == .unauthorized)
        let declared = try #require(response.head.headerFields[.contentLength].flatMap { Int($0) })
        #expect(try await TransportFixture.data(response).count == declared)
    }

    @Test func streamedUnauthorizedBodyEnds() async throws {
        let transport = URLSessionTransport()
        let request = try TransportFixture.request(.get, TransportFixture.httpbin("/status/401"))
        let (declared, received) = try await Self.withinWatchdog {
            let response = try await transport.send(request, options: Self.options())
            let declared = response.head.headerFields[.contentLength].flatMap { Int($0) }
            var count = 0
            for try await chunk in try #require(response.body).chunks() { count += chunk.count }
            return (declared, count)
        }
        #expect(declared != nil)
        #expect(received == declared)
    }

    @Test func sessionServesLaterRequestsAfterAChallenge() async throws {
        let transport = URLSessionTransport()
        let unauthorized = try TransportFixture.request(.get, TransportFixture.httpbin("/basic-auth/u/p"))
        _ = try await Self.withinWatchdog {
            try await TransportFixture.data(transport.send(unauthorized, options: Self.options()))
        }
        let next = try TransportFixture.request(.get, TransportFixture.httpbin("/get"))
        let response = try await Self.withinWatchdog { try await transport.send(next, options: Self.options()) }
        #expect(response.head.status == .ok)
    }

    @Test func clientWithoutCredentialsGetsUnauthorizedPromptly() async throws {
        let client = Client(baseURL: try TestServers.httpbin(), retry: .none, timeout: .seconds(120))
        let response = try await Self.withinWatchdog {
            try await client.send(HTTPRequest(url: URL(string: "basic-auth/u/p")!))
        }
        #expect(response.status == .unauthorized)
    }
}
