import Foundation
import HTTPClient
import HTTPCore
import HeronAsyncHTTPClient
import Testing

/// A ``TrustPolicy`` over this transport, against the HTTPS servers of `scripts/with-servers`
/// (`Tests/Servers/tls_servers.py`: a private CA made by openssl at the run's start; a leaf, an
/// expired leaf, another host's leaf, and a server that requires a client certificate).
@Suite("AsyncHTTPClientTransport: TLS trust policies")
struct TrustPolicyTests {
    static func url(_ server: String, host: String = "127.0.0.1") throws -> URL {
        URL(string: "https://\(host):\(try #require(try TLSServers.load().ports[server]))/x")!
    }

    static func privateCA() throws -> TrustPolicy.Certificate {
        try TrustPolicy.Certificate(pem: String(contentsOfFile: try TLSServers.load().ca, encoding: .utf8))
    }

    /// Sends one GET through a client over a transport with `trust`.
    static func get(_ url: URL, trust: TrustPolicy) async throws -> ClientResponse<Data> {
        let transport = try AsyncHTTPClientTransport(trust: trust)
        defer { Task { try? await transport.shutdown() } }
        return try await Client(transport: transport).send(HTTPRequest(url: url))
    }

    @Test(
        "the private CA as an extra root makes its server trusted; without it the server fails serverTrustFailed, once")
    func extraRoot() async throws {
        let trusted = try await Self.get(
            try Self.url("trusted"), trust: TrustPolicy(additionalRoots: [try Self.privateCA()]))
        #expect(trusted.status == .ok && trusted.body == Data("ok".utf8))
        let only = try await Self.get(
            try Self.url("trusted"),
            trust: TrustPolicy(trustsSystemRoots: false, additionalRoots: [try Self.privateCA()]))
        #expect(only.status == .ok)

        let error = await #expect(throws: ClientError.self) {
            _ = try await Self.get(try Self.url("trusted"), trust: .system)
        }
        #expect(error?.code == .serverTrustFailed)
        // Not retried by the default policy: a second attempt would see the same chain.
        #expect(error?.attempts.count ?? 0 <= 1)
    }

    @Test("an expired leaf and another host's leaf fail serverTrustFailed, the private CA trusted")
    func badLeaves() async throws {
        let policy = TrustPolicy(additionalRoots: [try Self.privateCA()])
        for server in ["expired", "wronghost"] {
            let error = await #expect(throws: ClientError.self, "\(server)") {
                _ = try await Self.get(try Self.url(server), trust: policy)
            }
            #expect(error?.code == .serverTrustFailed, "\(server): \(String(describing: error))")
        }
    }

    @Test("mutual TLS: the client identity gets through; without it the server refuses, authenticationFailed, once")
    func mutualTLS() async throws {
        let info = try TLSServers.load()
        let identity = try TrustPolicy.ClientIdentity(
            certificateChain: TrustPolicy.Certificate.all(
                pem: String(contentsOfFile: info.clientCertificate, encoding: .utf8)),
            privateKeyPEM: String(contentsOfFile: info.clientKey, encoding: .utf8))
        #expect(!identity.description.contains("PRIVATE"))
        let policy = TrustPolicy(additionalRoots: [try Self.privateCA()], clientIdentity: identity)
        let response = try await Self.get(try Self.url("mutual"), trust: policy)
        #expect(response.status == .ok)

        let refused = await #expect(throws: ClientError.self) {
            _ = try await Self.get(try Self.url("mutual"), trust: TrustPolicy(additionalRoots: [try Self.privateCA()]))
        }
        // The server's TLS alert (certificate required) is an authentication failure: not retried.
        #expect(refused?.code == .authenticationFailed, "\(String(describing: refused))")
        #expect(refused?.attempts.count ?? 0 <= 1)
    }

    @Test("pins cannot be checked through AsyncHTTPClient 1.37: the transport refuses them when made, typed")
    func pinsRefused() throws {
        let policy = TrustPolicy(
            additionalRoots: [try Self.privateCA()],
            pins: [
                try TrustPolicy.Pin(
                    "127.0.0.1", sha256: ["sha256/" + Data(repeating: 1, count: 32).base64EncodedString()])
            ])
        let error = #expect(throws: ClientError.self) { _ = try AsyncHTTPClientTransport(trust: policy) }
        #expect(error?.code == .trustPolicyUnsupported)
        #expect(error?.message.contains("127.0.0.1") == true)
    }

    @Test("a policy that trusts no root, and a key NIOSSL cannot read, fail typed when the transport is made")
    func badPolicies() throws {
        let none = #expect(throws: ClientError.self) {
            _ = try AsyncHTTPClientTransport(trust: TrustPolicy(trustsSystemRoots: false))
        }
        #expect(none?.code == .invalidRequest)
        let info = try TLSServers.load()
        let identity = try TrustPolicy.ClientIdentity(
            certificateChain: TrustPolicy.Certificate.all(
                pem: String(contentsOfFile: info.clientCertificate, encoding: .utf8)),
            privateKeyPEM: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        let key = #expect(throws: ClientError.self) {
            _ = try AsyncHTTPClientTransport(trust: TrustPolicy(clientIdentity: identity))
        }
        #expect(key?.code == .invalidRequest)
        #expect(key?.message.contains("private key") == true)
    }
}
