import Foundation
import HTTPClient
import HTTPCore

/// Cookies as RFC 6265bis keeps them: stored from `Set-Cookie` fields (§5.7) and sent back in
/// one `Cookie` field to the requests they match (§5.8.3).
///
/// A jar is safe to share across tasks. It never resolves a host name: it judges a request by
/// its URL alone.
///
/// - Storing: a cookie whose `Domain` is a public suffix (`com`, `co.uk`; the
///   ``PublicSuffixList``) or does not cover the request's host is refused, as is a `Secure`
///   cookie from a request that is not secure, a `__Secure-` or `__Host-` cookie that breaks
///   its prefix's rules, and a field with a control character or a name and value over 4096
///   bytes; ``store(setCookie:for:)`` says which and why (``StoreResult``). `Expires` and
///   `Max-Age` are capped at 400 days. A `Domain` naming the host's own IP address leaves the
///   cookie host-only: an address has no subdomains.
/// - Sending: a cookie goes to its domain (and its subdomains unless host-only), to paths under
///   its path, over `https` only when `Secure` (loopback `http` counts as secure, as in
///   browsers, unless ``treatsLoopbackAsSecure`` is off), until it expires; longer paths first,
///   then older cookies first.
/// - Limits: at most ``Limits/perDomain`` cookies a domain and ``Limits/total`` in all; past
///   them expired cookies go first, then of a full domain those that are not `Secure`, then
///   the least recently used, so a hostile server cannot grow the jar without bound, nor push
///   out a `Secure` cookie to overlay it from plain `http`.
/// - Time: every decision (expiry, `Max-Age`, creation and last access) reads the jar's
///   `clock`, never the system clock behind it.
///
/// ```swift
/// let jar = CookieJar()
/// let site = URL(string: "https://example.com/login")!
/// jar.store(setCookie: ["session=abc123; Path=/; Secure; HttpOnly"], for: site)
/// print(jar.cookieField(for: URL(string: "https://example.com/account")!) ?? "none")  // session=abc123
/// print(jar.cookieField(for: URL(string: "http://example.com/account")!) ?? "none")  // none
/// ```
public final class CookieJar: Sendable {
    /// How many cookies a jar keeps (RFC 6265bis §6.1 asks for at least 50 a domain and 3000 in all).
    public struct Limits: Sendable, Hashable {
        /// The most cookies of one domain.
        public var perDomain: Int
        /// The most cookies in all.
        public var total: Int

        /// Creates limits.
        /// - Parameters:
        ///   - perDomain: The most cookies of one domain; 50 by default.
        ///   - total: The most cookies in all; 3000 by default.
        public init(perDomain: Int = 50, total: Int = 3000) {
            self.perDomain = max(1, perDomain)
            self.total = max(1, total)
        }
    }

    /// The public suffixes no cookie may be set for.
    public let publicSuffixes: PublicSuffixList
    /// The jar's limits.
    public let limits: Limits
    /// Whether plain `http` to a loopback host (`127.0.0.1` and the rest of 127.0.0.0/8, `::1`,
    /// `localhost` and names under it) counts as secure: it gets `Secure` cookies and may set
    /// them, as browsers allow (W3C Secure Contexts, "potentially trustworthy" origins).
    public let treatsLoopbackAsSecure: Bool
    let clock: @Sendable () -> Date
    private let state = Locked(Store())
    /// The file the jar is kept in, if any.
    private let file: CookieFile?
    /// Why the jar's file could not be loaded, if it could not: the jar then started empty.
    public let loadError: CookieJarError?

    /// The cookies, in buckets by the last two labels of their domain (``bucketKey(_:)``): a
    /// request looks in one bucket, whatever its host's depth.
    struct Store {
        var buckets: [String: CookieBucket] = [:]
        var count = 0
        /// The creation time of the newest cookie: each new one is made at least a microsecond
        /// later, so cookies stored together keep their order (§5.8.3 sorts by creation time).
        var lastCreated = Date.distantPast
    }

    /// Creates an empty jar.
    /// - Parameters:
    ///   - publicSuffixes: The public suffix list; the one the library ships by default.
    ///   - limits: How many cookies to keep.
    ///   - treatsLoopbackAsSecure: Whether plain `http` to a loopback host counts as secure;
    ///     `true` by default, as in browsers.
    ///   - clock: The time now, for every decision of the jar (expiry, `Max-Age`, creation and
    ///     last access); the system clock by default (a test or a replay passes its own).
    public init(
        publicSuffixes: PublicSuffixList = .shipped, limits: Limits = Limits(), treatsLoopbackAsSecure: Bool = true,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.publicSuffixes = publicSuffixes
        self.limits = limits
        self.treatsLoopbackAsSecure = treatsLoopbackAsSecure
        self.clock = clock
        file = nil
        loadError = nil
    }

    /// Creates a jar kept in `file`: it starts with the cookies stored there (expired ones left
    /// out), and writes them back a moment after each change, and on ``save()``.
    ///
    /// The file is JSON, written whole to a new file of mode 0600 that replaces the old one, so
    /// a crash never leaves half a file. A file that cannot be read, or is not a jar's, leaves
    /// the jar empty, with the reason in ``loadError`` (and given to `onError`): never a crash.
    /// - Parameters:
    ///   - file: Where the cookies are kept; its folder must exist.
    ///   - persistsSessionCookies: Whether cookies without an expiry are written too; `false`
    ///     by default, as browsers forget them when they quit.
    ///   - publicSuffixes: The public suffix list; the one the library ships by default.
    ///   - limits: How many cookies to keep.
    ///   - treatsLoopbackAsSecure: Whether plain `http` to a loopback host counts as secure;
    ///     `true` by default, as in browsers.
    ///   - clock: The time now, for every decision of the jar; the system clock by default.
    ///   - onError: Called with a failure to load the file or, later, to write it.
    public init(
        file: URL, persistsSessionCookies: Bool = false, publicSuffixes: PublicSuffixList = .shipped,
        limits: Limits = Limits(), treatsLoopbackAsSecure: Bool = true,
        clock: @escaping @Sendable () -> Date = { Date() }, onError: (@Sendable (CookieJarError) -> Void)? = nil
    ) {
        self.publicSuffixes = publicSuffixes
        self.limits = limits
        self.treatsLoopbackAsSecure = treatsLoopbackAsSecure
        self.clock = clock
        let file = CookieFile(url: file, persistsSessionCookies: persistsSessionCookies, onError: onError)
        self.file = file
        var loaded: [Cookie] = []
        do {
            loaded = try file.load()
            loadError = nil
        } catch {
            loadError = error
            onError?(error)
        }
        let now = clock()
        state.withLock { store in
            // In the order they were made, so each keeps its creation time (and its place).
            for cookie in loaded.sorted(by: { $0.created < $1.created }) where !cookie.isExpired(at: now) {
                insert(cookie, into: &store, now: cookie.lastAccessed)
            }
            settle(&store, now: now)
        }
    }

    /// Writes the cookies to the jar's file now (a jar without a file does nothing).
    /// - Throws: ``CookieJarError/unwritableFile(_:reason:)`` when the file cannot be written;
    ///   the old file is then unchanged.
    public func save() throws(CookieJarError) {
        guard let file else { return }
        try file.write(allCookies)
    }

    /// Schedules a write of the jar's file after a change.
    private func changed() {
        guard let file else { return }
        file.changed { [weak self] in self?.allCookies ?? [] }
    }

    // MARK: Storing

    /// Stores the cookies of `Set-Cookie` field values received in answer to a request for `url`
    /// (RFC 6265bis §5.7), and says which were stored and which refused, and why.
    ///
    /// ```swift
    /// let jar = CookieJar()
    /// let result = jar.store(setCookie: ["a=1; Domain=com"], for: URL(string: "https://example.com/")!)
    /// print(result.refused.first?.reason == .publicSuffixDomain)  // true
    /// ```
    /// - Parameters:
    ///   - values: The `Set-Cookie` field values, in the order received.
    ///   - url: The URL of the request the response answered (each redirect hop its own).
    /// - Returns: The cookies stored (replacing, expiring or adding) and the fields refused,
    ///   each with a `CookieRefusal.Reason`.
    @discardableResult
    public func store(setCookie values: [String], for url: URL) -> StoreResult {
        guard let request = RequestTarget(url, loopbackIsSecure: treatsLoopbackAsSecure) else {
            return StoreResult(
                refused: values.enumerated().map { Refusal(index: $0, value: $1, host: nil, reason: .noHost) })
        }
        let now = clock()
        var result = StoreResult()
        result.stored.reserveCapacity(values.count)
        // Every cookie a response may set goes in its host's bucket: its domain is the host or a
        // domain above it of two labels or more (a public suffix is refused), or for an IP
        // address the address itself.
        let key = Self.bucketKey(request.host)
        state.withLock { store in
            for (index, value) in values.enumerated() {
                let made: Result<Cookie, RefusedField>
                do throws(SetCookie.Failure) {
                    made = makeCookie(try SetCookie(value, now: now), for: request, now: now, store: store)
                } catch {
                    made = .failure(RefusedField(error.reason))
                }
                switch made {
                case .success(let cookie):
                    result.stored.append(insert(cookie, into: &store, now: now, key: key))
                case .failure(let refused):
                    result.refused.append(
                        Refusal(index: index, value: value, host: request.host, reason: refused.reason))
                }
            }
            settle(&store, now: now)
        }
        if !result.stored.isEmpty { changed() }
        return result
    }

    /// Stores the cookies of `response`'s `Set-Cookie` fields, received for a request to `url`.
    /// - Parameters:
    ///   - response: The response head.
    ///   - url: The URL of the request it answered.
    /// - Returns: The cookies stored and the fields refused, as ``store(setCookie:for:)`` says.
    @discardableResult
    public func store(_ response: HTTPResponse, for url: URL) -> StoreResult {
        let values = response.headerFields[values: .setCookie]
        guard !values.isEmpty else { return StoreResult() }
        return store(setCookie: values, for: url)
    }

    /// Adds `cookie` as it is (an import, a test), replacing one with the same name, domain,
    /// host-only flag and path; none of the rules of a received cookie is applied. Its last
    /// access becomes the jar's now.
    /// - Parameter cookie: The cookie.
    public func insert(_ cookie: Cookie) {
        let now = clock()
        state.withLock { store in
            insert(cookie, into: &store, now: now)
            settle(&store, now: now)
        }
        changed()
    }

    // MARK: Sending

    /// The cookies that go with a request for `url`, in the order they are sent (RFC 6265bis
    /// §5.8.3: longer paths first, then older cookies first); their last access becomes now.
    /// - Parameter url: The request's URL.
    /// - Returns: The matching cookies.
    public func cookies(for url: URL) -> [Cookie] {
        matches(for: url) { bucket, matched in matched.map { bucket.cookie(atKey: $0) } } ?? []
    }

    /// The `Cookie` field value for a request to `url` (`a=1; b=2`), or `nil` when no cookie
    /// matches; their last access becomes now.
    ///
    /// The field is written straight from the jar, with no copy of the cookies it names: this
    /// is what a client asks for each request it sends (`CookieStore`).
    /// - Parameter url: The request's URL.
    /// - Returns: The field value.
    public func cookieField(for url: URL) -> String? {
        matches(for: url) { bucket, matched in bucket.field(matched) }
    }

    /// Finds the cookies that go with a request for `url` (§5.8.3 step 1), touches them, and
    /// hands `body` their bucket and their positions in it, in send order, under the jar's
    /// lock: `nil` when none matches.
    private func matches<Result>(
        for url: URL, _ body: (CookieBucket, UnsafeBufferPointer<Int>) -> Result
    ) -> Result? {
        guard let request = RequestTarget(url, loopbackIsSecure: treatsLoopbackAsSecure) else { return nil }
        let now = clock()
        return state.withLock { store in
            guard let slot = store.buckets.index(forKey: Self.bucketKey(request.host)) else { return nil }
            var expired = false
            // Read and touched where it lies: no copy of the bucket, and already in send order.
            let result = store.buckets.values[slot].matches(request, now: now, sawExpired: &expired, body)
            if expired {
                // The expired cookies of this bucket go; the others are found when the jar is full.
                store.count -= store.buckets.values[slot].removeExpired(at: now)
                if store.buckets.values[slot].isEmpty { store.buckets.remove(at: slot) }
            }
            return result
        }
    }

    // MARK: Listing and removing

    /// Every cookie, expired ones left out: for a debug screen, an export.
    public var allCookies: [Cookie] {
        let now = clock()
        return state.withLock { store in
            store.buckets.values.flatMap(\.cookies).filter { !$0.isExpired(at: now) }
                .sorted { ($0.domain, $0.path, $0.name) < ($1.domain, $1.path, $1.name) }
        }
    }

    /// How many cookies the jar holds (expired ones not yet evicted included).
    public var count: Int { state.withLock { $0.count } }

    /// Removes every cookie.
    public func removeAll() {
        state.withLock { $0 = Store() }
        changed()
    }

    /// Removes the cookies of `domain` and of its subdomains (`example.com` removes those of
    /// `www.example.com` too).
    /// - Parameter domain: The domain.
    /// - Returns: How many cookies were removed.
    @discardableResult
    public func removeCookies(domain: String) -> Int {
        let domain = domain.lowercased()
        let removed = state.withLock { store in
            let removed = Self.removeAll(from: &store) { $0.domain == domain || $0.domain.hasSuffix("." + domain) }
            store.count -= removed
            return removed
        }
        if removed > 0 { changed() }
        return removed
    }

    /// Removes the session cookies (those without an expiry), as a browser does when it quits.
    public func removeSessionCookies() {
        state.withLock { store in store.count -= Self.removeAll(from: &store, where: \.isSession) }
        changed()
    }

    /// Removes the cookies for which `shouldRemove` is true from every bucket, and the buckets
    /// left empty; how many went (the caller counts them off).
    private static func removeAll(from store: inout Store, where shouldRemove: (Cookie) -> Bool) -> Int {
        var removed = 0
        for key in Array(store.buckets.keys) {
            removed += store.buckets[key]?.removeAll(where: shouldRemove) ?? 0
            if store.buckets[key]?.isEmpty == true { store.buckets[key] = nil }
        }
        return removed
    }
}

extension CookieJar: CookieStore {
    /// Stores the cookies `response` sets, for a request to `url` (``store(_:for:)``).
    /// - Parameters:
    ///   - response: The response head.
    ///   - url: The URL of the request it answered.
    public func storeCookies(from response: HTTPResponse, for url: URL) {
        store(response, for: url)
    }

    /// Stores the cookies `response` sets and returns the fields refused (``store(_:for:)``).
    /// - Parameters:
    ///   - response: The response head.
    ///   - url: The URL of the request it answered.
    /// - Returns: The fields refused, each with its reason, values redacted.
    public func storeCookiesReportingRefusals(from response: HTTPResponse, for url: URL) -> [CookieRefusal] {
        store(response, for: url).refused
    }
}
