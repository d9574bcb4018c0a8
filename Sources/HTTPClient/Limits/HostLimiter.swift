import Foundation
import HTTPCore

/// A transport that limits how hard a client hits each host: at most so many requests in
/// flight at once, at most so many started per interval, and, if asked, a pause when a host
/// answers `429 Too Many Requests` with `Retry-After`.
///
/// A request over a limit waits, in the order requests came (per host: scheme, host and
/// port), and is not failed; a request whose task is cancelled while it waits leaves the queue
/// at once. A request counts as in flight from when it is sent until its response body has
/// been read, failed or dropped. The time a request waited is in its call's
/// ``ClientMetrics/queued`` and in a ``ClientEvent/Kind/queued(_:waited:attempt:)`` event.
///
/// ```swift
/// let limited = HostLimiter(
///     wrapping: URLSessionTransport(), maxConcurrentPerHost: 4,
///     rate: HostLimiter.Rate(requests: 10, per: .seconds(1), burst: 5), pausesOnTooManyRequests: true)
/// let client = Client(baseURL: baseURL, transport: limited)
/// ```
public final class HostLimiter: ClientTransport {
    /// A token bucket: `requests` per `interval` on average, `burst` at most at once.
    public struct Rate: Sendable, Hashable {
        /// How many requests may start per interval, on average.
        public let requests: Int
        /// The interval.
        public let interval: Duration
        /// How many may start at once after a quiet time.
        public let burst: Int

        /// Creates a rate.
        /// - Parameters:
        ///   - requests: Requests per interval; at least 1.
        ///   - interval: The interval; at least a microsecond.
        ///   - burst: The most at once; `requests` by default, at least 1.
        public init(requests: Int, per interval: Duration, burst: Int? = nil) {
            self.requests = max(1, requests)
            self.interval = max(interval, .microseconds(1))
            self.burst = max(1, burst ?? requests)
        }

        /// Tokens gained per second.
        var perSecond: Double {
            let (seconds, attoseconds) = interval.components
            return Double(requests) / (Double(seconds) + Double(attoseconds) * 1e-18)
        }
    }

    /// The transport that sends the requests.
    public let base: any ClientTransport
    /// The most requests in flight per host, or `nil` for no limit.
    public let maxConcurrentPerHost: Int?
    /// The most requests started per interval per host, or `nil` for no limit.
    public let rate: Rate?
    /// Whether a `429` with `Retry-After` pauses the host for that long (at most
    /// ``maximumPause``): requests to it wait meanwhile.
    public let pausesOnTooManyRequests: Bool
    /// The longest pause a `Retry-After` may ask for.
    public let maximumPause: Duration

    private let hosts = Locked<[String: HostQueue]>([:])
    private let ids = Locked<UInt64>(0)

    /// Creates a limiter around `base`.
    /// - Parameters:
    ///   - base: The transport that sends the requests.
    ///   - maxConcurrentPerHost: The most requests in flight per host, or `nil` for no limit.
    ///   - rate: The most requests started per interval per host, or `nil` for no limit.
    ///   - pausesOnTooManyRequests: Whether a `429` with `Retry-After` pauses the host.
    ///   - maximumPause: The longest pause a `Retry-After` may ask for; 60 seconds by default.
    public init(
        wrapping base: any ClientTransport, maxConcurrentPerHost: Int? = nil, rate: Rate? = nil,
        pausesOnTooManyRequests: Bool = false, maximumPause: Duration = .seconds(60)
    ) {
        self.base = base
        self.maxConcurrentPerHost = maxConcurrentPerHost.map { max(1, $0) }
        self.rate = rate
        self.pausesOnTooManyRequests = pausesOnTooManyRequests
        self.maximumPause = maximumPause
    }

    /// The limits the wrapped transport enforces (a wait in the host's queue ends at
    /// ``TransportOptions/deadline`` either way).
    public var enforcedLimits: TransportLimits { base.enforcedLimits }

    /// Sends `request` through the wrapped transport once the host's limits allow it.
    /// - Parameters:
    ///   - request: The request.
    ///   - options: The transport options, passed on.
    /// - Returns: The wrapped transport's response, with the time waited in
    ///   ``TransportResponse/waited``.
    /// - Throws: `CancellationError` when cancelled while waiting;
    ///   ``ClientError/Code/timedOut`` when ``TransportOptions/deadline`` passes while it
    ///   waits; whatever the wrapped transport throws.
    public func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
        let key = Self.hostKey(request.url)
        let start = ContinuousClock.now
        let waited = try await acquire(key, for: request, until: options.deadline) ? ContinuousClock.now - start : .zero
        var response: TransportResponse
        do {
            response = try await base.send(request, options: options)
        } catch {
            release(key)
            throw error
        }
        if pausesOnTooManyRequests, response.head.status.code == 429,
            let retryAfter = RetryAfter(response.head.headerFields)
        {
            // At most a year, whatever the setting: the clock's arithmetic must not overflow.
            let seconds = min(max(0, retryAfter.delay(from: Date())), Self.seconds(maximumPause), 31_536_000)
            pause(key, until: .now + .milliseconds(Int64(seconds * 1000)))
        }
        response.waited += waited
        guard let body = response.body, case .stream = body.source else {
            // No body, or one already whole: nothing more comes from the host.
            release(key)
            return response
        }
        let permit = Permit { [self] in release(key) }
        let watched = WatchedChunks(chunks: body.chunks(), watcher: permit)
        response.body = HTTPBody(
            length: body.length, iterationBehavior: .single, makeSequence: { watched },
            trailerFields: { body.trailerFields })
        return response
    }

    // MARK: The queue

    /// Waiters to resume, and when a timer must look at the queue again.
    private typealias Granted = (granted: [CheckedContinuation<Void, any Error>], wake: ContinuousClock.Instant?)

    /// One host's requests in flight, tokens and waiters.
    private struct HostQueue {
        var inFlight = 0
        var tokens: Double
        var refilledAt: ContinuousClock.Instant
        var pausedUntil: ContinuousClock.Instant?
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
        /// Waiters cancelled or timed out before they were queued, with their error.
        var removedEarly: [UInt64: any Error] = [:]
        /// When a timer will next grant waiters held by the rate or a pause.
        var wakeAt: ContinuousClock.Instant?
    }

    private func newQueue(_ now: ContinuousClock.Instant) -> HostQueue {
        HostQueue(tokens: Double(rate?.burst ?? 0), refilledAt: now)
    }

    /// Runs `body` on `key`'s queue in place, under the lock (a copy taken out and put back
    /// would copy its waiters on every change).
    private func withQueue<Result>(_ key: String, _ body: (inout HostQueue) -> Result) -> Result {
        hosts.withLock { hosts in
            let result = body(&hosts[key, default: newQueue(.now)])
            // A host with nothing going on is forgotten: a client that talks to many hosts
            // keeps no queue for each.
            if let queue = hosts[key], queue.inFlight == 0, queue.waiters.isEmpty, queue.wakeAt == nil,
                queue.pausedUntil.map({ $0 <= .now }) ?? true,
                rate.map({ queue.tokens >= Double($0.burst) }) ?? true
            {
                hosts[key] = nil
            }
            return result
        }
    }

    /// Takes a place for a request to `key`, waiting in line when the limits say so, until
    /// `deadline` at the latest.
    /// - Returns: Whether the request had to wait.
    private func acquire(
        _ key: String, for request: HTTPRequest, until deadline: ContinuousClock.Instant?
    ) async throws -> Bool {
        let now = ContinuousClock.now
        let started = withQueue(key) { queue in
            guard queue.waiters.isEmpty, mayStart(&queue, now) else { return false }
            take(&queue)
            return true
        }
        if started { return false }
        let id = ids.withLock { id in
            id &+= 1
            return id
        }
        var timer: Task<Void, Never>?
        if let deadline {
            timer = Task { [self] in
                try? await Task.sleep(until: deadline, clock: .continuous)
                guard !Task.isCancelled else { return }
                remove(
                    id, from: key,
                    failing: ClientError(
                        .timedOut, "the request's deadline passed while it waited for a place at \(key)",
                        request: request))
            }
        }
        defer { timer?.cancel() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let queued: Result<Granted, any Error> = withQueue(key) { queue in
                    if let error = queue.removedEarly.removeValue(forKey: id) { return .failure(error) }
                    queue.waiters.append((id, continuation))
                    return .success(grant(&queue, .now))
                }
                switch queued {
                case .failure(let error): continuation.resume(throwing: error)
                case .success(let queued):
                    for granted in queued.granted { granted.resume() }
                    if let wake = queued.wake { schedule(key, at: wake) }
                }
            }
        } onCancel: {
            remove(id, from: key, failing: CancellationError())
        }
        return true
    }

    /// Takes waiter `id` out of `key`'s line and fails it with `error` (or marks it so, when it
    /// is not in line yet).
    private func remove(_ id: UInt64, from key: String, failing error: any Error) {
        let removed: CheckedContinuation<Void, any Error>? = withQueue(key) { queue in
            guard let index = queue.waiters.firstIndex(where: { $0.id == id }) else {
                // Not in line yet; if it was granted already, the mark is dropped with the
                // queue once the host is idle.
                queue.removedEarly[id] = error
                return nil
            }
            return queue.waiters.remove(at: index).continuation
        }
        removed?.resume(throwing: error)
    }

    /// Whether a request may start now, the tokens refilled first.
    private func mayStart(_ queue: inout HostQueue, _ now: ContinuousClock.Instant) -> Bool {
        if let until = queue.pausedUntil {
            guard now >= until else { return false }
            queue.pausedUntil = nil
        }
        if let limit = maxConcurrentPerHost, queue.inFlight >= limit { return false }
        if let rate {
            let elapsed = Self.seconds(now - queue.refilledAt)
            queue.tokens = min(Double(rate.burst), queue.tokens + elapsed * rate.perSecond)
            queue.refilledAt = now
            guard queue.tokens >= 1 else { return false }
        }
        return true
    }

    private func take(_ queue: inout HostQueue) {
        queue.inFlight += 1
        if rate != nil { queue.tokens -= 1 }
    }

    /// Starts the waiters the limits now allow, first come first served; returns them, and
    /// when a timer must look again (a waiter held by the rate or a pause, not by requests in
    /// flight, which wake it when they end).
    private func grant(_ queue: inout HostQueue, _ now: ContinuousClock.Instant) -> Granted {
        var granted: [CheckedContinuation<Void, any Error>] = []
        while !queue.waiters.isEmpty, mayStart(&queue, now) {
            take(&queue)
            granted.append(queue.waiters.removeFirst().continuation)
        }
        guard !queue.waiters.isEmpty else { return (granted, nil) }
        var wake: ContinuousClock.Instant?
        if let until = queue.pausedUntil, until > now {
            wake = until
        } else if let rate, maxConcurrentPerHost.map({ queue.inFlight < $0 }) ?? true {
            let missing = max(0, 1 - queue.tokens)
            // At most a year ahead: the clock's arithmetic must not overflow.
            let microseconds = min((missing / rate.perSecond * 1e6).rounded(.up), 31_536_000e6)
            wake = now + .microseconds(Int64(microseconds) + 1)
        }
        guard let wake, queue.wakeAt.map({ wake < $0 }) ?? true else { return (granted, nil) }
        queue.wakeAt = wake
        return (granted, wake)
    }

    /// Ends a request to `key`: its place goes to the next waiter.
    private func release(_ key: String) {
        let (granted, wake) = withQueue(key) { queue in
            queue.inFlight -= 1
            return grant(&queue, .now)
        }
        for continuation in granted { continuation.resume() }
        if let wake { schedule(key, at: wake) }
    }

    /// Holds requests to `key` until `until`.
    private func pause(_ key: String, until: ContinuousClock.Instant) {
        withQueue(key) { queue in
            if queue.pausedUntil.map({ until > $0 }) ?? true { queue.pausedUntil = until }
        }
    }

    /// Looks at `key`'s waiters again at `instant`.
    private func schedule(_ key: String, at instant: ContinuousClock.Instant) {
        Task { [self] in
            try? await Task.sleep(until: instant, clock: .continuous)
            let (granted, wake) = withQueue(key) { queue in
                if queue.wakeAt == instant { queue.wakeAt = nil }
                return grant(&queue, .now)
            }
            for continuation in granted { continuation.resume() }
            if let wake { schedule(key, at: wake) }
        }
    }

    /// How many requests to `url`'s host wait in line (for tests).
    func waiting(for url: URL) -> Int {
        hosts.withLock { $0[Self.hostKey(url)]?.waiters.count ?? 0 }
    }

    static func hostKey(_ url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }
}

/// A request's place in a ``HostLimiter``, given back once: when its body ends, fails or is
/// dropped unread.
final class Permit: ChunkWatcher {
    private let onRelease: Locked<(@Sendable () -> Void)?>

    init(_ release: @escaping @Sendable () -> Void) { onRelease = Locked(release) }

    func release() {
        let action = onRelease.withLock { action in
            defer { action = nil }
            return action
        }
        action?()
    }

    func take(_ chunk: Data) {}

    func end(failure: (any Error)?) { release() }

    deinit { release() }
}
