import Foundation
import HTTPCore

/// What a call has recorded so far, for its metrics and errors.
struct CallRecord {
    let start: ContinuousClock.Instant
    var history = AttemptHistory()
    var redirects = 0
    var bytesSent: Int64?
    var bytesReceived: Int64?
    var queued = Duration.zero
    /// The proxy the last attempt's response came through, if any.
    var proxy: Proxy?

    /// The metrics of the call, ended `end` (now, unless the caller has just read the clock:
    /// a read costs tens of nanoseconds on some machines, and a call reads it a handful of times).
    func metrics(at end: ContinuousClock.Instant = .now) -> ClientMetrics {
        ClientMetrics(
            history: history, redirects: redirects, duration: end - start, bytesSent: bytesSent,
            bytesReceived: bytesReceived, queued: queued, proxy: proxy)
    }
}

/// Makes and delivers the events of one call, or nothing when the client has no observers.
struct EventEmitter: Sendable {
    let hub: ObserverHub?
    let id: UInt64
    let start: ContinuousClock.Instant

    func event(_ kind: ClientEvent.Kind, at now: ContinuousClock.Instant = .now) -> ClientEvent {
        ClientEvent(requestID: id, elapsed: now - start, kind: kind)
    }

    func emit(_ events: EventBatch) {
        guard let hub, !events.isEmpty else { return }
        hub.emit(events)
    }
}

/// A few events delivered together: up to three held inline (a call's batches hold two or
/// three: prepared and sent; received and finished), more in an array, so a batch costs no
/// allocation.
struct EventBatch: Sendable {
    private var first: ClientEvent?
    private var second: ClientEvent?
    private var third: ClientEvent?
    private var more: [ClientEvent] = []

    init() {}

    init(_ event: ClientEvent) { first = event }

    var isEmpty: Bool { first == nil }

    var count: Int { first == nil ? 0 : second == nil ? 1 : third == nil ? 2 : 3 + more.count }

    mutating func append(_ event: ClientEvent) {
        if first == nil {
            first = event
        } else if second == nil {
            second = event
        } else if third == nil {
            third = event
        } else {
            more.append(event)
        }
    }

    /// Calls `body` with each event in order, the first marked with `droppedBefore` when not 0.
    func forEach(droppedBefore: Int = 0, _ body: (ClientEvent) -> Void) {
        guard var first else { return }
        if droppedBefore > 0 { first.eventsDroppedBefore = droppedBefore }
        body(first)
        guard let second else { return }
        body(second)
        guard let third else { return }
        body(third)
        for event in more { body(event) }
    }
}

/// Events of one call recorded as they happen and delivered together where the call
/// waits anyway (before a transport call, before a retry wait, at the end), so an
/// observer's task wakes about twice per call instead of once per event.
struct EventBuffer {
    let emitter: EventEmitter
    private var pending = EventBatch()

    init(_ emitter: EventEmitter) { self.emitter = emitter }

    mutating func record(_ kind: @autoclosure () -> ClientEvent.Kind, at now: ContinuousClock.Instant) {
        guard emitter.hub != nil else { return }
        append(kind(), at: now)
    }

    /// Not inlined: the code that makes an event stays out of the callers' (the attempt loop's).
    @inline(never)
    private mutating func append(_ kind: ClientEvent.Kind, at now: ContinuousClock.Instant) {
        pending.append(emitter.event(kind, at: now))
    }

    /// The recorded events, which the caller now delivers.
    mutating func take() -> EventBatch {
        defer { pending = EventBatch() }
        return pending
    }

    mutating func flush() { emitter.emit(take()) }
}

/// The final exchange of an attempt: the response, its body as delivered, and the request
/// that produced it.
struct Exchange<Content: Sendable>: Sendable {
    var head: HTTPResponse
    var content: Content
    /// The body as the transport returned it, for its trailer section.
    var transportBody: HTTPBody?
    var bytesSent: Int64?
    var request: HTTPRequest
    var redirects: Int
    /// Time the requests waited before they were sent, over the redirects.
    var queued: Duration
    /// The proxy the final response came through, if the transport says.
    var proxy: Proxy?
}

extension Client {
    /// Runs a call: attempts, decisions, retries; emits the `finished` event either way.
    ///
    /// `options` already carry the request's own settings (``RequestOptions/applying(_:)``,
    /// done once by the public entry points, which derive `mode` from them).
    nonisolated(nonsending) func execute<Mode: ResponseBodyMode>(
        _ request: HTTPRequest, options: RequestOptions, mode: Mode
    ) async throws
        -> ClientResponse<Mode.Content>
    {
        try ClientError.checkBuilt(request)
        let start = ContinuousClock.now
        // The whole call's deadline: the call's own, or the client's, from its start.
        let deadline = options.deadline ?? self.deadline.map { start + $0 }
        var events = EventBuffer(
            EventEmitter(hub: hub.isEmpty ? nil : hub, id: hub.isEmpty ? 0 : counter.next(), start: start))
        defer { options.progress?.finish() }
        var record = CallRecord(start: start)
        do {
            let response = try await runAttempts(
                request, options: options, mode: mode, deadline: deadline, record: &record, events: &events)
            events.record(
                .finished(status: response.head.status, error: nil, metrics: response.metrics),
                at: record.start + response.metrics.duration)
            events.flush()
            return response
        } catch {
            let failure = ClientError.wrapping(error, request: request, fallback: .transport).withAttempts(
                record.history.array)
            let end = ContinuousClock.now
            events.record(
                .finished(status: failure.response?.status, error: failure, metrics: record.metrics(at: end)), at: end)
            events.flush()
            throw failure
        }
    }

    private nonisolated(nonsending) func runAttempts<Mode: ResponseBodyMode>(
        _ request: HTTPRequest, options: RequestOptions, mode: Mode, deadline: ContinuousClock.Instant?,
        record: inout CallRecord, events: inout EventBuffer
    ) async throws -> ClientResponse<Mode.Content> {
        var base = try resolved(request)
        // Transports beneath read the call's settings from the request's options.
        if !options.requestOptions.isEmpty { base.options.lay(options.requestOptions) }
        // The client's chain was worked out when it was made; a request's own interceptors go first.
        let chain = options.interceptors.isEmpty ? self.chain : InterceptorChain(options.interceptors + interceptors)
        let callValues = values.merging(options.values)
        // Made only for interceptors: a client without any builds and copies none.
        var context: InterceptorContext?
        if !chain.isEmpty {
            var made = InterceptorContext(
                request: base, attempt: 1, values: callValues, retriesNonIdempotent: options.retriesNonIdempotent,
                start: record.start)
            made.baseURL = baseURL
            context = made
        }
        var retryState = RetryState()
        let retry = request.options.isEmpty ? self.retry : request.options[RetryOption.self] ?? self.retry
        let attemptTimeout = options.timeout ?? self.timeout
        let redirectLimit = max(0, options.redirectLimit ?? self.redirectLimit)
        let progress = options.progress
        var uploadProgress: (@Sendable (TransferProgress) -> Void)?
        if let progress { uploadProgress = { progress.report($0) } }
        // The timeout bounds the wait for the head; then each wait for body bytes is bounded
        // by the idle timeout (the timeout's, unless the call sets its own), and the whole body
        // only by the call's deadline, if it has one.
        let idleTimeout = Self.finite(options.idleTimeout ?? attemptTimeout)
        let transportOptions = TransportOptions(
            idleTimeout: idleTimeout, responseBufferLimit: mode.transportBufferLimit, progress: uploadProgress,
            bodyDeadline: mode.readsBodyInAttempt ? deadline : nil, awaitsWholeBody: mode.awaitsWholeBody)
        var attempt = 0
        while true {
            attempt += 1
            context?.attempt = attempt
            // Each step (the interceptors' prepare, the attempt, their decide) is bounded by the
            // attempt's timeout and by what is left of the call's deadline when it starts.
            func stepTimeout(_ step: Step) throws -> Duration? {
                guard let deadline else { return attemptTimeout }
                return try Self.stepTimeout(
                    step, attempt: attempt, deadline: deadline, attemptTimeout: attemptTimeout, record: record,
                    request: base)
            }
            var timeout = try stepTimeout(.beforeAttempt)
            var preparing: HTTPRequest
            if chain.isEmpty {
                // The context's request stays the base request it was made with.
                preparing = base
            } else {
                context!.request = base
                do {
                    preparing = try await prepare(
                        base, chain: chain, attachedToRequest: options.interceptors.count, context: &context!,
                        timeout: timeout)
                } catch let error as ClientError where error.code == .timedOut {
                    guard let deadline, ContinuousClock.now >= deadline else { throw error }
                    throw Self.deadlinePassed(
                        deadline, "while the interceptors prepared attempt \(attempt)", record: record, request: base,
                        underlying: error)
                }
                context!.request = preparing
            }
            // The connection's own fields are the transport's business, whoever set them.
            preparing.dropHopByHopFields()
            mode.prepare(&preparing)
            let prepared = preparing
            // One clock read for the events before the send, the attempt's start and its deadline.
            let attemptStart = ContinuousClock.now
            events.record(.prepared(prepared, attempt: attempt), at: attemptStart)
            if !chain.isEmpty { timeout = try stepTimeout(.beforeSending) }
            // Recorded here, in the same batch, so the batch is not copied to add it.
            events.record(.sent(prepared, attempt: attempt), at: attemptStart)
            let prelude = events.take()
            let emitter = events.emitter
            var exchange: Exchange<Mode.Content>?
            let outcome: AttemptOutcome
            let attemptEnd: ContinuousClock.Instant
            do {
                let result: Exchange<Mode.Content>
                let headTimeout = Self.finite(timeout)
                var sendOptions = transportOptions
                if let headTimeout { sendOptions.deadline = attemptStart + headTimeout }
                if let attemptGuard = attemptGuard(
                    headTimeout: headTimeout, options: sendOptions, readsBody: mode.readsBodyInAttempt,
                    start: attemptStart, request: prepared)
                {
                    let hopAuthorizers = chain.hopAuthorizers
                    result = try await attemptGuard.run { [self, attempt, sendOptions] in
                        try await followRedirects(
                            from: prepared, options: sendOptions, mode: mode, progress: progress,
                            limit: redirectLimit, hopAuthorizers: hopAuthorizers, attempt: attempt, prelude: prelude,
                            events: emitter, guard: attemptGuard)
                    }
                } else {
                    // Called directly, not through a closure: the common case pays for no
                    // closure context and no extra async frame.
                    result = try await followRedirects(
                        from: prepared, options: sendOptions, mode: mode, progress: progress, limit: redirectLimit,
                        hopAuthorizers: chain.hopAuthorizers, attempt: attempt, prelude: prelude, events: emitter,
                        guard: nil)
                }
                attemptEnd = .now
                exchange = result
                record.redirects += result.redirects
                record.queued += result.queued
                record.proxy = result.proxy
                record.bytesSent = result.bytesSent
                record.bytesReceived = Mode.byteCount(of: result.content)
                outcome = .response(result.head, body: Mode.data(of: result.content))
                events.record(.responseReceived(result.head, attempt: attempt), at: attemptEnd)
            } catch {
                attemptEnd = .now
                record.proxy = nil
                outcome = .failure(
                    try Self.failedAttempt(
                        error, attempt: attempt, started: attemptStart, ended: attemptEnd, deadline: deadline,
                        request: prepared, record: &record, events: &events))
            }
            if let exchange {
                record.history.append(
                    ClientError.Attempt(
                        number: attempt, status: exchange.head.status, failure: nil,
                        duration: Self.seconds(attemptEnd - attemptStart)))
            }

            let decision: InterceptorDecision
            if chain.isEmpty {
                decision = .proceed
            } else {
                timeout = try stepTimeout(.beforeJudging)
                context!.lastHop = exchange?.request
                do {
                    decision = try await decide(outcome, chain: chain, context: &context!, timeout: timeout)
                } catch let error as ClientError where error.code == .timedOut {
                    guard let deadline, ContinuousClock.now >= deadline else { throw error }
                    throw Self.deadlinePassed(
                        deadline, "while the interceptors judged attempt \(attempt)", record: record,
                        request: prepared, underlying: error)
                }
            }
            // Steps that never wait took no time worth a clock read (tens of nanoseconds).
            let decided = chain.runsInline ? attemptEnd : ContinuousClock.now
            let next = try Self.judge(
                decision, outcome: outcome, exchange: exchange, attempt: attempt, decided: decided, request: prepared,
                base: base, retry: retry, retriesNonIdempotent: options.retriesNonIdempotent, deadline: deadline,
                record: record, callValues: context?.values ?? callValues, retryState: &retryState, events: &events)
            switch next {
            case .finish(let response):
                return response
            case .retry(let wait):
                events.flush()
                try await Self.sleep(wait, request: base)
            }
        }
    }

    /// The error an attempt ended with, recorded; throws it at once when it ends the call
    /// (a cancellation, the call's deadline).
    @inline(never)
    private static func failedAttempt(
        _ error: any Error, attempt: Int, started: ContinuousClock.Instant, ended: ContinuousClock.Instant,
        deadline: ContinuousClock.Instant?, request: HTTPRequest, record: inout CallRecord, events: inout EventBuffer
    ) throws -> ClientError {
        let failure = ClientError.wrapping(error, request: request, fallback: .transport)
        record.history.append(
            ClientError.Attempt(
                number: attempt, status: nil, failure: failure.code.rawValue, duration: seconds(ended - started)))
        if failure.code == .cancelled { throw failure }
        if let deadline, failure.code == .timedOut, ended >= deadline {
            throw deadlinePassed(
                deadline, "during attempt \(attempt)", record: record, request: request, underlying: failure)
        }
        events.record(.transportError(failure, attempt: attempt), at: ended)
        return failure
    }

    /// What follows an attempt.
    enum AttemptEnd<Content: Sendable> {
        /// The call ends with this response.
        case finish(ClientResponse<Content>)
        /// The call sends the request again after this wait.
        case retry(after: Duration)
    }

    /// Decides what follows an attempt, given the interceptors' `decision`: the retry stack's
    /// verdict, and the response, the error or the wait it means. Not inlined, as
    /// ``stepTimeout(_:attempt:deadline:attemptTimeout:record:request:)`` is not.
    @inline(never)
    private static func judge<Content: Sendable>(
        _ decision: InterceptorDecision, outcome: AttemptOutcome, exchange: Exchange<Content>?, attempt: Int,
        decided: ContinuousClock.Instant, request prepared: HTTPRequest, base: HTTPRequest, retry: RetryStack,
        retriesNonIdempotent: Bool, deadline: ContinuousClock.Instant?, record: CallRecord,
        callValues: RequestValues, retryState: inout RetryState, events: inout EventBuffer
    ) throws -> AttemptEnd<Content> {
        let elapsed = decided - record.start
        var failure = outcome.error
        let action: RetryAction
        let interceptorRetry: Bool
        switch decision {
        case .retry, .retryAfter:
            var wait = Duration.zero
            if case .retryAfter(let delay) = decision { wait = delay }
            // The request as sent: a field an interceptor added (an idempotency key) counts.
            action = retry.permitInterceptorRetry(
                of: prepared, after: outcome, attempt: attempt, elapsed: elapsed, wait: wait,
                retriesNonIdempotent: retriesNonIdempotent, state: &retryState)
            interceptorRetry = true
        case .fail(let error):
            failure = error
            fallthrough
        case .proceed:
            action = retry.decide(
                after: outcome, of: prepared, attempt: attempt, elapsed: elapsed,
                retriesNonIdempotent: retriesNonIdempotent, state: &retryState)
            interceptorRetry = false
        }
        // Written only when a retry is scheduled or refused, not for every finished call.
        var reason: String {
            if interceptorRetry { return "an interceptor asked for a retry" }
            return outcome.response.map { "status \($0.status)" } ?? "error \(outcome.error?.code.rawValue ?? "")"
        }
        // The body in memory, for the error (the outcome's, which a buffered call holds).
        var body: Data? {
            guard case .response(_, let data) = outcome else { return nil }
            return data
        }

        // The call ends with this attempt's outcome: its error, or its response.
        func lastOutcome() throws -> AttemptEnd<Content> {
            if let failure { throw failure }
            guard let exchange else {
                throw ClientError(.transport, "the attempt produced no outcome", request: base)
            }
            var head = exchange.head
            if head.url == nil { head.url = exchange.request.url }
            return .finish(
                ClientResponse(
                    head: head, body: exchange.content, request: exchange.request, metrics: record.metrics(at: decided),
                    transportBody: exchange.transportBody, callValues: callValues))
        }

        switch action {
        case .finish:
            return try lastOutcome()
        case .giveUp where retry.whenExhausted == .lastOutcome,
            .bodyNotReplayable where retry.whenExhausted == .lastOutcome:
            // A retry the body cannot make ends the call as an exhausted limit does.
            return try lastOutcome()
        case .retry(let wait):
            if let deadline, ContinuousClock.now + wait >= deadline {
                // A backoff that would end past the deadline is not started.
                throw deadlinePassed(
                    deadline, "before a retry after \(wait) could start (\(reason))", record: record,
                    request: prepared, response: outcome.response, underlying: failure, ahead: true)
            }
            events.record(.retryScheduled(attempt: attempt, delay: wait, reason: reason), at: .now)
            return .retry(after: wait)
        case .giveUp(let refusal):
            throw ClientError(
                .tooManyRetries, "gave up after \(attempt) attempts: \(refusal)", request: prepared,
                response: outcome.response, body: body, underlying: failure, attempts: record.history.array)
        case .bodyNotReplayable:
            throw ClientError(
                .bodyNotReplayable,
                "a retry was wanted (\(reason)) but the request body is a one-shot stream that cannot be sent again",
                request: prepared, response: outcome.response, body: body, underlying: failure,
                attempts: record.history.array)
        }
    }

    /// Runs the `prepare` chain in order. The steps that never wait run inline, in this task;
    /// from the first step that may wait on, the rest run in a task bounded by the attempt's
    /// `timeout` and by the caller's cancellation even when an interceptor heeds neither (its
    /// task is then left to end on its own, its result dropped). The first `attachedToRequest`
    /// interceptors are the request's own (``InterceptorContext/mayCarryCredentials(_:)`` lets
    /// them add credentials wherever it goes). A request an interceptor left with a pending
    /// error (a fluent modifier's) ends the call with that error.
    @inline(never)
    private nonisolated(nonsending) func prepare(
        _ base: HTTPRequest, chain: InterceptorChain, attachedToRequest: Int, context: inout InterceptorContext,
        timeout: Duration?
    ) async throws -> HTTPRequest {
        defer { context.attachedToRequest = false }
        try Task.checkCancellation()
        var prepared = base
        for index in 0..<chain.firstWaiting {
            context.attachedToRequest = index < attachedToRequest
            do {
                try InterceptorChain.prepare(chain.steps[index], &prepared, &context)
                try ClientError.checkBuilt(prepared, by: chain.interceptors[index])
            } catch {
                throw ClientError.wrapping(error, request: prepared, fallback: .interceptorFailed)
            }
        }
        guard chain.firstWaiting < chain.steps.endIndex else { return prepared }
        let running = Locked(chain.firstWaiting)
        let (initial, start) = (context, prepared)
        let onTimeout: @Sendable () -> any Error = {
            Self.stepTimedOut(chain.interceptors[running.withLock { $0 }], step: "prepare", timeout, request: base)
        }
        let (result, updated) = try await deadlines.race(timeout: timeout, onTimeout: onTimeout) {
            var context = initial
            var prepared = start
            for index in chain.firstWaiting..<chain.steps.endIndex {
                running.withLock { $0 = index }
                context.attachedToRequest = index < attachedToRequest
                do {
                    if case .waiting(let interceptor) = chain.steps[index] {
                        try await interceptor.prepare(&prepared, context: &context)
                    } else {
                        try InterceptorChain.prepare(chain.steps[index], &prepared, &context)
                    }
                    try ClientError.checkBuilt(prepared, by: chain.interceptors[index])
                } catch {
                    throw ClientError.wrapping(error, request: prepared, fallback: .interceptorFailed)
                }
            }
            return (prepared, context)
        }
        context = updated
        return result
    }

    /// Runs the `decide` chain in reverse order up to the first decision other than
    /// ``InterceptorDecision/proceed``: the steps after the last one that may wait inline, the
    /// rest in a task bounded as in ``prepare(_:chain:attachedToRequest:context:timeout:)``.
    @inline(never)
    private nonisolated(nonsending) func decide(
        _ outcome: AttemptOutcome, chain: InterceptorChain, context: inout InterceptorContext, timeout: Duration?
    ) async throws -> InterceptorDecision {
        try Task.checkCancellation()
        let lastWaiting = chain.lastWaiting ?? -1
        var index = chain.steps.endIndex - 1
        while index > lastWaiting {
            let decision: InterceptorDecision
            do {
                decision = try InterceptorChain.decide(chain.steps[index], outcome, &context)
            } catch {
                throw ClientError.wrapping(error, request: context.request, fallback: .interceptorFailed)
            }
            if case .proceed = decision {
                index -= 1
                continue
            }
            return decision
        }
        guard lastWaiting >= 0 else { return .proceed }
        let running = Locked(lastWaiting)
        let initial = context
        let onTimeout: @Sendable () -> any Error = {
            Self.stepTimedOut(
                chain.interceptors[running.withLock { $0 }], step: "decide", timeout, request: initial.request)
        }
        let (decision, updated) = try await deadlines.race(timeout: timeout, onTimeout: onTimeout) {
            var context = initial
            var index = lastWaiting
            while index >= 0 {
                running.withLock { $0 = index }
                let decision: InterceptorDecision
                do {
                    if case .waiting(let interceptor) = chain.steps[index] {
                        decision = try await interceptor.decide(outcome, context: &context)
                    } else {
                        decision = try InterceptorChain.decide(chain.steps[index], outcome, &context)
                    }
                } catch {
                    throw ClientError.wrapping(error, request: context.request, fallback: .interceptorFailed)
                }
                index -= 1
                if case .proceed = decision { continue }
                return (decision, context)
            }
            return (InterceptorDecision.proceed, context)
        }
        context = updated
        return decision
    }

    /// The moments a call checks what is left of its deadline.
    enum Step {
        case beforeAttempt, beforeSending, beforeJudging

        func describe(attempt: Int) -> String {
            switch self {
            case .beforeAttempt: return "before attempt \(attempt)"
            case .beforeSending: return "before attempt \(attempt) was sent"
            case .beforeJudging: return "before the interceptors judged attempt \(attempt)"
            }
        }
    }

    /// The timeout of a step starting now: the attempt's, cut to what is left of `deadline`;
    /// throws when nothing is left. Not inlined: the attempt loop's code stays small, so a
    /// call runs through little of it (each `await` in the loop is a function of its own, and
    /// code inlined into the loop is copied into each).
    @inline(never)
    private static func stepTimeout(
        _ step: Step, attempt: Int, deadline: ContinuousClock.Instant, attemptTimeout: Duration?, record: CallRecord,
        request: HTTPRequest
    ) throws -> Duration? {
        let remaining = deadline - .now
        guard remaining > .zero else {
            throw deadlinePassed(deadline, step.describe(attempt: attempt), record: record, request: request)
        }
        return min(attemptTimeout ?? remaining, remaining)
    }

    /// The error of a call whose deadline passed, or would pass (`ahead`) before the next
    /// attempt could start, naming the attempts made.
    @inline(never)
    private static func deadlinePassed(
        _ deadline: ContinuousClock.Instant, _ when: String, record: CallRecord, request: HTTPRequest,
        response: HTTPResponse? = nil, underlying: ClientError? = nil, ahead: Bool = false
    ) -> ClientError {
        let total = deadline - record.start
        let attempts = record.history.count
        let what = ahead ? "would pass" : "passed"
        return ClientError(
            .timedOut,
            "the call's deadline (\(total) after it started) \(what) \(when), after \(attempts) attempt\(attempts == 1 ? "" : "s")",
            request: request, response: response, underlying: underlying, attempts: record.history.array)
    }

    /// The error of an interceptor step that outlasted the attempt's timeout, naming it.
    @inline(never)
    private static func stepTimedOut(
        _ interceptor: any Interceptor, step: String, _ timeout: Duration?, request: HTTPRequest
    ) -> ClientError {
        ClientError(
            .timedOut,
            "interceptor \(type(of: interceptor))'s \(step) did not end within the timeout of \(timeout ?? .zero)",
            request: request)
    }

    /// Sends `request` and follows redirects up to `limit`, then reads the final body as
    /// `mode` asks; delivers `prelude` (which ends with the first `sent` event) before the
    /// first request, and each `redirected` event with the next `sent`. `hopAuthorizers`
    /// answer each hop again (a Digest field names its target).
    private nonisolated(nonsending) func followRedirects<Mode: ResponseBodyMode>(
        from request: HTTPRequest, options: TransportOptions, mode: Mode, progress: ProgressDestination?,
        limit: Int, hopAuthorizers: [any HopAuthorizing], attempt: Int, prelude: EventBatch, events: EventEmitter,
        guard attemptGuard: AttemptGuard?
    ) async throws -> Exchange<Mode.Content> {
        var current = request
        var redirects = 0
        var queued = Duration.zero
        var batch = EventBatch()
        events.emit(prelude)
        while true {
            if events.hub != nil, redirects > 0 {
                batch.append(events.event(.sent(current, attempt: attempt)))
                events.emit(batch)
                batch = EventBatch()
            }
            var response: TransportResponse
            // Each hop carries the cookies of its own URL; `current` stays without them, so the
            // next hop is worked out from the request as the client made it.
            let sent = current.addingCookies(from: cookies)
            do {
                response = try await transport.send(sent, options: options)
            } catch var error as ClientError where redirects > 0 {
                // The request reached a server, which redirected it: not a request never sent.
                error.followedRedirect = true
                throw error
            }
            if let cookies {
                Self.storeCookies(
                    of: response.head, for: current.url, in: cookies, batch: &batch, events: events, attempt: attempt)
            }
            if response.waited > .zero {
                queued += response.waited
                if events.hub != nil {
                    batch.append(events.event(.queued(current.url, waited: response.waited, attempt: attempt)))
                }
            }
            if events.hub != nil, let proxy = response.proxy {
                batch.append(events.event(.proxied(current.url, proxy: proxy, attempt: attempt)))
            }
            guard limit > 0, var next = try RedirectFollower.nextRequest(after: current, response: response.head) else {
                if let attemptGuard { Self.watchBody(of: &response, with: attemptGuard) }
                let content = try await mode.receive(
                    response, request: current, progress: progress, scheduler: deadlines)
                if !batch.isEmpty { events.emit(batch) }
                return Exchange(
                    head: response.head, content: content, transportBody: response.body,
                    bytesSent: response.bytesSent, request: sent,
                    redirects: redirects, queued: queued, proxy: response.proxy)
            }
            guard redirects < limit else {
                throw ClientError(
                    .tooManyRedirects, "more than \(limit) redirects, the last to \(URLRedaction.display(next.url))",
                    request: request, response: response.head)
            }
            redirects += 1
            for authorizer in hopAuthorizers { try authorizer.authorize(hop: &next) }
            if events.hub != nil {
                batch.append(events.event(.redirected(from: current.url, to: next.url, status: response.head.status)))
            }
            current = next
        }
    }

    /// Hands a response's `Set-Cookie` fields to the cookie store; when an observer listens, a
    /// refusal of any is reported in `batch`. Not inlined: the redirect loop stays small.
    @inline(never)
    private static func storeCookies(
        of head: HTTPResponse, for url: URL, in store: any CookieStore, batch: inout EventBatch,
        events: EventEmitter, attempt: Int
    ) {
        guard events.hub != nil else {
            store.storeCookies(from: head, for: url)
            return
        }
        let refusals = store.storeCookiesReportingRefusals(from: head, for: url)
        if !refusals.isEmpty { batch.append(events.event(.cookiesRefused(url, refusals: refusals, attempt: attempt))) }
    }

    /// `duration`, unless it is none or beyond a century (no limit, and one that would
    /// overflow the clock's arithmetic).
    static func finite(_ duration: Duration?) -> Duration? {
        guard let duration, duration < .seconds(3_153_600_000) else { return nil }
        return duration
    }

    /// The guard of an attempt whose transport leaves some of its limits to the client, or
    /// `nil` when the transport enforces all it has (it then runs in the caller's task, with no
    /// task or timer of the client's). Not inlined: the attempt loop stays small.
    @inline(never)
    private func attemptGuard(
        headTimeout: Duration?, options: TransportOptions, readsBody: Bool, start: ContinuousClock.Instant,
        request: HTTPRequest
    ) -> AttemptGuard? {
        let limits = transportLimits
        let head = limits.contains(.headDeadline) ? nil : headTimeout
        // A streamed body's waits are timed by the stream, after the attempt.
        let idle = limits.contains(.idleTimeout) || !readsBody ? nil : options.idleTimeout
        let body = limits.contains(.bodyDeadline) ? nil : options.bodyDeadline
        guard head != nil || idle != nil || body != nil else { return nil }
        return AttemptGuard(
            headTimeout: head, idleTimeout: idle, bodyDeadline: body, start: start, scheduler: deadlines,
            request: request)
    }

    /// The final head of a guarded attempt arrived: its body, when it arrives in chunks, is
    /// read with each wait watched.
    @inline(never)
    private static func watchBody(of response: inout TransportResponse, with attemptGuard: AttemptGuard) {
        attemptGuard.headArrived()
        guard attemptGuard.watchesBody, let body = response.body, case .stream = body.source else { return }
        response.body = attemptGuard.watching(body)
    }

    private nonisolated(nonsending) static func sleep(_ wait: Duration, request: HTTPRequest) async throws {
        if wait > .zero {
            try await Task.sleep(for: wait)
        } else {
            try Task.checkCancellation()
        }
    }

    static func seconds(_ elapsed: Duration) -> TimeInterval {
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }
}
