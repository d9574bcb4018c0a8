import HTTPClient
import NIOSSL
import Testing

@testable import HeronAsyncHTTPClient

/// Which TLS failures show that nothing of the request was sent: the client retries any
/// method after `cannotConnect`, so only a failed handshake may be it.
@Suite("AsyncHTTPClientTransport: TLS errors and what they say was sent")
struct ErrorMappingTests {
    @Test("a failed handshake is cannotConnect; a certificate refused is serverTrustFailed, never retried")
    func handshakeIsCannotConnect() {
        #expect(
            AsyncHTTPClientTransport.classify(
                NIOSSLError.handshakeFailed(.sslError([])), headArrived: false, bodyBytes: 0
            )
            .0 == .cannotConnect)
        // A chain the trust roots refuse (TrustPolicyTests meets it on real connections).
        let refused: [any Error] = [NIOSSLError.unableToValidateCertificate, NIOSSLExtraError.failedToValidateHostname]
        for error in refused {
            #expect(AsyncHTTPClientTransport.classify(error, headArrived: false, bodyBytes: 0).0 == .serverTrustFailed)
        }
        #expect(!RetryPolicy.defaultTransportErrorCodes.contains(.serverTrustFailed))
    }

    @Test("a TLS failure after the handshake is connectionLost: the request may have been on its way")
    func laterFailureIsConnectionLost() {
        let errors: [any Error] = [BoringSSLError.sslError([]), NIOSSLError.uncleanShutdown]
        for error in errors {
            for headArrived in [false, true] {
                let (code, _) = AsyncHTTPClientTransport.classify(error, headArrived: headArrived, bodyBytes: 0)
                #expect(code == .connectionLost, "\(error), head arrived: \(headArrived)")
            }
        }
    }
}
