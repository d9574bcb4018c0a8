import AsyncHTTPClient
import Foundation
import HTTPClient
import HTTPCore
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension AsyncHTTPClientTransport {
    /// The error `send` or a body read throws for a failure AsyncHTTPClient or SwiftNIO
    /// reported: a ``ClientError`` with the same ``ClientError/Code`` that
    /// `URLSessionTransport` gives for the same fault, the request, the response head when
    /// one arrived, and the original error as ``ClientError/underlying``.
    ///
    /// Cancellations this transport made are told apart by its state machine before this
    /// runs; a `cancelled` that reaches here comes from the `HTTPClient` (shut down while the
    /// request ran).
    /// - Parameters:
    ///   - error: What AsyncHTTPClient reported.
    ///   - request: The request that failed.
    ///   - response: The response head, if it arrived.
    ///   - bodyBytes: Body bytes received before the failure.
    ///   - proxy: The proxy the request went through, if any.
    /// - Returns: A ``ClientError``, or the error itself when it is one already (or a
    ///   `CancellationError`).
    static func mapError(
        _ error: any Error, request: HTTPCore.HTTPRequest, response: HTTPCore.HTTPResponse?, bodyBytes: Int64 = 0,
        proxy: Proxy? = nil
    ) -> any Error {
        if error is ClientError || error is CancellationError { return error }
        if let proxy, response == nil, let (code, what) = classifyProxy(error, proxy: proxy, request: request) {
            return ClientError(code, "\(what) (\(error))", request: request, underlying: error)
        }
        let (code, what) = classify(error, headArrived: response != nil, bodyBytes: bodyBytes)
        return ClientError(code, "\(what) (\(error))", request: request, response: response, underlying: error)
    }

    /// The ``ClientError/Code`` and a description for a failure to get through `proxy`
    /// before any response: `nil` for a failure that is not the proxy's.
    ///
    /// AsyncHTTPClient opens a tunnel with `CONNECT` (RFC 9110 §9.3.6) for every request through
    /// an HTTP proxy: a `407` (RFC 9110 §15.5.8) is ``ClientError/Code/proxyAuthenticationFailed``
    /// (the transport answers it once, see ``AsyncHTTPClientTransport/send(_:options:)``);
    /// another status than 2xx, a handshake that timed out, a SOCKS5 server's refusal (RFC 1928
    /// §6) and a connection to the proxy that could not be made are
    /// ``ClientError/Code/proxyConnectFailed``: no byte of the request reached the origin.
    static func classifyProxy(
        _ error: any Error, proxy: Proxy, request: HTTPCore.HTTPRequest
    ) -> (ClientError.Code, String)? {
        let shown = proxy.withoutCredentials
        if let error = error as? HTTPClientError {
            switch error {
            case .proxyAuthenticationRequired:
                return (.proxyAuthenticationFailed, "the proxy \(shown) asks for credentials (407)")
            case .invalidProxyResponse:
                return (
                    .proxyConnectFailed,
                    "the proxy \(shown) refused the tunnel to \(tunnelTarget(of: request)): it answered the CONNECT "
                        + "with a status other than 2xx or 407 (AsyncHTTPClient does not say which)"
                )
            case .httpProxyHandshakeTimeout, .socksHandshakeTimeout:
                return (
                    .proxyConnectFailed,
                    "the proxy \(shown) did not open the way to \(tunnelTarget(of: request)) in time"
                )
            default:
                return nil
            }
        }
        // NIOSOCKS's SOCKSError (a module this package does not import): the server's refusal
        // (ConnectionFailed, with its reply) or a reply that is not SOCKS5.
        if String(reflecting: type(of: error)).hasPrefix("NIOSOCKS.") {
            return (
                .proxyConnectFailed, "the SOCKS5 proxy \(shown) did not open the way to \(tunnelTarget(of: request))"
            )
        }
        let refused: Bool
        if error is NIOConnectionError || error is SocketAddressError {
            refused = true
        } else if let error = error as? IOError {
            refused = [ECONNREFUSED, ENETUNREACH, EHOSTUNREACH, EADDRNOTAVAIL].contains(error.errnoCode)
        } else {
            refused = false
        }
        return refused ? (.proxyConnectFailed, "could not connect to the proxy \(shown)") : nil
    }

    /// `host:port` of the request's origin, as a `CONNECT` names it.
    static func tunnelTarget(of request: HTTPCore.HTTPRequest) -> String {
        let host = request.url.host(percentEncoded: false) ?? ""
        let port = request.url.port ?? (request.url.scheme?.lowercased() == "https" ? 443 : 80)
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// The TLS alerts a server sends about the client's certificate (RFC 8446 §6.2), as
    /// BoringSSL names them in its errors.
    static let clientCertificateAlerts = [
        "ALERT_CERTIFICATE_REQUIRED", "ALERT_BAD_CERTIFICATE", "ALERT_UNKNOWN_CA", "ALERT_CERTIFICATE_UNKNOWN",
        "ALERT_CERTIFICATE_REVOKED", "ALERT_CERTIFICATE_EXPIRED", "ALERT_UNSUPPORTED_CERTIFICATE",
    ]

    /// The client-certificate alert named in `error`, if any.
    static func clientCertificateAlert(in error: any Error) -> String? {
        let text = String(describing: error)
        return clientCertificateAlerts.first { text.contains($0) }
    }

    /// The ``ClientError/Code`` and a description for an AsyncHTTPClient or SwiftNIO error.
    static func classify(_ error: any Error, headArrived: Bool, bodyBytes: Int64) -> (ClientError.Code, String) {
        if let error = error as? HTTPClientError { return classify(error, headArrived: headArrived, bodyBytes) }
        if let error = error as? HTTPParserError {
            if case .headerOverflow = error {
                return (.responseTooLarge, "the response head is larger than SwiftNIO's parser accepts")
            }
            if case .invalidEOFState = error {
                // The connection ended inside the response.
                return (.connectionLost, lostWhat(headArrived, bodyBytes))
            }
            return headArrived
                ? (.invalidResponse, "the response could not be read as HTTP")
                : (.invalidResponse, "the server's reply is not HTTP")
        }
        if error is NIOConnectionError || error is SocketAddressError {
            return (.cannotConnect, "no connection to the host could be made")
        }
        // The server refused this client's certificate (or its absence) with a TLS alert: during
        // the handshake under TLS 1.2, at the first read under TLS 1.3. Permanent, not retried.
        if error is NIOSSLError || error is BoringSSLError, let alert = clientCertificateAlert(in: error) {
            return (.authenticationFailed, "the server refused the client certificate (TLS alert \(alert))")
        }
        if let error = error as? NIOSSLError {
            // Only a failed handshake sent no byte of the request (the client retries a POST
            // after cannotConnect): a TLS failure later, such as a server closing without
            // close_notify, ended a connection that may have carried it.
            switch error {
            case .handshakeFailed(let reason) where String(describing: reason).contains("CERTIFICATE_VERIFY_FAILED"):
                // The chain did not verify (an unknown CA, expired, another host's): not retried.
                return (.serverTrustFailed, "the server's certificate chain is not trusted (\(reason))")
            case .noCertificateToValidate, .unableToValidateCertificate:
                return (.serverTrustFailed, "the server's certificate chain is not trusted")
            case .handshakeFailed, .cannotMatchULabel, .cannotFindPeerIP:
                return (.cannotConnect, "the TLS connection could not be established")
            default:
                return (.connectionLost, lostWhat(headArrived, bodyBytes))
            }
        }
        if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
            return (.serverTrustFailed, "the server's certificate is for another host")
        }
        if error is BoringSSLError {
            // NIOSSL wraps a failed handshake in handshakeFailed; a bare BoringSSL error comes
            // from a read or write after it, when the request may be on its way.
            return (.connectionLost, lostWhat(headArrived, bodyBytes))
        }
        if let error = error as? ChannelError {
            switch error {
            case .connectTimeout: return (.timedOut, "the connection was not made within the connect timeout")
            case .eof, .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed:
                return (.connectionLost, lostWhat(headArrived, bodyBytes))
            default: return (.transport, "SwiftNIO failed")
            }
        }
        if let error = error as? IOError {
            switch error.errnoCode {
            case ECONNREFUSED, ENETUNREACH, EHOSTUNREACH, EADDRNOTAVAIL:
                return (.cannotConnect, "no connection to the host could be made")
            case ECONNRESET, EPIPE, ECONNABORTED:
                return (.connectionLost, lostWhat(headArrived, bodyBytes))
            case ETIMEDOUT:
                return (.timedOut, "the connection timed out")
            default:
                return (.transport, "the connection failed")
            }
        }
        if String(reflecting: type(of: error)).contains("Decompression") {
            // NIOHTTPCompression's DecompressionError: `.limit` when the body outgrew the
            // transport's maximumDecompressionRatio (a decompression bomb), else a body not valid
            // in its coding.
            if "\(error)" == "limit" {
                return (
                    .responseTooLarge,
                    "the decompressed body grew past the transport's maximumDecompressionRatio times its encoded size"
                )
            }
            return (.contentDecodingFailed, "the response body could not be decoded in its Content-Encoding")
        }
        return (.transport, "AsyncHTTPClient failed")
    }

    /// The ``ClientError/Code`` and a description for an `HTTPClientError`.
    private static func classify(
        _ error: HTTPClientError, headArrived: Bool, _ bodyBytes: Int64
    ) -> (ClientError.Code, String) {
        switch error {
        case .remoteConnectionClosed:
            return (.connectionLost, lostWhat(headArrived, bodyBytes))
        case .readTimeout, .writeTimeout:
            return (.timedOut, "no data moved within AsyncHTTPClient's read or write timeout")
        case .connectTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout:
            return (.timedOut, "the connection was not made within the connect timeout")
        // The proxy of a caller's HTTPClient (an owned client's are named by classifyProxy).
        case .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
            return (.proxyConnectFailed, "the HTTPClient's proxy did not open the way to the origin in time")
        case .invalidProxyResponse:
            return (.proxyConnectFailed, "the HTTPClient's proxy refused the tunnel to the origin")
        case .proxyAuthenticationRequired:
            return (.proxyAuthenticationFailed, "the HTTPClient's proxy asks for credentials (407)")
        case .deadlineExceeded:
            return (.timedOut, "no response before the deadline")
        case .invalidURL, .emptyHost, .emptyScheme, .missingSocketPath, .traceRequestWithBody,
            .identityCodingIncorrectlyPresent, .bodyLengthMismatch, .writeAfterRequestSent:
            return (.invalidRequest, "the request could not be sent as described")
        case .alreadyShutdown, .cancelled:
            return (.transport, "the AsyncHTTPClient HTTPClient was shut down")
        default:
            return (.transport, "AsyncHTTPClient failed")
        }
    }

    /// What a lost connection ended.
    private static func lostWhat(_ headArrived: Bool, _ bodyBytes: Int64) -> String {
        headArrived
            ? "the connection closed after \(bodyBytes) bytes of the body"
            : "the connection was lost before the response was complete"
    }
}
