import Foundation

/// A `Set-Cookie` field a ``CookieStore`` refused, and why: what HTTPCookies' `CookieJar`
/// returns from its `store` methods (as `CookieJar.Refusal`) and what a client reports to its
/// observers (``ClientEvent/Kind/cookiesRefused(_:refusals:attempt:)``).
///
/// Its ``field`` and ``description`` hide the cookie's value, as a printed cookie does:
/// they go to logs.
public struct CookieRefusal: Sendable, Hashable, CustomStringConvertible {
    /// The field's position among those given to the store call (0 for
    /// the first).
    public var index: Int
    /// The cookie's name; empty for a nameless cookie or a field that could not be read.
    public var name: String
    /// The field with the cookie's value replaced by `<redacted>`, its attributes as sent
    /// (control characters escaped, at most 256 characters).
    public var field: String
    /// The host of the request the response answered; `nil` when its URL had none.
    public var host: String?
    /// Why the field was refused.
    public var reason: Reason

    /// Creates a refusal.
    /// - Parameters:
    ///   - index: The field's position among those given.
    ///   - name: The cookie's name.
    ///   - field: The field, its value redacted.
    ///   - host: The request's host.
    ///   - reason: Why it was refused.
    public init(index: Int, name: String, field: String, host: String?, reason: Reason) {
        self.index = index
        self.name = name
        self.field = field
        self.host = host
        self.reason = reason
    }

    /// `Set-Cookie #0 from example.com refused (Secure from a request that is not secure): sid=<redacted>; Secure`.
    public var description: String {
        "Set-Cookie #\(index)\(host.map { " from \($0)" } ?? "") refused (\(reason)): \(field)"
    }
}

extension CookieRefusal {
    /// Why a `Set-Cookie` field was refused: a rule of RFC 6265bis §5.6 or §5.7.
    ///
    /// An open set: compare with the static members (`refusal.reason == .publicSuffixDomain`);
    /// a later version may add reasons.
    public struct Reason: Sendable, Hashable, CustomStringConvertible {
        /// A short stable code, such as `public-suffix-domain`.
        public let code: String
        /// What the rule says, for a person.
        public let explanation: String

        private init(_ code: String, _ explanation: String) {
            self.code = code
            self.explanation = explanation
        }

        /// The field holds a control character other than a tab (§5.6 step 1).
        public static let controlCharacter = Self("control-character", "a control character")
        /// The name and value together are over 4096 bytes (§5.6 step 5).
        public static let tooLarge = Self("too-large", "a name and value over 4096 bytes")
        /// The field has neither a name nor a value (§5.7 step 2).
        public static let empty = Self("empty", "neither a name nor a value")
        /// `Domain` names a public suffix (`com`, `co.uk`, `github.io`) other than the request's
        /// host (§5.7 step 9).
        public static let publicSuffixDomain = Self("public-suffix-domain", "a Domain that is a public suffix")
        /// `Domain` names a domain the request's host is not in, or any domain but the host's
        /// own address when the host is an IP address (§5.7 step 10).
        public static let domainMismatch = Self("domain-mismatch", "a Domain the request's host is not in")
        /// `Secure` from a request that is not secure (§5.7 step 13).
        public static let secureFromInsecureRequest = Self(
            "secure-from-insecure-request", "Secure from a request that is not secure")
        /// From a request that is not secure, a cookie that would overlay a `Secure` cookie of
        /// the same name whose domain and path match (§5.7 step 16).
        public static let overlaysSecureCookie = Self(
            "overlays-secure-cookie", "from a request that is not secure, it would overlay a Secure cookie")
        /// `SameSite=None` without `Secure` (§5.7 step 19).
        public static let sameSiteNoneWithoutSecure = Self(
            "samesite-none-without-secure", "SameSite=None without Secure")
        /// A `__Secure-` or `__Host-` name that breaks its prefix's rules, or a nameless cookie
        /// whose value starts like one (§5.7 steps 4, 20 and 21).
        public static let prefix = Self("prefix", "a __Secure- or __Host- cookie that breaks its prefix's rules")
        /// The request's URL has no host: no cookie can be stored for it.
        public static let noHost = Self("no-host", "the request's URL has no host")

        /// The explanation.
        public var description: String { explanation }

        /// Reasons are the same when their codes are.
        public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

        /// Hashes the code.
        public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    }
}
