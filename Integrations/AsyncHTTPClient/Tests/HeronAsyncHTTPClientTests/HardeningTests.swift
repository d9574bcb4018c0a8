import AsyncHTTPClient
import Foundation
import HTTPClient
import HTTPCore
import HeronAsyncHTTPClient
import NIOCore
import Testing

/// What the second hardening round (issue 29) asked of this transport: the version it
/// reports, trailers handed on, a bounded decompression, a prompt TLS shutdown.
@Suite("AsyncHTTPClientTransport: hardening")
struct HardeningTests {
    @Test("the response head carries the HTTP version AsyncHTTPClient reports")
    func versionReported() async throws {
        let transport = AsyncHTTPClientTransport()
        defer { Task { try? await transport.shutdown() } }
        let response = try await transport.send(
            HTTPRequest(url: try TransportFixture.httpbin("/get")), options: TransportOptions())
        _ = try await TransportFixture.data(response)
        #expect(response.head.version == .http1_1)
    }

    /// Follows the build: with the package's `ResponseTrailers` trait on (as
    /// `scripts/test-published`'s consumer package builds it), the trailers arrive; without it
    /// (`swift test` in this package, its default traits), they are dropped and the body is whole.
    @Test("a response's trailer section reaches the caller with the ResponseTrailers trait, is dropped without it")
    func trailersFollowTheTrait() async throws {
        let transport = AsyncHTTPClientTransport()
        defer { Task { try? await transport.shutdown() } }
        let client = Client(transport: transport)
        let checksum = try HTTPFieldName("X-Checksum")
        // 5 bytes 00 01 02 03 04, whose SHA-256 the fault server sends as the trailer.
        let digest = "08bb5e5d6eaac1049ede0893d30ed022b1a4d9b5b48db414871f51c9cb35283d"
        let delivered = AsyncHTTPClientTransport.deliversTrailers

        let sent = try await client.send(HTTPRequest(url: try TransportFixture.fault("/trailers?fields=3")))
        #expect(sent.body == Data([0, 1, 2, 3, 4]))
        #expect(sent.headerFields[checksum] == nil)
        if delivered {
            #expect(sent.trailerFields?[checksum] == digest)
            #expect(sent.trailerFields?.count == 4)
        } else {
            #expect(sent.trailerFields == nil)
        }

        let streamed = try await client.stream(HTTPRequest(url: try TransportFixture.fault("/trailers?bytes=300000")))
        var count = 0
        for try await chunk in streamed.body { count += chunk.count }
        #expect(count == 300_000)
        if delivered {
            #expect(streamed.trailerFields?[checksum]?.count == 64)
        } else {
            #expect(streamed.trailerFields == nil)
        }

        let plain = try await client.send(HTTPRequest(url: try TransportFixture.fault("/bytes?n=5")))
        #expect(plain.trailerFields == nil)
    }

    @Test("a gzip bomb read as a stream fails with responseTooLarge past the ratio, not after 64 MiB")
    func decompressionBounded() async throws {
        let transport = AsyncHTTPClientTransport()
        defer { Task { try? await transport.shutdown() } }
        var options = TransportOptions()
        options.awaitsWholeBody = false
        let response = try await transport.send(
            HTTPRequest(url: try TransportFixture.fault("/gzip-bomb?mib=64")), options: options)
        var received = 0
        let error = await #expect(throws: ClientError.self) {
            for try await chunk in try #require(response.body).chunks() { received += chunk.count }
        }
        #expect(error?.code == .responseTooLarge)
        #expect(error?.message.contains("maximumDecompressionRatio") == true)
        // About 64 KiB arrive encoded: the body stops far short of its 64 MiB.
        #expect(received < 64 << 20)
        // A ratio the bomb stays under decodes it whole.
        let lenient = AsyncHTTPClientTransport(configuration: .init(maximumDecompressionRatio: 5_000))
        defer { Task { try? await lenient.shutdown() } }
        let whole = try await lenient.send(
            HTTPRequest(url: try TransportFixture.fault("/gzip-bomb?mib=4")), options: TransportOptions())
        #expect(try await TransportFixture.data(whole).count == 4 << 20)
    }

    @Test("a transport's own client waits 100 ms, not NIOSSL's 5 s, for a closing TLS connection")
    func tlsShutdownPrompt() {
        let defaults = AsyncHTTPClientTransport.clientConfiguration(.init())
        #expect(defaults.tlsConfiguration?.shutdownTimeout == .milliseconds(100))
        let chosen = AsyncHTTPClientTransport.clientConfiguration(.init(tlsShutdownTimeout: .seconds(1)))
        #expect(chosen.tlsConfiguration?.shutdownTimeout == .seconds(1))
    }
}
