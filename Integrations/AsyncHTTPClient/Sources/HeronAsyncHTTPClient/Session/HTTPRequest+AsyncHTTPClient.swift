import AsyncHTTPClient
import Foundation
import HTTPClient
import HTTPCore
import NIOHTTP1

extension HTTPCore.HTTPRequest {
    /// The AsyncHTTPClient request for this request's method, URL and header fields, without
    /// a body.
    ///
    /// Fields go out in order, each on a line of its own: repeats are not combined (RFC 9110
    /// §5.3 allows either), except `Cookie`, whose values are joined with `; ` into one field
    /// (RFC 6265 §5.4: a user agent sends one). `Content-Length` and `Transfer-Encoding` are
    /// left out: AsyncHTTPClient frames the body from its length, and a request that carries
    /// both (RFC 9112 §6.3) is rejected by servers.
    ///
    /// The URL is checked first (``checkURL()``); one AsyncHTTPClient cannot send to fails when
    /// it is sent, as `invalidRequest`.
    func makeClientRequest() -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = NIOHTTP1.HTTPMethod(rawValue: method.rawValue)
        addFields(to: &request.headers)
        return request
    }

    /// Throws ``ClientError/Code/invalidRequest`` when the URL is not one AsyncHTTPClient
    /// sends to: absolute `http` or `https` with a host, or a Unix-socket URL naming its socket
    /// (`http+unix://` or `https+unix://` with the socket's percent-encoded path as the host,
    /// `unix://` with the socket's path as the path).
    func checkURL() throws(ClientError) {
        let scheme = url.scheme?.lowercased()
        let named: Bool
        switch scheme {
        case "http", "https", "http+unix", "https+unix": named = !(url.host(percentEncoded: false) ?? "").isEmpty
        case "unix": named = !url.path.isEmpty && url.path != "/"
        default: named = false
        }
        guard named else {
            throw ClientError(
                .invalidRequest,
                "the URL \(URLRedaction.display(url)) is not an absolute http or https URL, nor a Unix-socket URL "
                    + "(http+unix://, https+unix://, unix://) naming its socket",
                request: self)
        }
    }

    /// Adds this request's header fields to `headers` as ``makeClientRequest()`` sends them.
    func addFields(to headers: inout HTTPHeaders) {
        headers.reserveCapacity(headerFields.count)
        var cookie: String?
        for field in headerFields where field.name != .contentLength && field.name != .transferEncoding {
            if field.name == .cookie {
                if cookie == nil {
                    cookie = field.value
                } else {
                    cookie?.append("; ")
                    cookie?.append(field.value)
                }
            } else {
                headers.add(name: field.name.rawName, value: field.value)
            }
        }
        if let cookie { headers.add(name: "Cookie", value: cookie) }
    }
}
