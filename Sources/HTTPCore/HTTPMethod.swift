/// An HTTP request method (RFC 9110 §9).
///
/// The registered methods are constants; any other valid token, such as WebDAV's
/// `PROPFIND`, is accepted by ``init(_:)``. Methods are case-sensitive (RFC 9110 §9.1).
///
/// ```swift
/// let get = HTTPMethod.get
/// let propfind = try HTTPMethod("PROPFIND")
/// print(get.isIdempotent, propfind.isSafe)  // true false
/// ```
public struct HTTPMethod: Hashable, Sendable, CustomStringConvertible {
    /// The method token as sent on the wire, such as `"GET"`.
    public let rawValue: String

    /// Creates a method from a token.
    /// - Parameter token: The method name; case is kept, as methods are case-sensitive.
    /// - Throws: ``HTTPCoreError`` with code ``HTTPCoreError/Code/invalidMethod`` when `token`
    ///   is empty or holds a character outside RFC 9110 §5.6.2 `tchar`.
    public init(_ token: String) throws(HTTPCoreError) {
        if let problem = HTTPToken.problem(in: token) {
            throw HTTPCoreError(.invalidMethod, value: token, reason: problem)
        }
        self.rawValue = token
    }

    private init(uncheckedToken: String) { self.rawValue = uncheckedToken }

    /// `GET`: transfer a current representation of the target resource.
    public static let get = HTTPMethod(uncheckedToken: "GET")
    /// `HEAD`: as `GET`, but transfer only the status line and header section.
    public static let head = HTTPMethod(uncheckedToken: "HEAD")
    /// `POST`: perform resource-specific processing on the request content.
    public static let post = HTTPMethod(uncheckedToken: "POST")
    /// `PUT`: replace all current representations of the target resource.
    public static let put = HTTPMethod(uncheckedToken: "PUT")
    /// `DELETE`: remove all current representations of the target resource.
    public static let delete = HTTPMethod(uncheckedToken: "DELETE")
    /// `CONNECT`: establish a tunnel to the server identified by the target.
    public static let connect = HTTPMethod(uncheckedToken: "CONNECT")
    /// `OPTIONS`: describe the communication options for the target resource.
    public static let options = HTTPMethod(uncheckedToken: "OPTIONS")
    /// `TRACE`: perform a message loop-back test.
    public static let trace = HTTPMethod(uncheckedToken: "TRACE")
    /// `PATCH` (RFC 5789): apply partial modifications to a resource.
    public static let patch = HTTPMethod(uncheckedToken: "PATCH")

    /// Whether the method is safe: read-only by definition (RFC 9110 §9.2.1).
    ///
    /// `GET`, `HEAD`, `OPTIONS` and `TRACE` are safe (RFC 9110 §9.2.1); so are the registered
    /// extension methods `PROPFIND` (RFC 4918), `REPORT` (RFC 3253) and `SEARCH` (RFC 5323).
    public var isSafe: Bool {
        switch rawValue {
        case "GET", "HEAD", "OPTIONS", "TRACE", "PROPFIND", "SEARCH", "REPORT": return true
        default: return false
        }
    }

    /// Whether repeating the request has the same intended effect as sending it once
    /// (RFC 9110 §9.2.2): the safe methods plus `PUT` and `DELETE`, and the WebDAV methods
    /// `MKCOL`, `COPY`, `MOVE`, `PROPPATCH` and `UNLOCK` (RFC 4918). `POST`, `PATCH`,
    /// `CONNECT` and `LOCK` are not.
    ///
    /// Retry policies send a non-idempotent request again only when the caller opts in.
    public var isIdempotent: Bool {
        if isSafe { return true }
        switch rawValue {
        case "PUT", "DELETE", "MKCOL", "COPY", "MOVE", "PROPPATCH", "UNLOCK": return true
        default: return false
        }
    }

    /// The method token.
    public var description: String { rawValue }
}
