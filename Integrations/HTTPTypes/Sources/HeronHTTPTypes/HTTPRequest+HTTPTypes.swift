import HTTPCore
import HTTPTypes

extension HTTPTypes.HTTPRequest {
    /// Creates a swift-http-types request from an HTTPCore request: its method, its URL as the
    /// `:scheme`, `:authority` and `:path` pseudo-header fields, and its header fields.
    ///
    /// An absolute URL gives all three pseudo-header fields, its empty path becoming `/`
    /// (the same target, RFC 9110 §4.2.3); a relative URL such as `/items?q=1` gives `:path`
    /// only; `//example.com:443` gives `:authority` only (authority form, for `CONNECT`); `*`
    /// gives `:path` `*`. The path and query stay percent-encoded as they were. Header fields
    /// keep their order, their repeats and their names' spelling.
    ///
    /// swift-http-types has no body: the request's ``HTTPCore/HTTPRequest/body`` and
    /// ``HTTPCore/HTTPRequest/options`` are left behind; send the body beside the head.
    ///
    /// ```swift
    /// let request = HTTPCore.HTTPRequest(method: .post, url: URL(string: "https://example.com/items?page=2")!)
    /// let head = try HTTPTypes.HTTPRequest(request)
    /// print(head.scheme, head.authority, head.path)  // https example.com /items?page=2
    /// ```
    /// - Parameter request: The HTTPCore request.
    /// - Throws: ``HTTPTypesConversionError``: ``HTTPTypesConversionError/Code/invalidURL`` for a
    ///   URL with user information or a fragment, or whose path does not start with `/`;
    ///   ``HTTPTypesConversionError/Code/pendingError`` when a fluent modifier failed on the
    ///   request; a field code for a field swift-http-types refuses.
    public init(_ request: HTTPCore.HTTPRequest) throws(HTTPTypesConversionError) {
        if let pending = request.pendingError {
            throw HTTPTypesConversionError(
                .pendingError, value: request.description,
                reason: "a fluent modifier failed on the request: \(pending)", underlying: pending)
        }
        guard let method = Method(request.method.rawValue) else {
            throw HTTPTypesConversionError(
                .invalidMethod, value: request.method.rawValue, reason: "swift-http-types refuses the method token")
        }
        let target = try RequestTarget(url: request.url)
        let headerFields = try HTTPTypes.HTTPFields(request.headerFields)
        self.init(
            method: method, scheme: target.scheme, authority: target.authority, path: target.path,
            headerFields: headerFields)
    }
}

extension HTTPCore.HTTPRequest {
    /// Creates an HTTPCore request from a swift-http-types request: its method, a URL built
    /// from its `:scheme`, `:authority` and `:path` pseudo-header fields, and its header fields.
    ///
    /// The URL is `scheme://authority/path?query` when all three are given, the `:path` alone
    /// (a relative URL such as `/items?q=1`) without the others, and `//authority` in authority
    /// form. It reads back as the same three fields, or the initializer throws. Header fields
    /// keep their order, their repeats and their names' spelling.
    ///
    /// ```swift
    /// let head = HTTPTypes.HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: "/a?b=1")
    /// let request = try HTTPCore.HTTPRequest(head)
    /// print(request)  // GET https://example.com/a?b=1
    /// ```
    /// - Parameters:
    ///   - request: The swift-http-types request.
    ///   - body: The content to send, as swift-http-types carries none; `nil` by default.
    /// - Throws: ``HTTPTypesConversionError``: ``HTTPTypesConversionError/Code/invalidURL`` when
    ///   no URL keeps the pseudo-header fields (neither `:path` nor `:authority`, an empty
    ///   `:path`, a character a URL must percent-encode);
    ///   ``HTTPTypesConversionError/Code/unsupportedPseudoHeaderField`` for `:protocol`;
    ///   ``HTTPTypesConversionError/Code/invalidMethod`` or a field code for a method or field
    ///   HTTPCore refuses.
    public init(_ request: HTTPTypes.HTTPRequest, body: HTTPBody? = nil) throws(HTTPTypesConversionError) {
        if let extendedConnectProtocol = request.extendedConnectProtocol {
            throw HTTPTypesConversionError(
                .unsupportedPseudoHeaderField, value: extendedConnectProtocol,
                reason: "HTTPCore has no place for :protocol (RFC 8441 extended CONNECT)")
        }
        let method: HTTPMethod
        do {
            method = try HTTPMethod(request.method.rawValue)
        } catch {
            throw HTTPTypesConversionError(
                .invalidMethod, value: request.method.rawValue, reason: "HTTPCore refuses the method: \(error.reason)",
                underlying: error)
        }
        let url = try RequestTarget(scheme: request.scheme, authority: request.authority, path: request.path).url()
        self.init(method: method, url: url, headerFields: try HTTPCore.HTTPFields(request.headerFields), body: body)
    }
}
