import Foundation
import HTTPClientTesting
import HTTPCore
import TestSupport
import Testing

@testable import HTTPClient

/// The transport enforces ``TransportOptions/deadline`` itself (the client then runs no task
/// of its own per attempt), and runs callers' progress callbacks off URLSession's queues.
@Suite("URLSessionTransport: deadlines and callbacks")
struct URLSessionTransportDeadlineTests {
    @Test func transportSaysWhichLimitsItEnforces() {
        #expect(URLSessionTransport().enforcedLimits == .all)
        #expect(StubTransport().enforcedLimits.isEmpty)
    }

}
