import Foundation
import HTTPCore

/// Turns a redirect response into the next request (RFC 9110 §15.4), without I/O.
package enum RedirectFollower {
    /// Fields never carried to another origin: the credentials, and an explicit `Host`,
    /// which names the old origin (RFC 9110 §7.2) and would misroute the request.
    static let credentialFields: [HTTPFieldName] = [.authorization, .cookie, .proxyAuthorization, .host]
    /// Fields describing a body, removed with it.
    static let contentFields: [HTTPFieldName] = [.contentType, .contentLength, .contentEncoding, .transferEncoding]

    /// The request to send after `response`, or `nil` when it is not a redirect to follow
    /// (not 301, 302, 303, 307 or 308, or no `Location`).
    /// A relative `Location` on a Unix-socket URL stays on that socket.
    /// - Throws: ``ClientError/Code/invalidResponse`` for a `Location` that is not an
    ///   http(s) URL (or a socket URL, see ``isSendable(_:)``); ``ClientError/Code/bodyNotReplayable`` when the method and body must
    ///   be kept but the body is a one-shot stream.
    @inline(never)
    static func nextRequest(after request: HTTPRequest, response: HTTPResponse) throws(ClientError) -> HTTPRequest? {
        let code = response.status.code
        switch code {
        case 301, 302, 303, 307, 308: break
        default: return nil
        }
        guard let location = response.headerFields[.location] else { return nil }
        guard let target = URL(string: location, relativeTo: socketBase(of: request.url))?.absoluteURL,
            isSendable(target)
        else {
            throw ClientError(
                .invalidResponse, "the redirect Location '\(location)' is not an http or https URL", request: request,
                response: response)
        }
        var next = request
        next.url = target
        // 303 always becomes GET (HEAD stays HEAD); 301 and 302 turn POST into GET as
        // browsers do (RFC 9110 §15.4.2, §15.4.3, §15.4.4). 307 and 308 keep everything.
        let becomesGet =
            (code == 303 && request.method != .head) || ((code == 301 || code == 302) && request.method == .post)
        if becomesGet {
            next.method = .get
            next.body = nil
            for name in contentFields { next.headerFields.remove(name) }
        } else if let body = request.body, !body.isReplayable {
            throw ClientError(
                .bodyNotReplayable,
                "the \(code) redirect to \(URLRedaction.display(target)) needs the body again, but it is a one-shot stream",
                request: request, response: response)
        }
        if !sameOrigin(request.url, target) {
            for name in credentialFields { next.headerFields.remove(name) }
        }
        return next
    }

    /// Whether a request may be sent to `url`: an absolute `http` or `https` URL with a host,
    /// or a Unix-socket URL as AsyncHTTPClient writes them: `http+unix://` or `https+unix://`
    /// with the socket's percent-encoded path as the host (`http+unix://%2Frun%2Fd.sock/v1/info`),
    /// or `unix:///run/d.sock` (the socket's path as the path; the request's path is `/`). A
    /// transport that cannot reach a socket refuses those with
    /// ``ClientError/Code/invalidRequest``.
    package static func isSendable(_ url: URL) -> Bool {
        switch url.scheme?.lowercased() {
        case "http", "https", "http+unix", "https+unix": !(url.host(percentEncoded: true) ?? "").isEmpty
        case "unix": url.path.count > 1
        default: false
        }
    }

    /// Whether `url` names a Unix domain socket (`http+unix`, `https+unix`, `unix`), whose
    /// "host" is a file path: compared as it is, never case-folded.
    package static func isSocket(_ url: URL) -> Bool {
        switch url.scheme?.lowercased() {
        case "http+unix", "https+unix", "unix": true
        default: false
        }
    }

    /// The URL a `Location` is resolved against: `url`, but for `unix:///path/to.sock`, whose
    /// path is the socket's, the same socket as `http+unix://%2Fpath%2Fto.sock/`, so that a
    /// relative redirect stays on the socket.
    static func socketBase(of url: URL) -> URL {
        guard url.scheme?.lowercased() == "unix" else { return url }
        let encoded = url.path.addingPercentEncoding(
            withAllowedCharacters: .alphanumerics.union(.init(charactersIn: "-._~")))
        return encoded.flatMap { URL(string: "http+unix://\($0)/") } ?? url
    }

    /// Whether two URLs share scheme, host and port (RFC 6454 §4), default ports filled in; a
    /// socket URL's socket path is compared as it is (file names are case-sensitive).
    package static func sameOrigin(_ lhs: URL, _ rhs: URL) -> Bool {
        let lhsScheme = lhs.scheme?.lowercased()
        let rhsScheme = rhs.scheme?.lowercased()
        guard lhsScheme == rhsScheme else { return false }
        if isSocket(lhs) {
            return lhsScheme == "unix"
                ? lhs.path == rhs.path : lhs.host(percentEncoded: false) == rhs.host(percentEncoded: false)
        }
        return lhs.host?.lowercased() == rhs.host?.lowercased()
            && effectivePort(lhs, scheme: lhsScheme) == effectivePort(rhs, scheme: rhsScheme)
    }

    private static func effectivePort(_ url: URL, scheme: String?) -> Int? {
        if let port = url.port { return port }
        switch scheme {
        case "http": return 80
        case "https": return 443
        default: return nil
        }
    }
}
