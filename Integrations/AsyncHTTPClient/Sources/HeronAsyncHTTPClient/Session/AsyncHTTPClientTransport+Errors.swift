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
    /// - Returns: A ``ClientError``, or the error itself when it is one already (or a
    ///   `CancellationError`).
    static func mapError(
        _ error: any Error, request: HTTPCore.HTTPRequest, response: HTTPCore.HTTPResponse?, bodyBytes: Int64 = 0
    ) -> any Error {
        if error is ClientError || error is CancellationError { return error }
        let (code, what) = classify(error, headArrived: response != nil, bodyBytes: bodyBytes)
        return ClientError(code, "\(what) (\(error))", request: request, response: response, underlying: error)
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
        case .connectTimeout, .tlsHandshakeTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout,
            .getConnectionFromPoolTimeout:
            return (.timedOut, "the connection was not made within the connect timeout")
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
