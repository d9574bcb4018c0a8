import Foundation

/// An HTTP request: method, target URL, header fields and an optional body.
///
/// A value type: copies are independent. The URL may be absolute or relative; a client
/// resolves a relative one against its base URL. The body is described, not read:
/// see ``HTTPBody``.
///
/// ```swift
/// var request = HTTPRequest(method: .post, url: URL(string: "https://example.com/items")!)
/// try request.headerFields.set(.accept, "application/json")
/// request.body = HTTPBody(#"{"name":"heron"}"#)
/// print(request)  // POST https://example.com/items
/// ```
public struct HTTPRequest: Sendable, CustomStringConvertible {
    /// The request method.
    public var method: HTTPMethod
    /// The target: absolute, or relative to a client's base URL.
    public var url: URL
    /// The header fields, in order.
    public var headerFields: HTTPFields
    /// The content to send, if any.
    public var body: HTTPBody?
    /// The first error a fluent modifier met (an invalid field, a URL that does not parse,
    /// a value that cannot be encoded), or `nil`. The request is kept as it was before that
    /// modifier, and a client throws this error instead of sending it.
    public var pendingError: (any Error)?
    /// Settings for the layers that send the request (a client's timeout or retries for
    /// this request), stored by key type; see ``HTTPRequest/Options``.
    public var options = HTTPRequest.Options()

    /// Creates a request.
    /// - Parameters:
    ///   - method: The method; `GET` by default.
    ///   - url: The target URL, absolute or relative.
    ///   - headerFields: The header fields.
    ///   - body: The content, if any.
    public init(method: HTTPMethod = .get, url: URL, headerFields: HTTPFields = [], body: HTTPBody? = nil) {
        self.method = method
        self.url = url
        self.headerFields = headerFields
        self.body = body
    }

    /// The URL scheme, such as `https`, when the URL is absolute.
    public var scheme: String? { url.scheme }

    /// The authority: host, and port when one is given, such as `example.com:8443`.
    ///
    /// The host is as written in the URL (percent-encoded, an IPv6 literal in brackets,
    /// such as `[::1]:8080`), ready for a `Host` field; user information is left out
    /// (RFC 9110 §4.2.4, §7.2).
    public var authority: String? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let host = components.percentEncodedHost, !host.isEmpty
        else { return nil }
        return components.port.map { "\(host):\($0)" } ?? host
    }

    /// The percent-encoded path, `/` when the URL has none.
    public var path: String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? ""
        return path.isEmpty ? "/" : path
    }

    /// The percent-encoded query, without `?`, if any.
    public var query: String? { URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery }

    /// The method and the URL, such as `GET https://example.com/`; a password in the URL
    /// and the values of secret query parameters (``URLRedaction/secretQueryNames``) are
    /// shown as `***`, so printing a request does not leak them.
    public var description: String { "\(method) \(URLRedaction.display(url))" }
}
