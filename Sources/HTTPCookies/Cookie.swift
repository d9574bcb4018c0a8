import Foundation

/// A cookie as a ``CookieJar`` keeps it: the fields of RFC 6265bis §5.7's storage model.
public struct Cookie: Sendable, Hashable, CustomStringConvertible {
    /// How a cookie may follow requests from other sites (RFC 6265bis §4.1.2.7), kept as data:
    /// an HTTP client sends no cross-site requests of a browser's kind.
    public enum SameSite: Sendable, Hashable, CustomStringConvertible {
        /// `SameSite=Strict`.
        case strict
        /// `SameSite=Lax`.
        case lax
        /// `SameSite=None`.
        case none
        /// No valid `SameSite` attribute.
        case `default`

        /// The attribute's value as written (`Strict`, `Lax`, `None`), or `Default`.
        public var description: String {
            switch self {
            case .strict: return "Strict"
            case .lax: return "Lax"
            case .none: return "None"
            case .default: return "Default"
            }
        }
    }

    /// The name; empty for a nameless cookie (`Set-Cookie: value`).
    public var name: String
    /// The value.
    public var value: String
    /// The domain, lower-cased: the host that set it (``hostOnly``), or the `Domain` it named.
    public var domain: String
    /// Whether the cookie goes only to ``domain`` itself, not to its subdomains: no `Domain`
    /// attribute was given.
    public var hostOnly: Bool
    /// The path prefix of the requests it goes with.
    public var path: String
    /// Whether it goes only over `https` (and loopback `http`, as browsers allow).
    public var secure: Bool
    /// Whether it was set with `HttpOnly` (kept as data: an HTTP client has no scripts).
    public var httpOnly: Bool
    /// The `SameSite` attribute.
    public var sameSite: SameSite
    /// When it expires; `nil` for a session cookie, which lasts as long as the jar in memory.
    public var expires: Date?
    /// When it was first stored (a replacement keeps the time of the cookie it replaces).
    public var created: Date
    /// When it was last sent or stored.
    public var lastAccessed: Date

    /// Creates a cookie.
    /// - Parameters:
    ///   - name: The name.
    ///   - value: The value.
    ///   - domain: The domain (lower-cased here).
    ///   - hostOnly: Whether it goes only to `domain` itself; `true` by default.
    ///   - path: The path; `/` by default.
    ///   - secure: Whether it goes only over secure connections.
    ///   - httpOnly: Whether it was set with `HttpOnly`.
    ///   - sameSite: The `SameSite` attribute.
    ///   - expires: When it expires; `nil` for a session cookie.
    ///   - created: When it was made; now by default.
    public init(
        name: String, value: String, domain: String, hostOnly: Bool = true, path: String = "/",
        secure: Bool = false, httpOnly: Bool = false, sameSite: SameSite = .default, expires: Date? = nil,
        created: Date = Date()
    ) {
        self.name = name
        self.value = value
        // Lower-cased only when it has to be: most domains already are.
        self.domain =
            domain.utf8.contains(where: { $0 >= 0x80 || (0x41...0x5A).contains($0) }) ? domain.lowercased() : domain
        self.hostOnly = hostOnly
        self.path = path
        self.secure = secure
        self.httpOnly = httpOnly
        self.sameSite = sameSite
        self.expires = expires
        self.created = created
        self.lastAccessed = created
    }

    /// Whether it is a session cookie: no `Expires` or `Max-Age`.
    public var isSession: Bool { expires == nil }

    /// Whether it has expired by `date`.
    /// - Parameter date: The moment; now by default.
    /// - Returns: Whether ``expires`` is at or before `date`.
    public func isExpired(at date: Date = Date()) -> Bool { expires.map { $0 <= date } ?? false }

    /// `name=value` as a `Cookie` field carries it (the value alone for a nameless cookie).
    public var pair: String { name.isEmpty ? value : "\(name)=\(value)" }

    /// The cookie with its value hidden, as logs show it: `session=<redacted>; domain=…; path=/`.
    public var description: String {
        var parts = ["\(name.isEmpty ? "<nameless>" : name)=<redacted>", "domain=\(hostOnly ? "" : ".")\(domain)"]
        parts.append("path=\(path)")
        if secure { parts.append("secure") }
        if httpOnly { parts.append("httponly") }
        if let expires { parts.append("expires=\(expires)") }
        return parts.joined(separator: "; ")
    }

}
