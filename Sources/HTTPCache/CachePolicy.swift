import HTTPClient
import HTTPCore

/// How one request uses a ``CachingTransport``: by the protocol, or overriding it.
///
/// Set it per call with `RequestOptions.cachePolicy` or ``HTTPCore/HTTPRequest/cachePolicy(_:)``,
/// or for every call with ``CacheConfiguration/defaultPolicy``.
///
/// ```swift
/// let fresh = try await client.send(.get("cache/60").cachePolicy(.reload))  // skip what is stored
/// let stored = try await client.send(.get("cache/60").cachePolicy(.cacheElseNetwork))
/// print(fresh.cacheOutcome == .miss, stored.cacheOutcome == .hit)  // true true
/// ```
public struct CachePolicy: Hashable, Sendable, CustomStringConvertible {
    /// The name, such as `useProtocol`.
    public let name: String

    private init(_ name: String) { self.name = name }

    /// Follow RFC 9111: serve what is fresh, validate what is stale, store what may be stored.
    public static let useProtocol = CachePolicy("useProtocol")
    /// Ignore what is stored and go to the network without validators (a browser's reload);
    /// the response is stored as the protocol allows.
    public static let reload = CachePolicy("reload")
    /// Validate any stored response with the origin before using it, even a fresh one (a
    /// browser's `no-cache` mode: `Cache-Control: max-age=0` is sent), but a fresh
    /// `immutable` one (RFC 8246 §2).
    public static let revalidate = CachePolicy("revalidate")
    /// Use a stored response however stale, without validating it; go to the network only
    /// when nothing is stored.
    public static let cacheElseNetwork = CachePolicy("cacheElseNetwork")
    /// Use a stored response however stale; never go to the network: without one the answer
    /// is a generated `504 Gateway Timeout` (as for `only-if-cached`, RFC 9111 §5.2.1.7).
    public static let cacheOnly = CachePolicy("cacheOnly")

    /// The name.
    public var description: String { name }
}

/// The request option key of a ``CachePolicy``.
enum CachePolicyOption: HTTPRequest.OptionKey { typealias Value = CachePolicy }
/// The request option key of a cache partition.
enum CachePartitionOption: HTTPRequest.OptionKey { typealias Value = String }

extension HTTPRequest {
    /// This request with its own ``CachePolicy``, over the cache's default.
    ///
    /// ```swift
    /// let response = try await client.send(.get("cache/60").cachePolicy(.revalidate))
    /// print(response.status)  // 200 OK
    /// ```
    /// - Parameter policy: How the request uses the cache.
    /// - Returns: The request with the policy.
    public func cachePolicy(_ policy: CachePolicy) -> HTTPRequest {
        var copy = self
        copy.options[CachePolicyOption.self] = policy
        return copy
    }

    /// This request stored and looked up in the cache partition `partition` (such as a user
    /// ID), over what ``CacheConfiguration/partition`` derives.
    /// - Parameter partition: The partition's name.
    /// - Returns: The request with the partition.
    public func cachePartition(_ partition: String) -> HTTPRequest {
        var copy = self
        copy.options[CachePartitionOption.self] = partition
        return copy
    }

    /// The cache policy this request carries, if any.
    public var cachePolicy: CachePolicy? { options[CachePolicyOption.self] }
}

extension RequestOptions {
    /// How this call uses a ``CachingTransport`` beneath the client, or `nil` for the cache's
    /// ``CacheConfiguration/defaultPolicy`` (or the request's own
    /// ``HTTPCore/HTTPRequest/cachePolicy(_:)``, which this overrides). Kept in
    /// `RequestOptions.requestOptions`, which the client lays over the request's
    /// options.
    ///
    /// ```swift
    /// var options = RequestOptions()
    /// options.cachePolicy = .reload  // skip what is stored, store what comes back
    /// let fresh = try await client.send(.get("cache/60"), options: options)
    /// ```
    public var cachePolicy: CachePolicy? {
        get { requestOptions[CachePolicyOption.self] }
        set { requestOptions[CachePolicyOption.self] = newValue }
    }
}
