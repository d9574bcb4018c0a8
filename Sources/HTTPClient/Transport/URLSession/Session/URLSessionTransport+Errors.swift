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
    /// URLSession error as ``ClientError/underlying``.
    /// - Parameters:
    ///   - error: What URLSession reported.
    ///   - request: The request that failed.
    ///   - response: The response head, if it arrived.
    /// - Returns: `CancellationError` or a ``ClientError``.
    static func mapError(_ error: any Error, request: HTTPRequest, response: HTTPResponse?) -> any Error {
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
        if urlError.code == .unknown, let size = requestHeadTooLarge(urlError, request) {
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
        case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
            .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
            .clientCertificateRequired:
            return (.cannotConnect, "the TLS connection could not be established")
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
