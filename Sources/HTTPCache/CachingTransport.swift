import Foundation
import HTTPClient
import HTTPCore

/// A transport that keeps responses and answers from them as HTTP caching (RFC 9111) allows:
/// a private cache in front of any other transport.
///
/// For `GET` and `HEAD` (a `HEAD` is answered from a stored `GET`), keyed by the full URI,
/// query included, and by partition (``CachePartition``), with several `Vary` variants per
/// URI. It stores what RFC 9111 §3 allows, including the statuses RFC 9110 §15.1 makes
/// heuristically cacheable and `private` or authenticated responses (in their partition);
/// serves a response while it is fresh (§4.2, with the full age calculation of §4.2.3 and an
/// `Age` field); validates a stale one with `If-None-Match` or `If-Modified-Since` and
/// freshens it on `304` (§4.3); and drops what an unsafe request changed (§4.4). Beyond
/// RFC 9111: `stale-while-revalidate` and `stale-if-error` (RFC 5861), `immutable`
/// (RFC 8246), an opt-in offline window, a `Cache-Status` field (RFC 9211) that
/// `ClientResponse.cacheOutcome` reads, events and ``counters``. Redirects are cached per
/// hop: the client follows them above the transport. `206` responses and `POST` are never
/// stored.
///
/// Interceptors and response validation see a response from the cache like any other.
///
/// ```swift
/// let cache = CachingTransport(wrapping: URLSessionTransport(), storage: MemoryCacheStorage())
/// let client = Client(baseURL: baseURL, transport: cache)  // such as https://httpbin.org
/// let first = try await client.send(.get("cache/60"))  // Cache-Control: public, max-age=60
/// let second = try await client.send(.get("cache/60"))  // from the cache while fresh
/// print(first.cacheOutcome == .miss, second.cacheOutcome == .hit, cache.counters.hits)  // true true 1
/// ```
public final class CachingTransport: ClientTransport {
    /// The transport requests go to when the cache cannot answer.
    public let base: any ClientTransport
    /// Where responses are kept.
    public let storage: any CacheStorage
    /// The settings.
    public let configuration: CacheConfiguration

    let statistics = Locked(CacheCounters())
    /// Background revalidations in flight, by entry ID: one per stored response.
    let revalidations = Locked<[String: Flight]>([:])
    /// The tasks that finish background revalidations, so callers can wait for them.
    let backgroundTasks = BackgroundTasks()

    /// Creates a cache in front of `base`.
    /// - Parameters:
    ///   - base: The transport to the origin.
    ///   - storage: Where responses are kept; a new ``MemoryCacheStorage`` by default.
    ///   - configuration: The settings.
    public init(
        wrapping base: any ClientTransport, storage: any CacheStorage = MemoryCacheStorage(),
        configuration: CacheConfiguration = CacheConfiguration()
    ) {
        self.base = base
        self.storage = storage
        self.configuration = configuration
    }

    /// The limits the wrapped transport enforces (a hit returns at once either way).
    public var enforcedLimits: TransportLimits { base.enforcedLimits }

    /// How often the cache hit, missed, revalidated and stored, since it was made.
    public var counters: CacheCounters { statistics.withLock { $0 } }

    /// Drops every stored response of `partition`, or every one when `partition` is `nil`.
    /// - Parameter partition: The partition to empty (``CachePartition/name(for:)``), or `nil`.
    /// - Throws: `ClientError.Code.cacheStorageFailed` or the storage's own error.
    public func removeAll(partition: String? = nil) throws {
        try storage.removeAll(partition: partition)
    }

    /// Drops every stored response but those of partition `kept`: at sign-out, every
    /// partition the user's credentials made (with ``CachePartition/byAuthorization``, one
    /// per token, so one per token rotation), which ``removeAll(partition:)`` with the last
    /// token's partition would miss.
    /// - Parameter kept: The partition to keep; `""` (requests without credentials, and
    ///   every request with ``CachePartition/shared``) by default.
    /// - Throws: `ClientError.Code.cacheStorageFailed` or the storage's own error.
    public func removeAll(keepingPartition kept: String = "") throws {
        try storage.removeAll(keepingPartition: kept)
    }

    /// Returns once every background revalidation started so far has ended.
    public func backgroundRevalidationsFinished() async {
        await backgroundTasks.waitForAll()
    }

    /// Answers `request` from the cache, or sends it to ``base`` (validating a stored
    /// response, or fetching a new one, stored when allowed).
    /// - Parameters:
    ///   - request: The request.
    ///   - options: The transport options.
    /// - Returns: The response: stored, validated or new, with `Age` when it comes from the
    ///   cache and a `Cache-Status` field.
    /// - Throws: What ``base`` throws, unless a stale response may be served instead.
    public func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
        guard request.method == .get || request.method == .head else {
            return try await sendUncached(request, options: options)
        }
        let policy = request.options[CachePolicyOption.self] ?? configuration.defaultPolicy
        var outgoing = request
        if policy == .revalidate && !outgoing.headerFields.contains(.cacheControl) {
            // A browser's no-cache mode asks the origin the same way (RFC 9111 §5.2.1.1).
            outgoing.headerFields.append(try! HTTPField(name: .cacheControl, value: "max-age=0"))
        }
        var partition = configuration.partition.name(for: request)
        // A `Host` field the caller set names the origin a server answers for (RFC 9110 §7.2),
        // whatever the URL says: a tenant's response must not answer another tenant.
        if let host = request.headerFields[.host] { partition += " host=" + host.lowercased() }
        let exchange = CacheExchange(
            request: outgoing, key: CacheKey(url: request.url, partition: partition),
            policy: policy, directives: Self.requestDirectives(outgoing.headerFields), options: options)
        // The caller's own conditional requests, and requests with a body, pass through
        // (RFC 9111 §4.3.2 lets a cache answer them; leaving them to the origin is always right).
        if request.body != nil || HTTPFieldName.preconditions.contains(where: request.headerFields.contains) {
            if exchange.onlyCache { return unavailable(exchange, reason: "the request is not answered from the cache") }
            return try await fetch(exchange, replacing: [], outcome: .bypass, forward: "request")
        }
        let stored = (try? storage.entries(for: exchange.key)) ?? []
        let matching = stored.filter { VaryRule.matches($0, outgoing.headerFields) }.sorted(by: Self.newerFirst)
        if policy == .reload {
            if exchange.onlyCache { return unavailable(exchange, reason: "a reload with only-if-cached") }
            return try await fetch(exchange, replacing: matching, outcome: .miss, forward: "request")
        }
        guard let entry = matching.first else {
            if exchange.onlyCache { return unavailable(exchange, reason: "nothing stored") }
            return try await fetch(
                exchange, replacing: [], outcome: .miss, forward: stored.isEmpty ? "uri-miss" : "vary-miss")
        }
        let freshness = freshness(of: entry)
        if request.headerFields.contains(.range) {
            if decide(entry, freshness, exchange) == .serve,
                let partial = try await servePartial(entry, freshness: freshness, exchange)
            {
                return partial
            }
            if exchange.onlyCache { return unavailable(exchange, reason: "the range cannot be served from the cache") }
            return try await fetch(exchange, replacing: [], outcome: .bypass, forward: "request")
        }
        switch decide(entry, freshness, exchange) {
        case .serve:
            if let response = serve(entry, freshness: freshness, exchange, outcome: .hit) { return response }
        case .serveWhileRevalidating:
            if let response = serve(entry, freshness: freshness, exchange, outcome: .staleWhileRevalidate) {
                // only-if-cached / .cacheOnly: the caller wants no request to the origin, not
                // even one in the background (RFC 9111 §5.2.1.7); a later call revalidates.
                if !exchange.onlyCache { revalidateInBackground(entry, exchange, replacing: matching) }
                return response
            }
        case .validate:
            if exchange.onlyCache { return unavailable(exchange, reason: "the stored response must be validated") }
            return try await validate(entry, freshness: freshness, exchange, replacing: matching)
        }
        // The body was evicted between the lookup and now: as a miss.
        if exchange.onlyCache { return unavailable(exchange, reason: "the stored body is gone") }
        return try await fetch(exchange, replacing: matching, outcome: .miss, forward: "miss")
    }

    /// A request the cache does not answer: sent on; a success of an unsafe method
    /// invalidates the target URI and the same-origin `Location` and `Content-Location`
    /// (RFC 9111 §4.4).
    private func sendUncached(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
        var response = try await base.send(request, options: options)
        let code = response.head.status.code
        if !CacheRules.safeMethods.contains(request.method), (200..<400).contains(code) {
            invalidate(after: request, response: response.head)
        }
        annotate(&response.head, CacheStatusValue(outcome: .bypass, forward: "method"))
        record(.bypass, url: request.url)
        return response
    }

    /// Drops the stored responses of the target URI and of the same-origin `Location` and
    /// `Content-Location` in every partition (RFC 9111 §4.4): what changed on the origin is
    /// stale for every user, not only the one who changed it.
    private func invalidate(after request: HTTPRequest, response: HTTPResponse) {
        for url in request.urlsChanged(answeredBy: response) {
            // Even with nothing stored: a response being stored now must not land after this.
            guard let removed = try? storage.removeAll(uri: CacheKey(url: url, partition: "").uri), removed > 0
            else { continue }
            statistics.withLock { $0.invalidations += 1 }
            configuration.observer?(CacheEvent(kind: .invalidated, url: url))
        }
    }

    // MARK: Deciding

    enum Decision: Equatable {
        case serve
        case serveWhileRevalidating
        case validate
    }

    /// Whether `entry` may be served as it is, served while revalidated in the background,
    /// or must be validated first (RFC 9111 §4.2, §5.2.1, §5.2.2; RFC 5861 §3; RFC 8246).
    func decide(_ entry: CacheEntry, _ freshness: CacheFreshness, _ exchange: CacheExchange) -> Decision {
        if exchange.policy == .cacheElseNetwork || exchange.policy == .cacheOnly { return .serve }
        let response = freshness.directives
        let request = exchange.directives
        if request.has("no-cache") || Self.requiresValidation(response) { return .validate }
        // A fresh immutable response needs no validation, even on a reload (RFC 8246 §2).
        let immutable = response.has("immutable") && freshness.isFresh
        if exchange.policy == .revalidate && !immutable { return .validate }
        if !immutable, let maxAge = request.seconds("max-age"), freshness.age > Double(maxAge.secondsOrZero) {
            return .validate
        }
        let minFresh = Double(request.seconds("min-fresh")?.secondsOrZero ?? 0)
        if freshness.lifetime - freshness.age > minFresh { return .serve }
        guard !response.has("must-revalidate") else { return .validate }
        if request.has("max-stale") {
            // Without an argument, any staleness is accepted (RFC 9111 §5.2.1.2).
            if request.argument("max-stale") == nil { return .serve }
            if case .value(let limit) = request.seconds("max-stale"), freshness.staleness <= Double(limit) {
                return .serve
            }
        }
        if exchange.policy == .useProtocol, let window = response.seconds("stale-while-revalidate"),
            freshness.staleness <= Double(window.secondsOrZero)
        {
            return .serveWhileRevalidating
        }
        return .validate
    }

    /// Whether a response must be validated before every use: unqualified `no-cache`
    /// (RFC 9111 §5.2.2.4).
    static func requiresValidation(_ directives: CacheDirectives) -> Bool {
        directives.has("no-cache") && directives.fieldNames(of: "no-cache").isEmpty
    }

    /// Whether a stale response may never be served without validation: `must-revalidate`
    /// or unqualified `no-cache` (RFC 9111 §4.2.4).
    static func forbidsStale(_ directives: CacheDirectives) -> Bool {
        directives.has("must-revalidate") || requiresValidation(directives)
    }

    /// The request's directives. `Pragma` is not read: RFC 9111 §5.4 deprecates it, and a
    /// request that means `no-cache` says so in `Cache-Control`.
    static func requestDirectives(_ fields: HTTPFields) -> CacheDirectives {
        CacheDirectives(fields)
    }

    func freshness(of entry: CacheEntry) -> CacheFreshness {
        CacheFreshness(
            entry, now: configuration.clock.now(), heuristicFraction: configuration.heuristicFraction,
            heuristicCap: Self.seconds(configuration.heuristicCap))
    }

    /// Whether `first` is to be preferred to `second`: the most recent `Date`, then the most
    /// recently received (RFC 9111 §4.1).
    static func newerFirst(_ first: CacheEntry, _ second: CacheEntry) -> Bool {
        let firstDate = CacheFreshness.date(first.head.headerFields, fallback: first.responseTime)
        let secondDate = CacheFreshness.date(second.head.headerFields, fallback: second.responseTime)
        if firstDate != secondDate { return firstDate > secondDate }
        if first.responseTime != second.responseTime { return first.responseTime > second.responseTime }
        // A total order, so that every concurrent prune of a key keeps the same entries.
        return first.id > second.id
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }

    func record(_ outcome: CacheOutcome, url: URL) {
        statistics.withLock { $0.count(outcome) }
        configuration.observer?(CacheEvent(kind: .served, url: url, outcome: outcome))
    }
}

/// One `GET` or `HEAD` request on its way through the cache.
struct CacheExchange: Sendable {
    /// The request as it goes to the origin (with `max-age=0` for ``CachePolicy/revalidate``).
    let request: HTTPRequest
    let key: CacheKey
    let policy: CachePolicy
    /// The request's cache directives.
    let directives: CacheDirectives
    let options: TransportOptions

    /// Whether the request may be answered only from the cache.
    var onlyCache: Bool { policy == .cacheOnly || directives.has("only-if-cached") }
}
