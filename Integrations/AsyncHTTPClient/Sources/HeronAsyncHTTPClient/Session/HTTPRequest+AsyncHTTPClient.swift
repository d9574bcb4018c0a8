import AsyncHTTPClient
import Foundation
import HTTPClient
import HTTPCore
import NIOHTTP1

extension HTTPCore.HTTPRequest {
    /// The AsyncHTTPClient request for this request's method, URL and header fields, with
    /// `body` as its body.
    ///
    /// Fields go out in order, each on a line of its own: repeats are not combined (RFC 9110
    /// §5.3 allows either), except `Cookie`, whose values are joined with `; ` into one field
    /// (RFC 6265 §5.4: a user agent sends one). `Content-Length` and `Transfer-Encoding` are
    /// left out: AsyncHTTPClient frames the body from its length, and a request that carries
    /// both (RFC 9112 §6.3) is rejected by servers.
    /// - Parameter body: The body AsyncHTTPClient sends, if any.
    /// - Throws: ``ClientError/Code/invalidRequest`` when the URL is not absolute `http(s)`
    ///   or AsyncHTTPClient refuses it.
    func makeClientRequest(body: HTTPClient.Body?) throws(ClientError) -> HTTPClient.Request {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
            throw ClientError(
                .invalidRequest, "the URL \(URLRedaction.display(url)) is not an absolute http or https URL",
                request: self)
        }
        var headers = HTTPHeaders()
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
        do {
            return try HTTPClient.Request(
                url: url, method: NIOHTTP1.HTTPMethod(rawValue: method.rawValue), headers: headers, body: body)
        } catch {
            throw ClientError(
                .invalidRequest, "AsyncHTTPClient cannot send to the URL \(URLRedaction.display(url)): \(error)",
                request: self, underlying: error)
        }
    }
}
