import Foundation
import HTTPClient
import HTTPCore

/// The settings of a ``CachingTransport``.
///
/// ```swift
/// var configuration = CacheConfiguration()
/// configuration.offlineWindow = .seconds(7 * 24 * 3600)  // serve a week-old copy when offline
/// configuration.partition = .shared  // one user: no partitions
/// let transport = CachingTransport(wrapping: URLSessionTransport(), configuration: configuration)
/// print(transport.configuration.defaultPolicy)  // useProtocol
/// ```
public struct CacheConfiguration: Sendable {
    /// The policy of requests that carry none; ``CachePolicy/useProtocol`` by default.
    public var defaultPolicy: CachePolicy = .useProtocol
    /// How requests are partitioned between users; ``CachePartition/byCredentials`` by
    /// default, so a request carrying `Authorization`, `Proxy-Authorization` or `Cookie` is
    /// never answered from what was stored under other credentials. An app with sign-in
    /// should give each user a partition of their own with ``CachePartition/custom(_:)`` (a
    /// user ID, not a token) and call ``CachingTransport/removeAll(partition:)`` with it at
    /// sign-out: see ``CachePartition/byAuthorization`` for what a per-token partition misses.
    /// Whatever the rule, a request's own `Host` field, when set, also separates entries.
    public var partition: CachePartition = .byCredentials
    /// The clock of the freshness and age calculations; the system clock by default. Tests
    /// inject one they advance by hand.
    public var clock: CacheClock = .system
    /// The share of `Date − Last-Modified` a response without explicit freshness stays fresh
    /// for (RFC 9111 §4.2.2); 10% by default.
    public var heuristicFraction: Double = 0.1
    /// The longest heuristic freshness lifetime; one day by default.
    public var heuristicCap: Duration = .seconds(86_400)
    /// How stale a stored response may be and still be served, marked
    /// ``CacheOutcome/offline``, when the origin cannot be reached (a connection error);
    /// `nil` (the default) serves nothing stale then. A response with `must-revalidate` or
    /// `no-cache` is never served stale (RFC 9111 §4.2.4).
    public var offlineWindow: Duration?
    /// The cache's name in the `Cache-Status` field added to every `GET` and `HEAD` response
    /// (RFC 9211), which also carries `ClientResponse.cacheOutcome`; `nil` adds none.
    public var cacheStatusName: String? = "Heron"
    /// The most variants (different `Vary` values) kept for one URI; 16 by default.
    public var variantLimit = 16
    /// Called with every cache event, from any thread; see also
    /// ``CachingTransport/counters``.
    public var observer: (@Sendable (CacheEvent) -> Void)?

    /// The default settings.
    public init() {}
}

/// What time it is for a cache: the system clock, or one a test controls.
///
/// ```swift
/// let start = Date(timeIntervalSince1970: 1_700_000_000)
/// let clock = CacheClock { start }
/// print(clock.now() == start)  // true
/// ```
public struct CacheClock: Sendable {
    /// The current time.
    public let now: @Sendable () -> Date

    /// A clock that reads `now`.
    /// - Parameter now: Returns the current time.
    public init(now: @escaping @Sendable () -> Date) { self.now = now }

    /// The system clock.
    public static let system = CacheClock { Date() }
}

/// How a cache separates the responses of different users (RFC 9111 §3.5: a private cache
/// may store authenticated responses, here in the user's own partition).
///
/// A request's own ``HTTPCore/HTTPRequest/cachePartition(_:)`` wins over the rule.
///
/// ```swift
/// let perAccount = CachePartition.custom { request in request.url.user ?? "anonymous" }
/// let request = HTTPRequest(url: URL(string: "https://ada@api.example.com/me")!)
/// print(perAccount.name(for: request), request.cachePartition("admin").options.isEmpty)  // ada false
/// ```
public struct CachePartition: Sendable {
    private let rule: @Sendable (HTTPRequest) -> String

    /// A partition rule.
    /// - Parameter rule: The partition's name for a request.
    public static func custom(_ rule: @escaping @Sendable (HTTPRequest) -> String) -> CachePartition {
        CachePartition(rule: rule)
    }

    /// One partition for every request: for a single user, or for public data only.
    public static let shared = CachePartition { _ in "" }

    /// One partition per `Authorization` value, and one for requests without: two tokens never
    /// share a response.
    ///
    /// The partition's name is a 128-bit FNV-1a digest of the value, never the credential
    /// itself; a ``DiskCacheStorage`` keeps it in its files. A fast digest of a weak secret (a
    /// Basic password) can be guessed by someone who can read those files: for such
    /// credentials, partition by a user ID of your own (``custom(_:)``).
    ///
    /// Its limits, each a reason to prefer a per-user ``custom(_:)`` partition in an app with
    /// sign-in:
    /// - A token that rotates (an OAuth access token refreshed every hour) makes a new
    ///   partition each time: nothing stored under the old token is reused, and
    ///   ``CachingTransport/removeAll(partition:)`` at sign-out with the current token's
    ///   partition leaves the earlier tokens' responses behind (until evicted). Use
    ///   ``CachingTransport/removeAll(keepingPartition:)`` at sign-out, which drops every
    ///   partition but the one of requests without credentials.
    /// - `Cookie` is not read: requests authenticated by a session cookie all fall in the
    ///   partition of requests without `Authorization`, shared by every user.
    public static let byAuthorization = CachePartition { request in
        guard let value = request.headerFields[.authorization] else { return "" }
        return "auth-" + StableHash.hex(of: value)
    }

    /// One partition per set of credentials a request carries (`Authorization`,
    /// `Proxy-Authorization` and `Cookie`), and one for requests without any: a response
    /// stored for one user's session cookie or token is never served to another's. The
    /// default.
    ///
    /// The name is a digest of the values, never the credentials themselves; what
    /// ``byAuthorization`` says of rotating tokens and weak secrets holds here too.
    public static let byCredentials = byCredentials(including: [])

    /// One partition per set of credentials, counting `fields` as credentials too (an API key
    /// sent as `X-Api-Key`), beside `Authorization`, `Proxy-Authorization` and `Cookie`.
    ///
    /// ```swift
    /// var configuration = CacheConfiguration()
    /// configuration.partition = .byCredentials(including: [try HTTPFieldName("X-Api-Key")])
    /// ```
    /// - Parameter fields: The request fields that carry credentials of your API.
    /// - Returns: The partition rule.
    public static func byCredentials(including fields: [HTTPFieldName]) -> CachePartition {
        let credentials = [HTTPFieldName.authorization, .proxyAuthorization, .cookie] + fields
        return CachePartition { request in
            var material = ""
            for name in credentials {
                for value in request.headerFields[values: name] { material += "\(name.canonicalName): \(value)\n" }
            }
            return material.isEmpty ? "" : "credentials-" + StableHash.hex(of: material)
        }
    }

    /// The partition's name for `request`.
    /// - Parameter request: The request.
    /// - Returns: Its own partition, or the rule's.
    public func name(for request: HTTPRequest) -> String {
        request.options[CachePartitionOption.self] ?? rule(request)
    }
}
