import Foundation

/// The cookies of one bucket of a ``CookieJar`` (the domains that share their last two labels),
/// in the order they are sent (RFC 6265bis §5.8.3: longer paths first, then older cookies
/// first), with an index made of plain values that a request scans with no reference counting.
///
/// The index is remade whole by the first request after a change (a response's `Set-Cookie`
/// fields, an eviction, an import of thousands): changes are rare beside the requests that read
/// it, and a batch of them costs one remake.
struct CookieBucket {
    /// The cookies, in send order.
    private(set) var cookies: [Cookie]
    /// For each cookie, at the same position, what matching it needs.
    private var keys: [Key] = []
    /// The bucket's distinct domains and paths, which ``Key`` names by position.
    private var domains: [String] = []
    private var paths: [String] = []
    /// Every cookie's `name=value` (the value alone for a nameless cookie), one after another.
    private var pairs: [UInt8] = []
    /// Whether the index describes ``cookies`` as they are.
    private var indexed = false

    /// What matching a cookie needs: no strings, nothing counted.
    private struct Key {
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

    /// A bucket of `cookies`, already in send order.
    init(_ cookies: [Cookie]) {
        self.cookies = cookies
    }

    var count: Int { cookies.count }
    var isEmpty: Bool { cookies.isEmpty }

    /// Remakes the index from ``cookies``.
    private mutating func reindex() {
        indexed = true
        keys.removeAll(keepingCapacity: true)
        domains.removeAll(keepingCapacity: true)
        paths.removeAll(keepingCapacity: true)
        pairs.removeAll(keepingCapacity: true)
        keys.reserveCapacity(cookies.count)
        // A bucket may hold many subdomains: their positions are found by hashing.
        var domainPositions: [String: Int32] = [:]
        var pathPositions: [String: Int32] = [:]
        func position(of text: String, in table: inout [String], _ positions: inout [String: Int32]) -> Int32 {
            if let index = positions[text] { return index }
            table.append(text)
            positions[text] = Int32(table.count - 1)
            return Int32(table.count - 1)
        }
        for cookie in cookies {
            let start = Int32(pairs.count)
            if !cookie.name.isEmpty {
                pairs.append(contentsOf: cookie.name.utf8)
                pairs.append(UInt8(ascii: "="))
            }
            pairs.append(contentsOf: cookie.value.utf8)
            keys.append(
                Key(
                    domain: position(of: cookie.domain, in: &domains, &domainPositions),
                    path: position(of: cookie.path, in: &paths, &pathPositions),
                    hostOnly: cookie.hostOnly, secure: cookie.secure,
                    expires: cookie.expires?.timeIntervalSinceReferenceDate ?? .infinity, pairStart: start,
                    pairEnd: Int32(pairs.count)))
        }
    }

    /// Changes the cookies (keeping them in send order is the caller's part); the next request
    /// remakes the index.
    mutating func update<Result>(_ change: (inout [Cookie]) throws -> Result) rethrows -> Result {
        indexed = false
        return try change(&cookies)
    }

    /// The cookies that go with `request` at `now` (§5.8.3 step 1), touched (their last access
    /// becomes `now`), handed to `body` as positions in ``cookies`` in send order; `nil` when
    /// none matches. `sawExpired` tells whether an expired cookie was met.
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
            let result = withUnsafeTemporaryAllocation(of: Int.self, capacity: cookies.count) { matched -> Result? in
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
                cookies.withUnsafeMutableBufferPointer { cookies in
                    for index in matched[..<found] { cookies[index].lastAccessed = now }
                }
                return body(self, UnsafeBufferPointer(rebasing: matched[..<found]))
            }
            return result
        }
    }

    /// The `Cookie` field value of the cookies at `matched`: their pairs joined by `"; "`. Called
    /// from the body of ``matches(_:now:sawExpired:_:)``, when the index is fresh.
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
