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
///   bytes. `Expires` and `Max-Age` are capped at 400 days.
/// - Sending: a cookie goes to its domain (and its subdomains unless host-only), to paths under
///   its path, over `https` only when `Secure` (loopback `http` counts as secure, as in
///   browsers), until it expires; longer paths first, then older cookies first.
/// - Limits: at most ``Limits/perDomain`` cookies a domain and ``Limits/total`` in all; past
///   them the least recently used go first, so a hostile server cannot grow the jar without
///   bound.
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
    ///   - clock: The time now, for expiry; the system clock by default (a test passes its own).
    public init(
        publicSuffixes: PublicSuffixList = .shipped, limits: Limits = Limits(),
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.publicSuffixes = publicSuffixes
        self.limits = limits
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
    ///   - clock: The time now; the system clock by default.
    ///   - onError: Called with a failure to load the file or, later, to write it.
    public init(
        file: URL, persistsSessionCookies: Bool = false, publicSuffixes: PublicSuffixList = .shipped,
        limits: Limits = Limits(), clock: @escaping @Sendable () -> Date = { Date() },
        onError: (@Sendable (CookieJarError) -> Void)? = nil
    ) {
        self.publicSuffixes = publicSuffixes
        self.limits = limits
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
            evict(&store, now: now)
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
    /// (RFC 6265bis §5.7); a value the rules refuse is skipped.
    /// - Parameters:
    ///   - values: The `Set-Cookie` field values, in the order received.
    ///   - url: The URL of the request the response answered (each redirect hop its own).
    /// - Returns: How many cookies were stored (replacing, expiring or adding).
    @discardableResult
    public func store(setCookie values: [String], for url: URL) -> Int {
        guard let request = RequestTarget(url) else { return 0 }
        let now = clock()
        let stored = state.withLock { store in
            var stored = 0
            var expired = false
            for value in values {
                guard let parsed = SetCookie(value, now: now),
                    let cookie = makeCookie(parsed, for: request, now: now, store: store)
                else { continue }
                insert(cookie, into: &store, now: now)
                expired = expired || cookie.isExpired(at: now)
                stored += 1
            }
            settle(&store, now: now, insertedExpired: expired)
            return stored
        }
        if stored > 0 { changed() }
        return stored
    }

    /// Stores the cookies of `response`'s `Set-Cookie` fields, received for a request to `url`.
    /// - Parameters:
    ///   - response: The response head.
    ///   - url: The URL of the request it answered.
    /// - Returns: How many cookies were stored.
    @discardableResult
    public func store(_ response: HTTPResponse, for url: URL) -> Int {
        let values = response.headerFields[values: .setCookie]
        guard !values.isEmpty else { return 0 }
        return store(setCookie: values, for: url)
    }

    /// Adds `cookie` as it is (an import, a test), replacing one with the same name, domain,
    /// host-only flag and path; none of the rules of a received cookie is applied.
    /// - Parameter cookie: The cookie.
    public func insert(_ cookie: Cookie) {
        let now = clock()
        state.withLock { store in
            insert(cookie, into: &store, now: now)
            settle(&store, now: now, insertedExpired: cookie.isExpired(at: now))
        }
        changed()
    }

    /// The storage model's steps 2 to 21: the cookie to store, or `nil` when it is refused.
    private func makeCookie(_ parsed: SetCookie, for request: RequestTarget, now: Date, store: Store) -> Cookie? {
        // Step 2: nothing at all.
        if parsed.name.isEmpty && parsed.value.isEmpty { return nil }
        // Step 4: a nameless cookie must not look like a prefixed one.
        if parsed.name.isEmpty, Self.hasPrefix(parsed.value, "__secure-") || Self.hasPrefix(parsed.value, "__host-") {
            return nil
        }
        var cookie = Cookie(name: String(parsed.name), value: String(parsed.value), domain: request.host, created: now)
        // Step 6: Max-Age wins over Expires.
        cookie.expires = parsed.maxAge ?? parsed.expires
        // Steps 7 to 10: the domain.
        var domainAttribute = parsed.domain ?? ""
        if !domainAttribute.isEmpty, publicSuffixes.isPublicSuffix(domainAttribute) {
            guard domainAttribute == request.host else { return nil }
            domainAttribute = ""
        }
        if domainAttribute.isEmpty {
            cookie.hostOnly = true
            cookie.domain = request.host
        } else {
            guard Self.domainMatches(request.host, domainAttribute, hostIsIP: request.isIP) else { return nil }
            cookie.hostOnly = false
            cookie.domain = domainAttribute
        }
        // Step 11: the path.
        cookie.path = parsed.path.map(String.init) ?? request.defaultPath
        // Steps 12 and 13: Secure only from a secure request.
        cookie.secure = parsed.secure
        if cookie.secure && !request.isSecure { return nil }
        cookie.httpOnly = parsed.httpOnly
        // Step 16: an insecure request may not shadow a secure cookie.
        if !cookie.secure && !request.isSecure {
            // Domains that match one another share their last two labels: one bucket to look in.
            if let bucket = store.buckets[Self.bucketKey(cookie.domain)] {
                for old in bucket.cookies
                where old.secure && old.name == cookie.name
                    && (Self.domainMatches(old.domain, cookie.domain, hostIsIP: false)
                        || Self.domainMatches(cookie.domain, old.domain, hostIsIP: false))
                    && Self.pathMatches(cookie.path, old.path)
                {
                    return nil
                }
            }
        }
        // Steps 17 to 19: SameSite=None only with Secure.
        cookie.sameSite = parsed.sameSite
        if cookie.sameSite == .none && !cookie.secure { return nil }
        // Steps 20 and 21: the prefixes.
        if Self.hasPrefix(parsed.name, "__secure-"), !cookie.secure { return nil }
        if Self.hasPrefix(parsed.name, "__host-"), !cookie.secure || !cookie.hostOnly || parsed.path != "/" {
            return nil
        }
        return cookie
    }

    /// Step 22 and 23: replaces a cookie with the same identity, keeping its creation time.
    private func insert(_ cookie: Cookie, into store: inout Store, now: Date) {
        var cookie = cookie
        cookie.lastAccessed = now
        let key = Self.bucketKey(cookie.domain)
        var bucket = store.buckets.removeValue(forKey: key)?.cookies ?? []
        // Field by field: an `Identity` made for each comparison would copy four strings.
        if let index = bucket.firstIndex(where: {
            $0.name == cookie.name && $0.path == cookie.path && $0.hostOnly == cookie.hostOnly
                && $0.domain == cookie.domain
        }) {
            cookie.created = bucket[index].created
            bucket[index] = cookie
        } else {
            if cookie.created <= store.lastCreated { cookie.created = store.lastCreated.addingTimeInterval(1e-6) }
            store.lastCreated = max(store.lastCreated, cookie.created)
            // The domain's limit holds at every insertion: a response with thousands of
            // Set-Cookie fields never grows a bucket past it (the least recently used go).
            var sameDomain = 0
            var oldest: Int?
            for index in bucket.indices where bucket[index].domain == cookie.domain {
                sameDomain += 1
                if oldest.map({ bucket[index].lastAccessed < bucket[$0].lastAccessed }) ?? true { oldest = index }
            }
            if sameDomain >= limits.perDomain, let oldest {
                bucket.remove(at: oldest)
                store.count -= 1
            }
            // A bucket is kept in the order cookies are sent (§5.8.3): a request reads it in
            // order, with nothing to sort.
            let position = bucket.firstIndex { Self.precedes(cookie, $0) } ?? bucket.endIndex
            bucket.insert(cookie, at: position)
            store.count += 1
        }
        store.buckets[key] = CookieBucket(bucket)
    }

    /// After insertions: the domain's limit held at each one, so a full ``evict(_:now:)`` pass
    /// runs only past the total limit, or to drop a cookie stored already expired (a deletion
    /// by `Max-Age=0`). A response, or an import of thousands, costs no pass over the jar.
    private func settle(_ store: inout Store, now: Date, insertedExpired: Bool) {
        if insertedExpired || store.count > limits.total { evict(&store, now: now) }
    }

    /// Removes expired cookies, then the least recently used past the limits (§5.7, the last step).
    private func evict(_ store: inout Store, now: Date) {
        for (key, bucket) in store.buckets {
            var kept = bucket.cookies.filter { !$0.isExpired(at: now) }
            // Each domain of the bucket to its limit, its most recently used kept.
            let counts = Dictionary(kept.map { ($0.domain, 1) }, uniquingKeysWith: +)
            for (domain, count) in counts where count > limits.perDomain {
                let dropped = Set(
                    kept.filter { $0.domain == domain }.sorted { $0.lastAccessed < $1.lastAccessed }
                        .prefix(count - limits.perDomain).map(\.identity))
                kept.removeAll { dropped.contains($0.identity) }
            }
            if kept.count != bucket.count {
                store.count -= bucket.count - kept.count
                store.buckets[key] = kept.isEmpty ? nil : CookieBucket(kept)
            }
        }
        guard store.count > limits.total else { return }
        // The least recently used in all, then each bucket they were in remade once.
        var all = store.buckets.values.flatMap(\.cookies)
        all.sort { $0.lastAccessed < $1.lastAccessed }
        let dropped = Dictionary(
            grouping: all.prefix(store.count - limits.total).map(\.identity), by: { Self.bucketKey($0.domain) })
        for (key, identities) in dropped {
            let identities = Set(identities)
            store.buckets[key]?.update { $0.removeAll { identities.contains($0.identity) } }
            if store.buckets[key]?.isEmpty == true { store.buckets[key] = nil }
        }
        store.count = limits.total
    }

    // MARK: Sending

    /// The cookies that go with a request for `url`, in the order they are sent (RFC 6265bis
    /// §5.8.3: longer paths first, then older cookies first); their last access becomes now.
    /// - Parameter url: The request's URL.
    /// - Returns: The matching cookies.
    public func cookies(for url: URL) -> [Cookie] {
        matches(for: url) { bucket, matched in matched.map { bucket.cookies[$0] } } ?? []
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
        guard let request = RequestTarget(url) else { return nil }
        let now = clock()
        return state.withLock { store in
            guard let slot = store.buckets.index(forKey: Self.bucketKey(request.host)) else { return nil }
            var expired = false
            // Read and touched where it lies: no copy of the bucket, and already in send order.
            let result = store.buckets.values[slot].matches(request, now: now, sawExpired: &expired, body)
            if expired { evict(&store, now: now) }
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
            var removed = 0
            for (key, bucket) in store.buckets {
                let kept = bucket.cookies.filter { $0.domain != domain && !$0.domain.hasSuffix("." + domain) }
                guard kept.count != bucket.count else { continue }
                removed += bucket.count - kept.count
                store.buckets[key] = kept.isEmpty ? nil : CookieBucket(kept)
            }
            store.count -= removed
            return removed
        }
        if removed > 0 { changed() }
        return removed
    }

    /// Removes the session cookies (those without an expiry), as a browser does when it quits.
    public func removeSessionCookies() {
        state.withLock { store in
            for (key, bucket) in store.buckets {
                let kept = bucket.cookies.filter { !$0.isSession }
                guard kept.count != bucket.count else { continue }
                store.count -= bucket.count - kept.count
                store.buckets[key] = kept.isEmpty ? nil : CookieBucket(kept)
            }
        }
        changed()
    }

    // MARK: Matching (RFC 6265bis §5.1.3, §5.1.4)

    /// The bucket a domain's cookies are kept in: its last two labels (`example.com` for
    /// `a.b.example.com`); the whole of an IP address or a one-label name. A cookie's domain is
    /// the request's host or a domain above it, never a public suffix, so the cookies a request
    /// may get are all in its host's bucket.
    static func bucketKey(_ domain: String) -> String {
        let utf8 = domain.utf8
        guard let last = utf8.lastIndex(of: UInt8(ascii: ".")),
            let second = utf8[..<last].lastIndex(of: UInt8(ascii: "."))
        else { return domain }
        // An IP address is one bucket of its own.
        if isIPAddress(domain) { return domain }
        return String(domain[domain.index(after: second)...])
    }

    /// Whether `first` is sent before `second` (§5.8.3 step 2): a longer path first, then the
    /// one made earlier.
    static func precedes(_ first: Cookie, _ second: Cookie) -> Bool {
        let (firstLength, secondLength) = (first.path.utf8.count, second.path.utf8.count)
        return firstLength != secondLength ? firstLength > secondLength : first.created < second.created
    }

    /// Whether `host` is an IP address, not a name: IPv6 (a colon) or IPv4 (digits and dots).
    /// Domain matching never goes up from an IP address (§5.1.3).
    static func isIPAddress(_ host: String) -> Bool {
        host.utf8.contains(UInt8(ascii: ":"))
            || host.utf8.allSatisfy { $0 == UInt8(ascii: ".") || (0x30...0x39).contains($0) }
    }

    /// Whether `host` domain-matches `domain` (§5.1.3): they are the same, or `domain` is a
    /// suffix of `host` after a dot and `host` is a name, not an IP address.
    static func domainMatches(_ host: String, _ domain: String, hostIsIP: Bool) -> Bool {
        if host == domain { return true }
        let (hostCount, domainCount) = (host.utf8.count, domain.utf8.count)
        guard !hostIsIP, hostCount > domainCount else { return false }
        // `host` ends with "." and `domain`: compared as bytes, in place.
        var host = host
        var domain = domain
        return host.withUTF8 { hostBytes in
            domain.withUTF8 { domainBytes in
                hostBytes[hostCount - domainCount - 1] == UInt8(ascii: ".")
                    && memcmp(hostBytes.baseAddress! + (hostCount - domainCount), domainBytes.baseAddress!, domainCount)
                        == 0
            }
        }
    }

    /// Whether `requestPath` path-matches `cookiePath` (§5.1.4).
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        // Byte by byte: paths are compared as sent, without Unicode's equivalences.
        let (requestCount, cookieCount) = (requestPath.utf8.count, cookiePath.utf8.count)
        guard requestCount >= cookieCount, cookieCount > 0 else { return false }
        var request = requestPath
        var cookie = cookiePath
        return request.withUTF8 { requestBytes in
            cookie.withUTF8 { cookieBytes in
                guard memcmp(requestBytes.baseAddress!, cookieBytes.baseAddress!, cookieCount) == 0 else {
                    return false
                }
                return requestCount == cookieCount || cookieBytes[cookieCount - 1] == UInt8(ascii: "/")
                    || requestBytes[cookieCount] == UInt8(ascii: "/")
            }
        }
    }

    /// Whether `text` starts with `prefix` (given in lower case), case-insensitively.
    static func hasPrefix(_ text: Substring, _ prefix: String) -> Bool {
        text.utf8.count >= prefix.utf8.count && text.prefix(prefix.count).lowercased() == prefix
    }
}

/// What the jar needs of a request's URL: its canonical host, its path as sent, whether it is
/// secure, and the domains whose cookies may match it.
struct RequestTarget {
    let host: String
    let isIP: Bool
    let path: String
    let isSecure: Bool

    init?(_ url: URL) {
        guard var host = url.host(percentEncoded: true), !host.isEmpty else { return nil }
        // Lower-cased only when it has to be: most hosts already are.
        if host.utf8.contains(where: { (0x41...0x5A).contains($0) }) { host = host.lowercased() }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.utf8.last == UInt8(ascii: "."), host.utf8.count > 1 { host.removeLast() }
        self.host = host
        isIP = CookieJar.isIPAddress(host)
        let path = url.path(percentEncoded: true)
        self.path = path.isEmpty ? "/" : path
        let scheme = url.scheme?.lowercased() ?? ""
        // Loopback counts as secure, as browsers treat it ("potentially trustworthy").
        let loopback = host == "localhost" || host.hasSuffix(".localhost") || host == "::1" || host.hasPrefix("127.")
        isSecure = scheme == "https" || scheme == "wss" || loopback
    }

    /// The default path of §5.1.4: the request's path up to its last `/`, or `/`.
    var defaultPath: String {
        guard path.first == "/", let last = path.lastIndex(of: "/"), last != path.startIndex else { return "/" }
        return String(path[..<last])
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
}
