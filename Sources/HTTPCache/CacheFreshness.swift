import Foundation
import HTTPClient
import HTTPCore

/// The freshness of a stored response: its lifetime (RFC 9111 §4.2.1, §4.2.2) and its
/// current age (§4.2.3), in seconds.
struct CacheFreshness: Sendable {
    /// The response's directives.
    let directives: CacheDirectives
    /// How long the response is fresh, in seconds from its generation.
    let lifetime: Double
    /// Whether ``lifetime`` came from the heuristic of §4.2.2.
    let isHeuristic: Bool
    /// The current age, in seconds.
    let age: Double

    /// Whether the response is fresh: its lifetime exceeds its age (§4.2).
    var isFresh: Bool { lifetime > age }
    /// How long it has been stale, in seconds; zero or less when fresh.
    var staleness: Double { age - lifetime }

    /// The freshness of `entry` at `now`.
    /// - Parameters:
    ///   - entry: The stored response.
    ///   - now: The cache's clock.
    ///   - heuristicFraction: The share of `Date − Last-Modified` taken as a heuristic
    ///     lifetime.
    ///   - heuristicCap: The longest heuristic lifetime, in seconds.
    init(_ entry: CacheEntry, now: Date, heuristicFraction: Double, heuristicCap: Double) {
        let fields = entry.head.headerFields
        directives = CacheDirectives(fields)
        let date = Self.date(fields, fallback: entry.responseTime)
        age = Self.currentAge(
            fields, date: date, requestTime: entry.requestTime, responseTime: entry.responseTime, now: now)
        (lifetime, isHeuristic) = Self.lifetime(
            fields, directives: directives, status: entry.head.status.code, date: date,
            heuristicFraction: heuristicFraction, heuristicCap: heuristicCap)
    }

    /// The `Date` value, or `fallback` (the response time) when it is absent or invalid
    /// (RFC 9110 §6.6.1: a recipient may take the time it received the message).
    static func date(_ fields: HTTPFields, fallback: Date) -> Date {
        guard let first = fields[values: .date].first, let date = HTTPDate.parse(first) else { return fallback }
        return date
    }

    /// The freshness lifetime (RFC 9111 §4.2.1) for a private cache, so `s-maxage` is
    /// ignored: `max-age` (an invalid one means stale), else `Expires − Date` (an invalid
    /// `Expires`, or more than one, means already expired, §5.3), else the heuristic of
    /// §4.2.2 for a status that allows it or a `public` response: `heuristicFraction` of
    /// `Date − Last-Modified`, at most `heuristicCap`.
    static func lifetime(
        _ fields: HTTPFields, directives: CacheDirectives, status: Int, date: Date, heuristicFraction: Double,
        heuristicCap: Double
    ) -> (Double, Bool) {
        if let maxAge = directives.seconds("max-age") {
            return (Double(maxAge.secondsOrZero), false)
        }
        let expires = fields[values: .expires]
        if !expires.isEmpty {
            guard expires.count == 1, let instant = HTTPDate.parse(expires[0]) else { return (0, false) }
            return (max(0, instant.timeIntervalSince(date)), false)
        }
        guard CacheRules.heuristicallyCacheable.contains(status) || directives.has("public"),
            let text = fields[values: .lastModified].first, let modified = HTTPDate.parse(text)
        else { return (0, false) }
        let interval = date.timeIntervalSince(modified)
        guard interval > 0 else { return (0, false) }
        return (min(heuristicCap, interval * heuristicFraction), true)
    }

    /// The current age (RFC 9111 §4.2.3):
    /// `corrected_initial_age + resident_time`, where `corrected_initial_age` is the larger
    /// of the apparent age (`response_time − date_value`, at least 0) and the `Age` received
    /// plus the response delay (`response_time − request_time`).
    static func currentAge(
        _ fields: HTTPFields, date: Date, requestTime: Date, responseTime: Date, now: Date
    )
        -> Double
    {
        let ageValue = Double(ageField(fields) ?? 0)
        let apparentAge = max(0, responseTime.timeIntervalSince(date))
        let responseDelay = max(0, responseTime.timeIntervalSince(requestTime))
        let correctedAge = ageValue + responseDelay
        let correctedInitialAge = max(apparentAge, correctedAge)
        let residentTime = max(0, now.timeIntervalSince(responseTime))
        return correctedInitialAge + residentTime
    }

    /// The `Age` received (RFC 9111 §5.1): the first member of the first line, when it is
    /// 1*DIGIT (capped at 2^31); `nil` for none or an invalid one (a sign, a fraction, a
    /// parameter), which is ignored.
    static func ageField(_ fields: HTTPFields) -> Int64? {
        guard let line = fields[values: .age].first else { return nil }
        let first = line.split(separator: ",", omittingEmptySubsequences: false).first ?? ""
        return CacheDirectives.DeltaSeconds.parse(first.trimmingCharacters(in: .whitespaces))
    }
}

/// The fixed tables of RFC 9111 and RFC 9110 the cache consults.
enum CacheRules {
    /// Statuses cacheable by default, heuristically (RFC 9110 §15.1).
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]

    /// The statuses whose caching rules this cache implements, for `must-understand`
    /// (RFC 9111 §5.2.2.3): those RFC 9110 §15 defines, but 206 (never stored here).
    static let understoodStatuses: Set<Int> = [
        200, 201, 202, 203, 204, 205, 300, 301, 302, 303, 304, 305, 307, 308, 400, 401, 402, 403, 404, 405, 406,
        407, 408, 409, 410, 411, 412, 413, 414, 415, 416, 417, 421, 422, 426, 500, 501, 502, 503, 504, 505,
    ]

    /// Fields a cache must not store (RFC 9111 §3.1, RFC 9110 §7.6.1): connection-specific
    /// fields and those of the proxy the request went through; and the cookies the origin set
    /// for the user it answered.
    static let unstoredFields: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade", "trailer",
        "proxy-authenticate", "proxy-authentication-info", "proxy-authorization",
        // A cookie is set for the user who received it: a stored response never sets it again
        // for whoever the cache answers next (RFC 9111 §7.3 leaves it to the cache).
        "set-cookie", "set-cookie2",
    ]

    /// Fields a `304` or a `HEAD` response does not update in a stored response (RFC 9111
    /// §3.2): those never stored, and `Content-Length`, which describes the stored body.
    static let fieldsKeptOnUpdate: Set<String> = unstoredFields.union(["content-length"])

    /// Methods that are safe (RFC 9110 §9.2.1): their success invalidates nothing.
    static let safeMethods: Set<HTTPMethod> = [.get, .head, .options, .trace]

    /// Statuses that let `stale-if-error` serve a stale response (RFC 5861 §4).
    static let errorStatuses: Set<Int> = [500, 502, 503, 504]
}
