import Foundation
import HTTPClient
import HTTPCore

/// Something a ``CachingTransport`` did, for ``CacheConfiguration/observer``.
///
/// ```swift
/// var configuration = CacheConfiguration()
/// configuration.observer = { event in print(event) }  // such as: served hit https://api.example.com/feed
/// ```
public struct CacheEvent: Sendable, CustomStringConvertible {
    /// What happened.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        /// The name, such as `stored`.
        public let name: String

        /// A kind named `name`.
        /// - Parameter name: The name.
        public init(_ name: String) { self.name = name }

        /// A response was served or passed on; ``CacheEvent/outcome`` says how.
        public static let served = Kind("served")
        /// A response was stored (its body complete).
        public static let stored = Kind("stored")
        /// A stored response was freshened by a `304` or a `HEAD` response.
        public static let freshened = Kind("freshened")
        /// Stored responses were invalidated by an unsafe request (RFC 9111 §4.4).
        public static let invalidated = Kind("invalidated")
        /// A background revalidation (`stale-while-revalidate`) started.
        public static let backgroundRevalidation = Kind("backgroundRevalidation")
        /// A body was not stored: it failed, was cut short, or the storage refused it.
        public static let notStored = Kind("notStored")

        /// The name.
        public var description: String { name }
    }

    /// What happened.
    public let kind: Kind
    /// The request URL it concerns.
    public let url: URL
    /// For ``Kind/served``, the outcome.
    public let outcome: CacheOutcome?

    /// Creates an event.
    /// - Parameters:
    ///   - kind: What happened.
    ///   - url: The request URL.
    ///   - outcome: The outcome, for a served response.
    public init(kind: Kind, url: URL, outcome: CacheOutcome? = nil) {
        self.kind = kind
        self.url = url
        self.outcome = outcome
    }

    /// Such as `served hit https://example.com/a`.
    public var description: String {
        "\(kind)\(outcome.map { " \($0)" } ?? "") \(URLRedaction.display(url))"
    }
}

/// How often a ``CachingTransport`` did what, since it was made.
///
/// ```swift
/// let counters = cache.counters  // a CachingTransport's
/// print(counters.hits, counters.misses, counters.hitRatio)
/// ```
public struct CacheCounters: Hashable, Sendable {
    /// Responses served fresh from the cache (``CacheOutcome/hit``).
    public var hits = 0
    /// Stale responses served (`stale-while-revalidate`, `stale-if-error`, offline).
    public var staleHits = 0
    /// Requests that went to the origin with nothing usable stored, or came back with a new
    /// response to a validation.
    public var misses = 0
    /// Validations answered `304 Not Modified`.
    public var revalidations = 0
    /// Requests passed through without the cache.
    public var bypasses = 0
    /// Generated `504` responses.
    public var unavailable = 0
    /// Responses stored.
    public var stores = 0
    /// Invalidations by unsafe requests.
    public var invalidations = 0

    /// Creates zeroed counters.
    public init() {}

    /// The share of `GET`/`HEAD` requests answered without a full response from the origin
    /// (hits, stale hits and `304`s), from 0 to 1; 0 before any request.
    public var hitRatio: Double {
        let answered = hits + staleHits + revalidations
        let total = answered + misses
        return total == 0 ? 0 : Double(answered) / Double(total)
    }

    mutating func count(_ outcome: CacheOutcome) {
        switch outcome {
        case .hit: hits += 1
        case .staleWhileRevalidate, .staleIfError, .offline: staleHits += 1
        case .revalidated: revalidations += 1
        case .miss: misses += 1
        case .unavailable: unavailable += 1
        default: bypasses += 1
        }
    }
}
