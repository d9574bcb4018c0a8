import Foundation
import HTTPClient
import HTTPCookies
import HTTPCore
import HeronAsyncHTTPClient
import Testing

/// Digest authentication works the same over this transport as over URLSession: the client
/// answers the challenges above the transport (issue 32).
@Suite("AsyncHTTPClientTransport: a client with Digest authentication")
struct DigestTests {
    @Test("httpbin's digest-auth with SHA-256, then its stale nonces answered again without failing")
    func digestAgainstHttpbin() async throws {
        let transport = AsyncHTTPClientTransport()
        defer { Task { try? await transport.shutdown() } }
        // httpbin keeps its stale-nonce state in cookies: each client has a jar of its own.
        func client() throws -> Client {
            Client(
                baseURL: try TransportFixture.httpbin("/"), transport: transport,
                interceptors: [DigestAuth(username: "user", password: "passwd")], retry: .none, cookies: CookieJar())
        }
        let sha256 = try client()
        let first = try await sha256.send(.get("digest-auth/auth/user/passwd/SHA-256"))
        let second = try await sha256.send(.get("digest-auth/auth/user/passwd/SHA-256"))
        #expect(first.status == .ok && second.status == .ok)
        #expect(first.metrics.attempts.count == 2)
        #expect(second.metrics.attempts.count == 1)

        let stale = try client()
        var attempts: [Int] = []
        for _ in 0..<5 {
            let response = try await stale.send(.get("digest-auth/auth/user/passwd/MD5/2"))
            #expect(response.status == .ok)
            attempts.append(response.metrics.attempts.count)
        }
        // Challenged, then two answers ahead of time use the nonce up; the next is stale.
        #expect(attempts == [2, 1, 2, 1, 2])
    }
}
