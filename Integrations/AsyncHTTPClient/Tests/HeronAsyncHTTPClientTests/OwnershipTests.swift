import AsyncHTTPClient
import Foundation
import HTTPClient
import HeronAsyncHTTPClient
import Testing

/// Who shuts the AsyncHTTPClient `HTTPClient` down, and a client set up against the contract.
@Suite("AsyncHTTPClientTransport: the HTTPClient's owner")
struct OwnershipTests {
    @Test("shutdown() leaves a caller's client running: the caller shuts it down")
    func borrowedClientIsLeftToItsOwner() async throws {
        let client = HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup,
            configuration: AsyncHTTPClientTransport.clientConfiguration(.init()))
        let transport = AsyncHTTPClientTransport(client: client)
        #expect(!transport.ownsClient)
        try await transport.shutdown()
        let response = try await transport.send(
            HTTPRequest(url: try TransportFixture.httpbin("/get")), options: TransportOptions())
        #expect(response.head.status == .ok)
        _ = try await TransportFixture.data(response)
        try await client.shutdown()
    }

    @Test("an owned client is shut down once, and later requests fail with transport")
    func ownedClientIsShutDownOnce() async throws {
        let transport = AsyncHTTPClientTransport()
        #expect(transport.ownsClient)
        try await transport.shutdown()
        try await transport.shutdown()
        let error = await #expect(throws: ClientError.self) {
            _ = try await transport.send(
                HTTPRequest(url: try TransportFixture.httpbin("/get")), options: TransportOptions())
        }
        #expect(error?.code == .transport)
    }

    @Test("a transport released without shutdown() shuts its client down")
    func releasedTransportShutsItsClientDown() async throws {
        var client: HTTPClient?
        do {
            let transport = AsyncHTTPClientTransport()
            client = transport.client
        }
        let orphan = try #require(client)
        // Shut down by the transport's deinit: a second shutdown is refused.
        try await Task.sleep(for: .milliseconds(200))
        await #expect(throws: (any Error).self) { try await orphan.shutdown() }
    }

    @Test("a caller's client that follows redirects fails the request instead of answering for another URL")
    func redirectFollowingClientIsRefused() async throws {
        let client = HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup,
            configuration: .init(redirectConfiguration: .follow(max: 5, allowCycles: false)))
        defer { _ = client.shutdown() }
        let transport = AsyncHTTPClientTransport(client: client)
        let error = await #expect(throws: ClientError.self) {
            _ = try await transport.send(
                HTTPRequest(url: try TransportFixture.httpbin("/redirect-to?url=/get&status_code=302")),
                options: TransportOptions())
        }
        #expect(error?.code == .transport)
        #expect(error?.message.contains("redirectConfiguration: .disallow") == true)
    }

    @Test("the configuration an owned client gets: no redirects, its connection limit, decompression")
    func clientConfiguration() {
        let settings = AsyncHTTPClientTransport.clientConfiguration(
            .init(maximumConnectionsPerHost: 16, connectTimeout: .seconds(3), decompressesResponses: false))
        #expect(settings.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit == 16)
        #expect(settings.connectionPool.retryConnectionEstablishment == false)
        #expect(settings.timeout.connect == .seconds(3))
        #expect("\(settings.redirectConfiguration)".contains("disallow"))
        #expect("\(settings.decompression)".contains("disabled"))
    }
}
