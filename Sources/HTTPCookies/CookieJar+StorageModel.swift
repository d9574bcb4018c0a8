import Foundation

// The storage model of RFC 6265bis §5.7: which cookies a field makes, how they replace one
// another, and which go when the jar is full.
extension CookieJar {
    /// The storage model's steps 2 to 21: the cookie to store, or why the field is refused.
    func makeCookie(
        _ parsed: SetCookie, for request: RequestTarget, now: Date, store: Store
    ) -> Result<
        Cookie, RefusedField
    > {
        // Step 2: nothing at all.
        if parsed.name.isEmpty && parsed.value.isEmpty { return .failure(RefusedField(.empty)) }
        // Step 4: a nameless cookie must not look like a prefixed one.
        if parsed.name.isEmpty, Self.hasPrefix(parsed.value, "__secure-") || Self.hasPrefix(parsed.value, "__host-") {
            return .failure(RefusedField(.prefix))
        }
        // The host is lower-cased already: set after the initializer, which would look again.
        var cookie = Cookie(name: parsed.name, value: parsed.value, domain: "", created: now)
        cookie.domain = request.host
        // Step 6: Max-Age wins over Expires.
        cookie.expires = parsed.maxAge ?? parsed.expires
        // Steps 7 to 10: the domain.
        var domainAttribute = parsed.domain ?? ""
        if !domainAttribute.isEmpty, publicSuffixes.isPublicSuffix(domainAttribute) {
            guard domainAttribute == request.host else { return .failure(RefusedField(.publicSuffixDomain)) }
            domainAttribute = ""
        }
        // An IP address has no subdomains: `Domain` naming the host's own address keeps the cookie
        // host-only, as curl and browsers do (the letter of step 10 would make a domain cookie,
        // which only that address could match, beside a host-only one of the same name).
        if request.isIP, domainAttribute == request.host { domainAttribute = "" }
        if domainAttribute.isEmpty {
            cookie.hostOnly = true
        } else {
            guard Self.domainMatches(request.host, domainAttribute, hostIsIP: request.isIP) else {
                return .failure(RefusedField(.domainMismatch))
            }
            cookie.hostOnly = false
            cookie.domain = domainAttribute
        }
        // Step 11: the path.
        cookie.path = parsed.path ?? request.defaultPath
        // Steps 12 and 13: Secure only from a secure request.
        cookie.secure = parsed.secure
        if cookie.secure && !request.isSecure { return .failure(RefusedField(.secureFromInsecureRequest)) }
        cookie.httpOnly = parsed.httpOnly
        // Step 16: an insecure request may not overlay a secure cookie. Domains that match one
        // another share their last two labels: one bucket to look in.
        if !cookie.secure && !request.isSecure,
            store.buckets[Self.bucketKey(cookie.domain)]?.containsSecure(
                named: cookie.name,
                where: { old in
                    (Self.domainMatches(old.domain, cookie.domain, hostIsIP: false)
                        || Self.domainMatches(cookie.domain, old.domain, hostIsIP: false))
                        && Self.pathMatches(cookie.path, old.path)
                }) == true
        {
            return .failure(RefusedField(.overlaysSecureCookie))
        }
        // Steps 17 to 19: SameSite=None only with Secure.
        cookie.sameSite = parsed.sameSite
        if cookie.sameSite == .none && !cookie.secure { return .failure(RefusedField(.sameSiteNoneWithoutSecure)) }
        // Steps 20 and 21: the prefixes.
        if Self.hasPrefix(parsed.name, "__secure-"), !cookie.secure { return .failure(RefusedField(.prefix)) }
        if Self.hasPrefix(parsed.name, "__host-"), !cookie.secure || !cookie.hostOnly || parsed.path != "/" {
            return .failure(RefusedField(.prefix))
        }
        return .success(cookie)
    }

    /// Why ``makeCookie(_:for:now:store:)`` refused a field.
    struct RefusedField: Error {
        let reason: Refusal.Reason
        init(_ reason: Refusal.Reason) { self.reason = reason }
    }

    /// Steps 22 and 23: stores `cookie`, replacing the one with its identity and keeping its
    /// creation time; a cookie already expired only deletes that one. A new cookie of a domain at
    /// its limit first makes room (``CookieBucket/makeRoom(forDomain:limit:now:)``), so a
    /// response with thousands of `Set-Cookie` fields never grows a domain past it.
    ///
    /// Costs the same whatever the bucket holds: a lookup by identity, no scan (but of the
    /// domain's own cookies when it is full).
    /// - Returns: The cookie as stored (its creation time and last access set).
    /// - Parameter key: The cookie's bucket (``bucketKey(_:)`` of its domain), when the caller
    ///   knows it already.
    /// - Returns: The cookie as stored (its creation time and last access set).
    @discardableResult
    func insert(_ cookie: consuming Cookie, into store: inout Store, now: Date, key: String? = nil) -> Cookie {
        cookie.lastAccessed = now
        let key = key ?? Self.bucketKey(cookie.domain)
        if cookie.isExpired(at: now) {
            // A deletion (`Max-Age=0`, an `Expires` in the past): the cookie replaces the old one
            // and is evicted at once (§5.7, the last step).
            if let slot = store.buckets.index(forKey: key), store.buckets.values[slot].remove(cookie) {
                store.count -= 1
                if store.buckets.values[slot].isEmpty { store.buckets.remove(at: slot) }
            }
            return cookie
        }
        // Cookies stored together keep their order: each new one is made at least a microsecond
        // after the jar's newest (§5.8.3 sorts by creation time).
        var lastCreated = store.lastCreated
        let (stored, added) = store.buckets[key, default: CookieBucket()].store(
            cookie, limit: limits.perDomain, now: now, lastCreated: &lastCreated)
        store.lastCreated = lastCreated
        store.count += added
        return stored
    }

    /// Holds the jar to its total limit after insertions, in the order of §5.7's limits
    /// paragraph: expired cookies first, then the least recently used. (The next two classes of
    /// that order, the cookies of a domain over its limit, are empty here: ``insert(_:into:now:)``
    /// keeps every domain to its limit.)
    ///
    /// A bucket whose cookies all live past now is skipped by its earliest expiry, and knows its
    /// least recently used cookie until a request touches it: a full jar pays a look at each
    /// bucket for a new cookie, not a pass over every cookie.
    func settle(_ store: inout Store, now: Date) {
        guard store.count > limits.total else { return }
        var slot = store.buckets.startIndex
        while slot != store.buckets.endIndex {
            store.count -= store.buckets.values[slot].removeExpired(at: now)
            if store.buckets.values[slot].isEmpty {
                store.buckets.remove(at: slot)
                slot = store.buckets.startIndex
            } else {
                store.buckets.formIndex(after: &slot)
            }
        }
        while store.count > limits.total {
            var victim: (slot: Dictionary<String, CookieBucket>.Index, cookie: Cookie)?
            for slot in store.buckets.indices {
                guard let oldest = store.buckets.values[slot].leastRecentlyUsed() else { continue }
                if victim.map({ oldest.lastAccessed < $0.cookie.lastAccessed }) ?? true { victim = (slot, oldest) }
            }
            guard let victim else { break }
            store.buckets.values[victim.slot].remove(victim.cookie)
            store.count -= 1
            if store.buckets.values[victim.slot].isEmpty { store.buckets.remove(at: victim.slot) }
        }
    }
}
