import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import HTTPClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// URLSessionTransport against the HTTPS servers of `Tests/Servers/tls_servers.py`, whose
/// private CA the system does not trust: a certificate that does not verify fails at once,
/// `serverTrustFailed`, and is never retried.
@Suite("URLSessionTransport: untrusted server certificates")
struct URLSessionTransportTrustTests {
    /// The private CA's leaf (an untrusted root for the system policy), an expired leaf, and
    /// another host's leaf: the default client stack connects once to each and gives up.
    @Test(
        "an untrusted, expired or other host's certificate fails serverTrustFailed after one connection",
        arguments: ["trusted", "expired", "wronghost"])
    func untrustedFailsOnce(server: String) async throws {
        let info = try TLSServers.load()
        let port = try #require(info.ports[server])
        let counter = URLSessionTransport()
        let before = try #require(try await info.connections(using: counter)[server])
        // The default retry policy, which retries cannotConnect and transport failures.
        let client = Client(transport: URLSessionTransport())
        let error = await #expect(throws: ClientError.self) {
            _ = try await client.send(HTTPRequest(url: URL(string: "https://127.0.0.1:\(port)/x")!))
        }
        #expect(error?.code == .serverTrustFailed, "\(server): \(String(describing: error))")
        #expect(error?.message.contains("certificate") == true, "\(String(describing: error?.message))")
        #expect(error?.attempts.count ?? 0 <= 1, "\(server): \(error?.attempts.count ?? -1) attempts")
        #expect(!RetryPolicy.defaultTransportErrorCodes.contains(.serverTrustFailed))
        let after = try #require(try await info.connections(using: counter)[server])
        #expect(after - before == 1, "\(server): \(after - before) connections")
    }

    @Test("libcurl's certificate failures behind URLError -1 map to serverTrustFailed; other -1 errors do not")
    func libcurlTexts() throws {
        let request = HTTPRequest(url: URL(string: "https://127.0.0.1/")!)
        for text in [
            "SSL certificate problem: unable to get local issuer certificate",
            "SSL certificate problem: certificate has expired",
            "SSL certificate problem: certificate is not yet valid",
            "SSL certificate problem: self-signed certificate",
            "SSL: no alternative certificate subject name matches target host name '127.0.0.1'",
            "SSL: certificate subject name 'other.example' does not match target host name '127.0.0.1'",
            "server certificate verification failed. CAfile: none CRLfile: none",
        ] {
            let urlError = URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: text])
            let mapped = URLSessionTransport.mapError(urlError, request: request, response: nil) as? ClientError
            #expect(mapped?.code == .serverTrustFailed, "\(text)")
            #expect(mapped?.message.contains(text) == true)
        }
        for code in [
            URLError.Code.serverCertificateUntrusted, .serverCertificateHasUnknownRoot, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid,
        ] {
            let mapped = URLSessionTransport.mapError(URLError(code), request: request, response: nil) as? ClientError
            #expect(mapped?.code == .serverTrustFailed, "\(code)")
        }
        let other = URLError(
            .unknown, userInfo: [NSLocalizedDescriptionKey: "Failure when receiving data from the peer"])
        let mapped = URLSessionTransport.mapError(other, request: request, response: nil) as? ClientError
        #expect(mapped?.code == .transport)
        let handshake = URLSessionTransport.mapError(URLError(.secureConnectionFailed), request: request, response: nil)
        #expect((handshake as? ClientError)?.code == .cannotConnect)
    }
}
