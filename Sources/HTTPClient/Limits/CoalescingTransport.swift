import Foundation
import HTTPCore

/// A transport that sends identical `GET` requests in flight at the same time once: every
/// caller gets the one response, or its error.
///
/// Requests are identical when their method, URL and header fields are (each field's name
/// and value, in order), but for ``ignoredFields``; URLs are compared as RFC 9110 §4.2.3
/// normalises them (scheme and host in any case, the default port written or not), so
/// `http://EXAMPLE.com:80/x` shares a request with `http://example.com/x` (tracing and request identifiers by
/// default), and their caller's buffering limit is the same: two users' requests (another
/// `Authorization`, `Cookie` or API key field) are never shared. Only `GET` requests without
/// a body whose caller reads the whole body at once (``Client/send(_:options:)``) are shared,
/// and never a range or conditional request (`Range`, `If-*`), whose answer depends on what
/// its caller holds; the body is held in memory up to the callers' buffering limit and each
/// caller gets it whole. Everything else goes straight through.
///
/// Read-your-writes: once an unsafe request (`POST`, `PUT`, `PATCH`, `DELETE`, …) sent through
/// this transport ends, with an answer or an error, no later `GET` joins a request for its
/// target URI (or the same-origin `Location` and `Content-Location` of its answer, as
/// RFC 9111 §4.4 invalidates) that began before: the later one goes out on its own, so a caller
/// never reads an answer older than its own completed write. Callers already waiting keep theirs.
///
/// A caller that cancels leaves the others waiting; when the last one cancels, the request is
/// cancelled. Each caller's timeout holds for that caller alone: the shared request itself
/// runs without a deadline for as long as one caller still waits.
///
/// ```swift
/// let client = Client(baseURL: baseURL, transport: CoalescingTransport(wrapping: URLSessionTransport()))
/// async let first = client.send(.get("config"))
/// async let second = client.send(.get("config"))  // the same request, sent once
/// _ = try await (first, second)
/// ```
public final class CoalescingTransport: ClientTransport {
    /// The transport that sends the requests.
    public let base: any ClientTransport
    /// The header fields left out of a request's identity: identical requests may differ in
    /// them, and the first caller's are the ones sent.
    public let ignoredFields: Set<HTTPFieldName>

    /// The default ``ignoredFields``: tracing and request identifiers.
    public static let defaultIgnoredFields: Set<HTTPFieldName> = Set(
        ["traceparent", "tracestate", "X-Request-ID", "X-Correlation-ID"].map { try! HTTPFieldName($0) })

    /// Fields whose answer depends on what the caller holds: such requests are never shared.
    static let conditionalFields: [HTTPFieldName] =
        [.range, .ifMatch, .ifNoneMatch, .ifModifiedSince]
        + ["If-Range", "If-Unmodified-Since"].map {
            try! HTTPFieldName($0)
        }

    private let flights = Locked<[String: Flight]>([:])

    /// Creates the transport.
    /// - Parameters:
    ///   - base: The transport that sends the requests.
    ///   - ignoredFields: The fields in which identical requests may differ;
    ///     ``defaultIgnoredFields`` by default.
    public init(
        wrapping base: any ClientTransport,
        ignoredFields: Set<HTTPFieldName> = CoalescingTransport.defaultIgnoredFields
    ) {
        self.base = base
        self.ignoredFields = ignoredFields
    }

    /// Sends `request`, or waits for an identical one already in flight.
    /// - Parameters:
    ///   - request: The request.
    ///   - options: The transport options; a shared request runs without their deadline.
    /// - Returns: The response, its body whole when it was shared.
    /// - Throws: The shared request's error, `CancellationError` when this caller was
    ///   cancelled, or whatever the wrapped transport throws.
    public func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
        if !request.method.isSafe {
            // A write: once it ended, requests for what it changed that began before it are
            // joined by no one.
            let response: TransportResponse
            do {
                response = try await base.send(request, options: options)
            } catch {
                cutOff(request.urlsChanged(answeredBy: nil))
                throw error
            }
            cutOff(request.urlsChanged(answeredBy: response.head))
            return response
        }
        guard request.method == .get, request.body == nil, options.awaitsWholeBody,
            !Self.conditionalFields.contains(where: request.headerFields.contains)
        else {
            return try await base.send(request, options: options)
        }
        try Task.checkCancellation()
        let key = identity(of: request, limit: options.responseBufferLimit)
        let (flight, waiter) = flights.withLock { table in
            // A flight whose callers all left is being cancelled: it takes no one else.
            if let flight = table[key], let waiter = flight.join() { return (flight, waiter) }
            var shared = options
            shared.deadline = nil
            shared.bodyDeadline = nil
            let flight = Flight(base: base, request: request, options: shared) { [self] flight in
                flights.withLock { if $0[key] === flight { $0[key] = nil } }
            }
            table[key] = flight
            // A new flight has no callers yet and is not abandoned: joining it succeeds.
            return (flight, flight.join() ?? 0)
        }
        flight.start()
        let shared = try await withTaskCancellationHandler {
            try await flight.wait(waiter)
        } onCancel: {
            flight.leave(waiter)
        }
        return TransportResponse(
            head: shared.head, body: shared.body.map { HTTPBody($0, trailerFields: shared.trailerFields) },
            bytesSent: shared.bytesSent, proxy: shared.proxy)
    }

    /// Takes the requests in flight for `urls` out of the table: later callers start anew. A
    /// URL matches however its scheme and host are cased and its default port written
    /// (RFC 9110 §4.2.3).
    private func cutOff(_ urls: [URL]) {
        let targets = Set(urls.map(\.equivalenceKey))
        flights.withLock { table in
            table = table.filter { !targets.contains($0.value.target) }
        }
    }

    /// The method, normalised URL (RFC 9110 §4.2.3), buffering limit and fields (but the
    /// ignored ones) of `request`.
    func identity(of request: HTTPRequest, limit: Int) -> String {
        var key = "\(request.method) \(request.url.equivalenceKey) \(limit)"
        for field in request.headerFields where !ignoredFields.contains(field.name) {
            key += "\n\(field.name.canonicalName): \(field.value)"
        }
        return key
    }
}

/// One shared request and the callers waiting for it.
package final class Flight: Sendable {
    /// What every caller gets.
    package struct Shared: Sendable {
        package let head: HTTPResponse
        package let body: Data?
        let bytesSent: Int64?
        /// The trailer section that followed the body, if the transport delivered one.
        var trailerFields: HTTPFields?
        /// The proxy the shared request went through, if any.
        var proxy: Proxy?
    }

    private struct State {
        var task: Task<Void, Never>?
        var waiters: [UInt64: CheckedContinuation<Shared, any Error>] = [:]
        /// Callers that joined and have not been answered or left.
        var members: Set<UInt64> = []
        var nextID: UInt64 = 0
        var outcome: Result<Shared, any Error>?
        /// Every caller left before the outcome: the request is being cancelled.
        var abandoned = false
    }

    private let state = Locked(State())
    private let base: any ClientTransport
    private let request: HTTPRequest
    /// The request's URL as normalised text (`URL.equivalenceKey`): what an unsafe
    /// request to it cuts off.
    package var target: String { request.url.equivalenceKey }
    private let options: TransportOptions
    private let ended: @Sendable (Flight) -> Void

    package init(
        base: any ClientTransport, request: HTTPRequest, options: TransportOptions,
        ended: @escaping @Sendable (Flight) -> Void
    ) {
        self.base = base
        self.request = request
        self.options = options
        self.ended = ended
    }

    /// A new caller's number, or `nil` when every caller left and the request is being
    /// cancelled.
    package func join() -> UInt64? {
        state.withLock { state in
            guard !state.abandoned else { return nil }
            state.nextID += 1
            state.members.insert(state.nextID)
            return state.nextID
        }
    }

    /// Starts the request, once, unless every caller left already.
    package func start() {
        state.withLock { state in
            guard state.task == nil, !state.abandoned else { return }
            state.task = makeTask()
        }
    }

    private func makeTask() -> Task<Void, Never> {
        Task { [self] in
            let outcome: Result<Shared, any Error>
            do {
                let response = try await base.send(request, options: options)
                let body = try await response.body?.collect(upTo: options.responseBufferLimit)
                outcome = .success(
                    Shared(
                        head: response.head, body: body, bytesSent: response.bytesSent,
                        trailerFields: response.body?.trailerFields, proxy: response.proxy))
            } catch let error as HTTPCoreError where error.code == .bodyTooLarge {
                outcome = .failure(
                    ClientError(
                        .responseTooLarge,
                        "the shared response body exceeds the buffering limit of \(options.responseBufferLimit) bytes",
                        request: request, underlying: error))
            } catch {
                outcome = .failure(error)
            }
            finish(outcome)
        }
    }

    /// The shared response, for caller `id`.
    package func wait(_ id: UInt64) async throws -> Shared {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<Shared, any Error>? = state.withLock { state in
                guard state.members.contains(id) else { return .failure(CancellationError()) }
                if let outcome = state.outcome {
                    state.members.remove(id)
                    return outcome
                }
                state.waiters[id] = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    /// Caller `id` was cancelled: it gets `CancellationError`; the last one to leave cancels
    /// the request.
    func leave(_ id: UInt64) {
        let (waiter, last, task): (CheckedContinuation<Shared, any Error>?, Bool, Task<Void, Never>?) =
            state.withLock { state in
                guard state.members.remove(id) != nil else { return (nil, false, nil) }
                let waiter = state.waiters.removeValue(forKey: id)
                let last = state.members.isEmpty && state.outcome == nil
                if last { state.abandoned = true }
                return (waiter, last, state.task)
            }
        waiter?.resume(throwing: CancellationError())
        if last {
            ended(self)
            task?.cancel()
        }
    }

    private func finish(_ outcome: Result<Shared, any Error>) {
        ended(self)
        // Callers that joined but wait only later find the outcome in `wait`.
        let waiters = state.withLock { state in
            state.outcome = outcome
            for id in state.waiters.keys { state.members.remove(id) }
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: outcome) }
    }
}
