import Foundation

/// The cookies of one bucket of a ``CookieJar`` (the domains that share their last two labels),
/// kept so that a change costs the same in a bucket of ten cookies as in one of thousands, with
/// an index in send order (RFC 6265bis §5.8.3: longer paths first, then older cookies first) made
/// of plain values that a request scans with no reference counting.
///
/// The cookies lie in no order: a domain's cookies are found through ``byDomain`` (a cookie by
/// its identity among its domain's, at most ``CookieJar/Limits/perDomain`` of them), and a
/// removal moves the last cookie into the gap. The index is remade
/// whole by the first request after a change (a response's `Set-Cookie` fields, an eviction, an
/// import of thousands): changes are rare beside the requests that read it, and a batch of them
/// costs one remake.
struct CookieBucket {
    /// The cookies, in no order.
    private(set) var cookies: [Cookie] = []
    /// Where each domain's cookies lie in ``cookies``: its count for the domain's limit, and the
    /// cookies an eviction chooses from.
    private var byDomain: [String: [Int]] = [:]
    /// How many `Secure` cookies the bucket holds of each name: §5.7 step 16 looks for one only
    /// when there is one.
    private var secureNames: [String: Int] = [:]
    /// The earliest expiry of a cookie of the bucket, or earlier (a removal leaves it as it was):
    /// a pass for expired cookies skips a bucket whose cookies all live past now.
    private(set) var earliestExpiry = Date.distantFuture
    /// The least recently used cookie's position, when known: a request that touches cookies,
    /// or a removal, forgets it.
    private var oldest: Int?

    /// For each cookie in send order, what matching it needs.
    private var keys: [Key] = []
    /// The bucket's distinct domains and paths, which ``Key`` names by position.
    private var domains: [String] = []
    private var paths: [String] = []
    /// Every cookie's `name=value` (the value alone for a nameless cookie), in send order.
    private var pairs: [UInt8] = []
    /// Whether the index describes ``cookies`` as they are.
    private var indexed = false

    /// What matching a cookie needs: no strings, nothing counted.
    private struct Key {
        /// The cookie's position in ``cookies``.
        var slot: Int32
        var domain: Int32
        var path: Int32
        var hostOnly: Bool
        var secure: Bool
        /// Seconds since the reference date; infinity for a session cookie.
        var expires: Double
        /// Where the cookie's pair lies in ``pairs``.
        var pairStart: Int32
        var pairEnd: Int32
    }

    var count: Int { cookies.count }
    var isEmpty: Bool { cookies.isEmpty }

    // MARK: Changes

    /// Whether the bucket holds a `Secure` cookie named `name` for which `isShadowed` is true.
    func containsSecure(named name: String, where isShadowed: (Cookie) -> Bool) -> Bool {
        guard secureNames[name] != nil else { return false }
        return cookies.contains { $0.secure && $0.name == name && isShadowed($0) }
    }

    /// Stores `cookie` (RFC 6265bis §5.7 steps 22 and 23) with one lookup of its identity: in
    /// place of the cookie with its identity, whose creation time it keeps, or else as a new
    /// cookie, made at least a microsecond after `lastCreated` (which it then becomes), once its
    /// domain has room under `limit` (``makeRoom(forDomain:limit:now:)``).
    /// - Returns: The cookie as stored, and how many more cookies the bucket holds.
    mutating func store(
        _ cookie: consuming Cookie, limit: Int, now: Date, lastCreated: inout Date
    ) -> (stored: Cookie, added: Int) {
        let positions = byDomain[cookie.domain]
        if let slot = positions.flatMap({ slot(of: cookie, among: $0) }) {
            cookie.created = cookies[slot].created
            replace(at: slot, with: cookie)
            return (cookie, 0)
        }
        if cookie.created <= lastCreated { cookie.created = lastCreated.addingTimeInterval(1e-6) }
        lastCreated = cookie.created
        let removed = (positions?.count ?? 0) >= limit ? makeRoom(forDomain: cookie.domain, limit: limit, now: now) : 0
        append(cookie)
        return (cookie, 1 - removed)
    }

    /// Puts `cookie` at `slot`, in place of a cookie with its identity.
    private mutating func replace(at slot: Int, with cookie: Cookie) {
        indexed = false
        // The same name: the count of Secure cookies changes only with the flag.
        if cookies[slot].secure != cookie.secure {
            if cookie.secure { secureNames[cookie.name, default: 0] += 1 } else { forgetSecure(cookie.name) }
        }
        cookies[slot] = cookie
        if oldest == slot { oldest = nil }
        if let expires = cookie.expires, expires < earliestExpiry { earliestExpiry = expires }
    }

    /// The position of the cookie with `cookie`'s identity (name, domain, host-only flag and
    /// path, RFC 6265bis §5.7 step 22) among `positions`, its domain's.
    private func slot(of cookie: Cookie, among positions: [Int]) -> Int? {
        // Compared in place: no copy of a cookie, nothing retained.
        cookies.withUnsafeBufferPointer { cookies in
            positions.first { slot in
                cookies[slot].hostOnly == cookie.hostOnly && cookies[slot].name == cookie.name
                    && cookies[slot].path == cookie.path
            }
        }
    }

    /// Adds `cookie`, whose identity the bucket does not hold.
    private mutating func append(_ cookie: Cookie) {
        indexed = false
        byDomain[cookie.domain, default: []].append(cookies.count)
        cookies.append(cookie)
        if cookie.secure { secureNames[cookie.name, default: 0] += 1 }
        if let expires = cookie.expires, expires < earliestExpiry { earliestExpiry = expires }
        // The newest cookie: the oldest, if known, stays the oldest.
    }

    /// Removes the cookie with `cookie`'s identity; whether there was one.
    @discardableResult
    mutating func remove(_ cookie: Cookie) -> Bool {
        guard let positions = byDomain[cookie.domain], let slot = slot(of: cookie, among: positions) else {
            return false
        }
        remove(at: slot)
        return true
    }

    /// Removes the cookie at `slot`, moving the last cookie into its place.
    private mutating func remove(at slot: Int) {
        indexed = false
        oldest = nil
        let gone = cookies[slot]
        if gone.secure { forgetSecure(gone.name) }
        let last = cookies.count - 1
        byDomain[gone.domain]?.removeAll { $0 == slot }
        if byDomain[gone.domain]?.isEmpty == true { byDomain[gone.domain] = nil }
        if slot != last {
            let moved = cookies[last]
            cookies[slot] = moved
            if let index = byDomain[moved.domain]?.firstIndex(of: last) { byDomain[moved.domain]?[index] = slot }
        }
        cookies.removeLast()
    }

    private mutating func forgetSecure(_ name: String) {
        if let count = secureNames[name], count > 1 { secureNames[name] = count - 1 } else { secureNames[name] = nil }
    }

    /// Removes the cookies for which `shouldRemove` is true; how many went.
    @discardableResult
    mutating func removeAll(where shouldRemove: (Cookie) -> Bool) -> Int {
        var slot = cookies.count - 1
        var removed = 0
        // From the end: a removal moves the last cookie, which has been judged already.
        while slot >= 0 {
            if shouldRemove(cookies[slot]) {
                remove(at: slot)
                removed += 1
            }
            slot -= 1
        }
        if cookies.isEmpty { earliestExpiry = .distantFuture }
        return removed
    }

    /// Removes the cookies expired at `now` (none when ``earliestExpiry`` is later); how many went.
    @discardableResult
    mutating func removeExpired(at now: Date) -> Int {
        guard earliestExpiry <= now else { return 0 }
        let removed = removeAll { $0.isExpired(at: now) }
        earliestExpiry = cookies.lazy.compactMap(\.expires).min() ?? .distantFuture
        return removed
    }

    /// Makes room for one more cookie of `domain` under `limit` (RFC 6265bis §5.7, the limits
    /// paragraph): its expired cookies go first, then, while it is at its limit, its least
    /// recently used cookie that is not `Secure`, or else its least recently used. Returns how
    /// many cookies went.
    mutating func makeRoom(forDomain domain: String, limit: Int, now: Date) -> Int {
        guard let count = byDomain[domain]?.count, count >= limit else { return 0 }
        var removed = 0
        // A removal moves the last cookie: look again after each.
        while let expired = byDomain[domain]?.first(where: { cookies[$0].isExpired(at: now) }) {
            remove(at: expired)
            removed += 1
        }
        while let positions = byDomain[domain], positions.count >= limit {
            let insecure = positions.filter { !cookies[$0].secure }
            let pool = insecure.isEmpty ? positions : insecure
            guard let victim = pool.min(by: { cookies[$0].lastAccessed < cookies[$1].lastAccessed }) else { break }
            remove(at: victim)
            removed += 1
        }
        return removed
    }

    /// The least recently used cookie (the first of them), for the jar's total limit.
    mutating func leastRecentlyUsed() -> Cookie? {
        if oldest == nil {
            oldest = cookies.indices.min { cookies[$0].lastAccessed < cookies[$1].lastAccessed }
        }
        return oldest.map { cookies[$0] }
    }

    // MARK: Index

    /// Remakes the index from ``cookies``: their positions in send order, then what matching
    /// each needs.
    private mutating func reindex() {
        indexed = true
        keys.removeAll(keepingCapacity: true)
        domains.removeAll(keepingCapacity: true)
        paths.removeAll(keepingCapacity: true)
        pairs.removeAll(keepingCapacity: true)
        keys.reserveCapacity(cookies.count)
        let order = cookies.withUnsafeBufferPointer { cookies in
            Array(cookies.indices).sorted { CookieJar.precedes(cookies[$0], cookies[$1]) }
        }
        // A bucket may hold many subdomains: their positions are found by hashing.
        var domainPositions: [String: Int32] = [:]
        var pathPositions: [String: Int32] = [:]
        func position(of text: String, in table: inout [String], _ positions: inout [String: Int32]) -> Int32 {
            if let index = positions[text] { return index }
            table.append(text)
            positions[text] = Int32(table.count - 1)
            return Int32(table.count - 1)
        }
        for slot in order {
            let cookie = cookies[slot]
            let start = Int32(pairs.count)
            if !cookie.name.isEmpty {
                pairs.append(contentsOf: cookie.name.utf8)
                pairs.append(UInt8(ascii: "="))
            }
            pairs.append(contentsOf: cookie.value.utf8)
            keys.append(
                Key(
                    slot: Int32(slot), domain: position(of: cookie.domain, in: &domains, &domainPositions),
                    path: position(of: cookie.path, in: &paths, &pathPositions),
                    hostOnly: cookie.hostOnly, secure: cookie.secure,
                    expires: cookie.expires?.timeIntervalSinceReferenceDate ?? .infinity, pairStart: start,
                    pairEnd: Int32(pairs.count)))
        }
    }

    /// The cookies that go with `request` at `now` (§5.8.3 step 1), touched (their last access
    /// becomes `now`), handed to `body` as positions in the index, in send order (read them with
    /// ``cookie(atKey:)`` or ``field(_:)``); `nil` when none matches. `sawExpired` tells whether
    /// an expired cookie was met.
    mutating func matches<Result>(
        _ request: RequestTarget, now: Date, sawExpired: inout Bool,
        _ body: (_ bucket: CookieBucket, _ matched: UnsafeBufferPointer<Int>) -> Result
    ) -> Result? {
        if !indexed { reindex() }
        let moment = now.timeIntervalSinceReferenceDate
        let (domains, paths) = (domains, paths)
        return withUnsafeTemporaryAllocation(of: Int8.self, capacity: domains.count + paths.count) { verdicts in
            // Each distinct domain and path is judged once: -1 not yet, 0 no, 1 yes; for a domain,
            // 2 when it is above the host (§5.1.3), which only a cookie that is not host-only matches.
            verdicts.initialize(repeating: -1)
            var found = 0
            let result = withUnsafeTemporaryAllocation(of: Int.self, capacity: keys.count) { matched -> Result? in
                keys.withUnsafeBufferPointer { keys in
                    for index in keys.indices {
                        let key = keys[index]
                        if key.expires <= moment {
                            sawExpired = true
                            continue
                        }
                        if key.secure && !request.isSecure { continue }
                        let domainSlot = Int(key.domain)
                        if verdicts[domainSlot] < 0 {
                            let domain = domains[domainSlot]
                            verdicts[domainSlot] =
                                domain == request.host
                                ? 1 : CookieJar.domainMatches(request.host, domain, hostIsIP: request.isIP) ? 2 : 0
                        }
                        // 2: a domain above the host, which only a domain cookie matches.
                        if verdicts[domainSlot] == 0 || (verdicts[domainSlot] == 2 && key.hostOnly) { continue }
                        let pathSlot = domains.count + Int(key.path)
                        if verdicts[pathSlot] < 0 {
                            verdicts[pathSlot] = CookieJar.pathMatches(request.path, paths[Int(key.path)]) ? 1 : 0
                        }
                        guard verdicts[pathSlot] == 1 else { continue }
                        matched[found] = index
                        found += 1
                    }
                }
                guard found > 0 else { return nil }
                oldest = nil
                keys.withUnsafeBufferPointer { keys in
                    cookies.withUnsafeMutableBufferPointer { cookies in
                        for index in matched[..<found] { cookies[Int(keys[index].slot)].lastAccessed = now }
                    }
                }
                return body(self, UnsafeBufferPointer(rebasing: matched[..<found]))
            }
            return result
        }
    }

    /// The cookie at position `key` of the index. Called from the body of
    /// ``matches(_:now:sawExpired:_:)``, when the index is fresh.
    func cookie(atKey key: Int) -> Cookie { cookies[Int(keys[key].slot)] }

    /// The `Cookie` field value of the cookies at `matched` (positions in the index): their pairs
    /// joined by `"; "`. Called from the body of ``matches(_:now:sawExpired:_:)``, when the index
    /// is fresh.
    func field(_ matched: UnsafeBufferPointer<Int>) -> String {
        var length = 2 * (matched.count - 1)
        for index in matched { length += Int(keys[index].pairEnd - keys[index].pairStart) }
        return String(unsafeUninitializedCapacity: length) { output in
            pairs.withUnsafeBytes { pairs in
                let output = UnsafeMutableRawBufferPointer(output)
                var at = 0
                for (position, index) in matched.enumerated() {
                    if position > 0 {
                        output[at] = UInt8(ascii: ";")
                        output[at + 1] = UInt8(ascii: " ")
                        at += 2
                    }
                    let (start, end) = (Int(keys[index].pairStart), Int(keys[index].pairEnd))
                    UnsafeMutableRawBufferPointer(rebasing: output[at..<(at + end - start)])
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: pairs[start..<end]))
                    at += end - start
                }
                return at
            }
        }
    }
}
