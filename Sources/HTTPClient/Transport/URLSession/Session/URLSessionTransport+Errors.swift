import Foundation
import HTTPCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// The error `send` throws for a URLSession failure.
    ///
    /// `URLError.cancelled` becomes `CancellationError`; every other failure becomes a
    /// ``ClientError`` with the request, the response head when one arrived, and the
    /// URLSession error as ``ClientError/underlying``. A server certificate that does not
    /// verify is ``ClientError/Code/serverTrustFailed`` (see ``certificateRejected(_:)``),
    /// which no default policy retries.
    /// - Parameters:
    ///   - error: What URLSession reported.
    ///   - request: The request that failed.
    ///   - response: The response head, if it arrived.
    ///   - proxy: The proxy the request went through, if any: a failure libcurl reports of it
    ///     is described as the proxy's (see ``proxyFailure(_:proxy:)``).
    /// - Returns: `CancellationError` or a ``ClientError``.
    static func mapError(
        _ error: any Error, request: HTTPRequest, response: HTTPResponse?, proxy: Proxy? = nil
    ) -> any Error {
        if error is ClientError || error is CancellationError { return error }
        guard let urlError = error as? URLError else {
            return ClientError(
                .transport, "the request failed: \(error)", request: request, response: response, underlying: error)
        }
        if urlError.code == .cancelled { return CancellationError() }
        var (code, what) = classify(urlError.code)
        if urlError.code == .unsupportedURL, let scheme = request.url.scheme?.lowercased(),
            scheme == "http" || scheme == "https"
        {
            // The URL was checked before sending: libcurl reports a reply that is not HTTP at
            // all (another protocol on the port) this way. The server's fault, not the request's.
            (code, what) = (.invalidResponse, "the server's reply is not HTTP")
        }
        if let proxy, let failure = proxyError(urlError, request: request, proxy: proxy) { return failure }
        if let reason = certificateRejected(urlError) {
            // The chain did not verify: every attempt would see the same certificates, so it
            // is never retried (a default stack retried `cannotConnect` and `transport`, and
            // connected three times to a server it could not trust).
            (code, what) = (.serverTrustFailed, "the server's certificate is not trusted (\(reason))")
        } else if urlError.code == .unknown, let size = requestHeadTooLarge(urlError, request) {
            // libcurl builds the request head in a buffer of at most 1 MiB and reports a
            // larger one as out of memory, before sending anything.
            (code, what) = (
                .requestHeadRejected, "the request's header fields (\(size) bytes) are more than libcurl sends (1 MiB)"
            )
        } else if urlError.code == .unknown, let reason = headTooLarge(urlError) {
            // libcurl refuses a response head past its limits (300 KiB in all, 100 KiB a
            // field) with errors URLSession passes on as unknown, the reason in the
            // description; no retry can mend the server's answer.
            (code, what) = (.responseTooLarge, "the response head is larger than libcurl accepts (\(reason))")
        }
        return ClientError(
            code, "\(what) (URLError \(urlError.code.rawValue))", request: request, response: response,
            underlying: urlError)
    }

    /// The response's `Content-Encoding` when `error` is libcurl's failure to decode the body
    /// (its `CURLE_BAD_CONTENT_ENCODING`, which URLSession passes on as an unknown error: "Unrecognized
    /// content encoding type" for a coding it lacks, "Error while processing content unencoding"
    /// for a body not valid in it), or when the head names a coding libcurl never decodes.
    static func undecodable(_ error: URLError, _ head: HTTPResponse) -> String? {
        let coding = head.headerFields[values: .contentEncoding].joined(separator: ", ")
        guard error.code == .unknown || error.code == .cannotDecodeContentData, !coding.isEmpty else { return nil }
        let reason = (error as NSError).localizedDescription.lowercased()
        if reason.contains("encoding") || error.code == .cannotDecodeContentData {
            return coding
        }
        let decoded: Set<String> = ["identity", "gzip", "x-gzip", "deflate", "br", "zstd"]
        let codings = coding.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        return codings.allSatisfy(decoded.contains) ? nil : coding
    }

    /// libcurl's reason when `error` says a response head was too large: "Too large response
    /// headers: 307205 > 307200" for the whole head, and "Out of memory", its code for one
    /// header field past 100 KiB (a real lack of memory, which it also names so, cannot be
    /// mended by a retry either).
    private static func headTooLarge(_ error: URLError) -> String? {
        let reason = (error as NSError).localizedDescription
        let lowered = reason.lowercased()
        if lowered.contains("too large") && lowered.contains("header") { return reason }
        return lowered == "out of memory" ? "a header field past 100 KiB, which libcurl reports as out of memory" : nil
    }

    /// Why the server's certificate was refused, when `error` says so, else `nil`.
    ///
    /// Apple platforms report it with its own codes (untrusted, unknown root, bad date, not yet
    /// valid). On Linux libcurl's `CURLE_PEER_FAILED_VERIFICATION` reaches URLSession as an
    /// unknown error (-1) with libcurl's text: "SSL certificate problem: …" for a chain
    /// OpenSSL did not verify (an unknown CA, expired, not yet valid, self-signed), "SSL: no
    /// alternative certificate subject name matches target host name …" or "SSL: certificate
    /// subject name … does not match target host name …" for another host's certificate, and
    /// "server certificate verification failed" from a GnuTLS build.
    static func certificateRejected(_ error: URLError) -> String? {
        switch error.code {
        case .serverCertificateUntrusted: return "untrusted"
        case .serverCertificateHasUnknownRoot: return "an unknown root"
        case .serverCertificateHasBadDate: return "expired"
        case .serverCertificateNotYetValid: return "not yet valid"
        case .unknown: break
        default: return nil
        }
        let reason = (error as NSError).localizedDescription
        let lowered = reason.lowercased()
        let signs = [
            "ssl certificate problem", "certificate subject name", "ssl peer certificate",
            "server certificate verification failed", "common name from peer certificate",
            "does not match pinned public key",
        ]
        return signs.contains(where: lowered.contains) ? reason : nil
    }

    /// The size of `request`'s header fields when `error` is libcurl's refusal of a request
    /// head past its 1 MiB buffer (reported as out of memory), else `nil`.
    private static func requestHeadTooLarge(_ error: URLError, _ request: HTTPRequest) -> Int? {
        guard (error as NSError).localizedDescription.lowercased() == "out of memory" else { return nil }
        // Each field goes out as `name: value` and CRLF.
        let size = request.headerFields.reduce(request.url.absoluteString.utf8.count) {
            $0 + $1.name.rawName.utf8.count + $1.value.utf8.count + 4
        }
        return size > 1_000_000 ? size : nil
    }

    /// The ``ClientError/Code`` and a description for a URLError code.
    private static func classify(_ code: URLError.Code) -> (ClientError.Code, String) {
        switch code {
        case .cannotFindHost, .dnsLookupFailed:
            return (.cannotConnect, "the host name could not be resolved")
        case .cannotConnectToHost, .notConnectedToInternet, .internationalRoamingOff, .callIsActive,
            .dataNotAllowed:
            return (.cannotConnect, "no connection to the host could be made")
        case .secureConnectionFailed:
            return (.cannotConnect, "the TLS connection could not be established")
        case .clientCertificateRejected, .clientCertificateRequired:
            // As the AsyncHTTPClient transport reports a server's refusal of the client's
            // certificate: not retried, a second attempt would show the same certificate.
            return (.authenticationFailed, "the server refused the client certificate")
        case .networkConnectionLost:
            return (.connectionLost, "the connection was lost before the response was complete")
        case .timedOut:
            return (.timedOut, "no data moved within the idle timeout")
        case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData,
            .zeroByteResource:
            return (.invalidResponse, "the response could not be read as HTTP")
        case .badURL, .unsupportedURL, .requestBodyStreamExhausted, .appTransportSecurityRequiresSecureConnection:
            return (.invalidRequest, "the request could not be sent as described")
        case .dataLengthExceedsMaximum:
            return (.responseTooLarge, "the response is larger than URLSession accepts")
        case .cannotCreateFile, .cannotOpenFile, .cannotWriteToFile, .cannotCloseFile, .cannotMoveFile,
            .cannotRemoveFile:
            return (.fileWriteFailed, "the downloaded file could not be written")
        default:
            return (.transport, "URLSession failed")
        }
    }
}
