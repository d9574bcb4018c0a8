/// The name of a header field (RFC 9110 §5.1).
///
/// A name keeps the spelling it was created with (sent on the wire as written) and a
/// lowercased canonical form used for comparison and hashing, so `Content-Type` and
/// `content-type` are the same name.
///
/// ```swift
/// let custom = try HTTPFieldName("X-Request-ID")
/// print(custom == (try HTTPFieldName("x-request-id")))  // true
/// print(HTTPFieldName.contentType.rawName)  // Content-Type
/// ```
public struct HTTPFieldName: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The name as written when it was created, such as `"Content-Type"`.
    public let rawName: String
    /// The lowercased form used for comparison, such as `"content-type"`.
    public let canonicalName: String

    /// Creates a field name.
    /// - Parameter name: The name; must be an RFC 9110 §5.6.2 token (no spaces, colons,
    ///   control characters or non-ASCII).
    /// - Throws: ``HTTPCoreError`` with code ``HTTPCoreError/Code/invalidFieldName`` naming `name`.
    public init(_ name: String) throws(HTTPCoreError) {
        if let problem = HTTPToken.problem(in: name) {
            throw HTTPCoreError(.invalidFieldName, value: name, reason: problem)
        }
        self.rawName = name
        self.canonicalName = HTTPToken.lowercased(name)
    }

    private init(known: String) {
        self.rawName = known
        self.canonicalName = HTTPToken.lowercased(known)
    }

    /// Two names are equal when their canonical (lowercased) forms are.
    public static func == (lhs: HTTPFieldName, rhs: HTTPFieldName) -> Bool {
        lhs.canonicalName == rhs.canonicalName
    }

    /// Hashes the canonical form.
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) { hasher.combine(canonicalName) }

    /// Orders names by their canonical forms.
    public static func < (lhs: HTTPFieldName, rhs: HTTPFieldName) -> Bool {
        lhs.canonicalName < rhs.canonicalName
    }

    /// The name as written.
    public var description: String { rawName }

    /// `Accept` (RFC 9110 §12.5.1).
    public static let accept = HTTPFieldName(known: "Accept")
    /// `Accept-Encoding` (RFC 9110 §12.5.3).
    public static let acceptEncoding = HTTPFieldName(known: "Accept-Encoding")
    /// `Accept-Language` (RFC 9110 §12.5.4).
    public static let acceptLanguage = HTTPFieldName(known: "Accept-Language")
    /// `Age` (RFC 9111 §5.1).
    public static let age = HTTPFieldName(known: "Age")
    /// `Last-Event-ID`: the ID of the last server-sent event a reconnecting client saw
    /// (WHATWG HTML, "Server-sent events").
    public static let lastEventID = HTTPFieldName(known: "Last-Event-ID")
    /// `Allow` (RFC 9110 §10.2.1).
    public static let allow = HTTPFieldName(known: "Allow")
    /// `Authorization` (RFC 9110 §11.6.2). Redacted by logging.
    public static let authorization = HTTPFieldName(known: "Authorization")
    /// `Cache-Control` (RFC 9111 §5.2).
    public static let cacheControl = HTTPFieldName(known: "Cache-Control")
    /// `Connection` (RFC 9110 §7.6.1).
    public static let connection = HTTPFieldName(known: "Connection")
    /// `Content-Disposition` (RFC 6266, RFC 7578 §4.2).
    public static let contentDisposition = HTTPFieldName(known: "Content-Disposition")
    /// `Content-Encoding` (RFC 9110 §8.4).
    public static let contentEncoding = HTTPFieldName(known: "Content-Encoding")
    /// `Content-Length` (RFC 9110 §8.6).
    public static let contentLength = HTTPFieldName(known: "Content-Length")
    /// `Content-Type` (RFC 9110 §8.3).
    public static let contentType = HTTPFieldName(known: "Content-Type")
    /// `Cookie` (RFC 6265 §5.4). Redacted by logging.
    public static let cookie = HTTPFieldName(known: "Cookie")
    /// `Content-Range` (RFC 9110 §14.4).
    public static let contentRange = HTTPFieldName(known: "Content-Range")
    /// `Date` (RFC 9110 §6.6.1).
    public static let date = HTTPFieldName(known: "Date")
    /// `ETag` (RFC 9110 §8.8.3).
    public static let eTag = HTTPFieldName(known: "ETag")
    /// `Expect` (RFC 9110 §10.1.1).
    public static let expect = HTTPFieldName(known: "Expect")
    /// `Host` (RFC 9110 §7.2).
    public static let host = HTTPFieldName(known: "Host")
    /// `Idempotency-Key` (IETF draft-ietf-httpapi-idempotency-key-header).
    public static let idempotencyKey = HTTPFieldName(known: "Idempotency-Key")
    /// `If-Match` (RFC 9110 §13.1.1).
    public static let ifMatch = HTTPFieldName(known: "If-Match")
    /// `If-Modified-Since` (RFC 9110 §13.1.3).
    public static let ifModifiedSince = HTTPFieldName(known: "If-Modified-Since")
    /// `If-Range` (RFC 9110 §13.1.5).
    public static let ifRange = HTTPFieldName(known: "If-Range")
    /// `If-None-Match` (RFC 9110 §13.1.2).
    public static let ifNoneMatch = HTTPFieldName(known: "If-None-Match")
    /// `Last-Modified` (RFC 9110 §8.8.2).
    public static let lastModified = HTTPFieldName(known: "Last-Modified")
    /// `Location` (RFC 9110 §10.2.2).
    public static let location = HTTPFieldName(known: "Location")
    /// `Origin` (RFC 6454 §7).
    public static let origin = HTTPFieldName(known: "Origin")
    /// `Proxy-Authorization` (RFC 9110 §11.7.2). Redacted by logging.
    public static let proxyAuthorization = HTTPFieldName(known: "Proxy-Authorization")
    /// `Range` (RFC 9110 §14.2).
    public static let range = HTTPFieldName(known: "Range")
    /// `Referer` (RFC 9110 §10.1.3).
    public static let referer = HTTPFieldName(known: "Referer")
    /// `Retry-After` (RFC 9110 §10.2.3); parse it with ``RetryAfter``.
    public static let retryAfter = HTTPFieldName(known: "Retry-After")
    /// `Server` (RFC 9110 §10.2.4).
    public static let server = HTTPFieldName(known: "Server")
    /// `Set-Cookie` (RFC 6265 §4.1). Never combined into one value; redacted by logging.
    public static let setCookie = HTTPFieldName(known: "Set-Cookie")
    /// `Transfer-Encoding` (RFC 9112 §6.1).
    public static let transferEncoding = HTTPFieldName(known: "Transfer-Encoding")
    /// `User-Agent` (RFC 9110 §10.1.5).
    public static let userAgent = HTTPFieldName(known: "User-Agent")
    /// `Vary` (RFC 9110 §12.5.5).
    public static let vary = HTTPFieldName(known: "Vary")
    /// `WWW-Authenticate` (RFC 9110 §11.6.1).
    public static let wwwAuthenticate = HTTPFieldName(known: "WWW-Authenticate")
}
