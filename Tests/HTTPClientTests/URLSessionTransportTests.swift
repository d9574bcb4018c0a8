import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import HTTPClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension TransportFixture {
    /// One URLSessionTransport for the tests that need no special configuration: the contract
    /// suite's.
    static var transport: URLSessionTransport { URLSessionContract.transport }
}

@Suite("URLSessionTransport: requests and responses")
struct URLSessionTransportTests {
    let transport = TransportFixture.transport

    @Test func configurationSetsConnectionsPerHostAndTurnsCookiesOff() {
        let transport = URLSessionTransport(configuration: .init(maximumConnectionsPerHost: 8))
        #expect(transport.maximumConnectionsPerHost == 8)
        let configuration = transport.session.configuration
        #expect(configuration.httpMaximumConnectionsPerHost == 8)
        #expect(configuration.httpShouldSetCookies == false)
        #expect(configuration.httpCookieStorage == nil)
        #expect(configuration.urlCache == nil)
        #expect(URLSessionTransport().maximumConnectionsPerHost == 64)
    }

    @Test func passedSessionConfigurationIsCopiedWithTheTransportSettings() {
        let given = URLSessionConfiguration.default
        given.httpAdditionalHeaders = ["X-From-Configuration": "yes"]
        let transport = URLSessionTransport(
            sessionConfiguration: given, configuration: .init(maximumConnectionsPerHost: 3))
        let used = transport.session.configuration
        #expect(used.httpMaximumConnectionsPerHost == 3)
        #expect(used.httpShouldSetCookies == false)
        #expect(used.httpAdditionalHeaders?["X-From-Configuration"] as? String == "yes")
        #expect(given.httpMaximumConnectionsPerHost != 3)
    }
}
