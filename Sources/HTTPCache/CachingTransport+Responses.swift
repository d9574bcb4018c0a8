import Foundation
import HTTPClient
import HTTPCore

extension CachingTransport {
    // MARK: Serving stored responses

    /// `entry` as a response to `exchange` (RFC 9111 §4): its stored head with a current
    /// `Age` (§5.1), without the fields `no-cache="…"` names unless just validated
    /// (§5.2.2.4), and its body unless the request is a `HEAD`; `nil` when the body is gone.
    func serve(
        _ entry: CacheEntry, freshness: CacheFreshness, _ exchange: CacheExchange, outcome: CacheOutcome,
        forwardStatus: Int? = nil
    ) -> TransportResponse? {
        var body: HTTPBody?
        if exchange.request.method != .head && entry.head.hasStoredBody {
            guard let stored = try? storage.body(of: entry) else { return nil }
            body = stored
        }
        var fields = entry.head.headerFields
        if outcome != .revalidated {
            for name in freshness.directives.fieldNames(of: "no-cache") {
                if let fieldName = try? HTTPFieldName(name) { fields.remove(fieldName) }
            }
        }
        fields.set(try! HTTPField(name: .age, value: String(Self.wholeSeconds(max(0, freshness.age)))))
        var head = HTTPResponse(status: entry.head.status, headerFields: fields, url: exchange.request.url)
        var status = CacheStatusValue(outcome: outcome, forwardStatus: forwardStatus)
        status.ttl = Self.wholeSeconds(freshness.lifetime - freshness.age)
        if outcome == .revalidated { status.forward = freshness.isFresh ? "request" : "stale" }
        annotate(&head, status)
        record(outcome, url: exchange.request.url)
        return TransportResponse(head: head, body: body)
    }

    /// A `504 Gateway Timeout` made by the cache (RFC 9111 §5.2.1.7, §4.2.4); marked as made
    /// by the cache, which the retry policies leave alone, only when `final` (the request
    /// allowed only the cache, so sending it again cannot change the answer).
    func unavailable(_ exchange: CacheExchange, reason: String, final: Bool = true) -> TransportResponse {
        var fields = HTTPFields()
        fields.append(try! HTTPField(name: .contentLength, value: "0"))
        var head = HTTPResponse(status: .gatewayTimeout, headerFields: fields, url: exchange.request.url)
        if final { head.markAsFinalLocalAnswer() }
        annotate(&head, CacheStatusValue(outcome: .unavailable, forward: "miss"))
        record(.unavailable, url: exchange.request.url)
        return TransportResponse(head: head, body: exchange.request.method == .head ? nil : HTTPBody.empty)
    }

    /// Adds the `Cache-Status` member of this cache, when it has a name, last (RFC 9211 §2),
    /// after dropping any member of the same name the origin or a stored response carried:
    /// an origin cannot speak for this cache.
    func annotate(_ head: inout HTTPResponse, _ status: CacheStatusValue) {
        guard let name = configuration.cacheStatusName,
            let field = try? HTTPField(name: .cacheStatus, value: status.render(name: name))
        else { return }
        let members = CacheStatusValue.members(in: head.headerFields)
        if members.contains(where: { $0.name == name }) {
            head.headerFields.remove(.cacheStatus)
            let kept = members.filter { $0.name != name }.map(\.text).joined(separator: ", ")
            if !kept.isEmpty, let others = try? HTTPField(name: .cacheStatus, value: kept) {
                head.headerFields.append(others)
            }
        }
        head.headerFields.append(field)
    }

    // MARK: Validating

    /// Sends `exchange` with the validators of `entry` (RFC 9111 §4.3.1): on `304` the stored
    /// response is freshened and served (§4.3.4); on a new response it is replaced; on an
    /// error status or no answer a stale response is served when `stale-if-error` or the
    /// offline window allow it, and a `504` when it must not be served stale (§4.2.4).
    func validate(
        _ entry: CacheEntry, freshness: CacheFreshness, _ exchange: CacheExchange, replacing: [CacheEntry]
    ) async throws -> TransportResponse {
        let conditional = Self.conditional(exchange.request, for: entry)
        let requestTime = configuration.clock.now()
        // Taken as the request goes: an invalidation before the answer is stored wins (§4.4).
        let mark = storage.removalMark()
        let response: TransportResponse
        do {
            response = try await base.send(conditional, options: exchange.options)
        } catch {
            guard !Self.isCancellation(error) else { throw error }
            let current = self.freshness(of: entry)
            if let outcome = staleOutcome(afterFailure: error, current, exchange),
                let stale = serve(entry, freshness: current, exchange, outcome: outcome)
            {
                return stale
            }
            if Self.forbidsStale(current.directives) {
                // RFC 9111 §4.2.4: a 504, not the stale response; not marked as final, since
                // the failure was the origin's and a retry may well reach it.
                return unavailable(exchange, reason: "the origin could not be reached to validate", final: false)
            }
            throw error
        }
        let responseTime = configuration.clock.now()
        let code = response.head.status.code
        if code == 304 {
            let updated = Self.freshened(
                entry, with: response.head, requestTime: requestTime, responseTime: responseTime)
            try? storage.update(updated)
            configuration.observer?(CacheEvent(kind: .freshened, url: exchange.request.url))
            if let served = serve(
                updated, freshness: self.freshness(of: updated), exchange, outcome: .revalidated, forwardStatus: 304)
            {
                return served
            }
            return try await fetch(exchange, replacing: replacing, outcome: .miss, forward: "miss")
        }
        if exchange.request.method == .head {
            return answerHead(
                response, exchange, requestTime, responseTime, outcome: .miss,
                forward: freshness.isFresh ? "request" : "stale")
        }
        if CacheRules.errorStatuses.contains(code) {
            let current = self.freshness(of: entry)
            if let window = Self.staleIfErrorWindow(current.directives, exchange.directives),
                !Self.forbidsStale(current.directives), current.staleness <= window,
                let stale = serve(entry, freshness: current, exchange, outcome: .staleIfError)
            {
                return stale
            }
        }
        return try await store(
            response, exchange, requestTime: requestTime, responseTime: responseTime, mark: mark,
            replacing: replacing, outcome: .miss, forward: freshness.isFresh ? "request" : "stale")
    }

    /// `request` with `If-None-Match` from the stored `ETag` and `If-Modified-Since` from the
    /// stored `Last-Modified` (RFC 9111 §4.3.1).
    static func conditional(_ request: HTTPRequest, for entry: CacheEntry) -> HTTPRequest {
        var conditional = request
        let fields = entry.head.headerFields
        if let tag = fields[values: .eTag].first, let field = try? HTTPField(name: .ifNoneMatch, value: tag) {
            conditional.headerFields.set(field)
        }
        if let modified = fields[values: .lastModified].first,
            let field = try? HTTPField(name: .ifModifiedSince, value: modified)
        {
            conditional.headerFields.set(field)
        }
        return conditional
    }

    /// The stale outcome allowed after the origin failed to answer: `stale-if-error` within
    /// its window (RFC 5861 §4), else the offline window for a connection failure; never for
    /// a response that forbids stale use.
    func staleOutcome(
        afterFailure error: any Error, _ freshness: CacheFreshness, _ exchange: CacheExchange
    )
        -> CacheOutcome?
    {
        guard !Self.forbidsStale(freshness.directives) else { return nil }
        if let window = Self.staleIfErrorWindow(freshness.directives, exchange.directives),
            freshness.staleness <= window
        {
            return .staleIfError
        }
        if let offline = configuration.offlineWindow, Self.isConnectivityFailure(error),
            freshness.staleness <= Self.seconds(offline)
        {
            return .offline
        }
        return nil
    }

    /// The longer `stale-if-error` window of the response and the request, in seconds.
    static func staleIfErrorWindow(_ response: CacheDirectives, _ request: CacheDirectives) -> Double? {
        let windows = [response.seconds("stale-if-error"), request.seconds("stale-if-error")].compactMap { $0 }
        guard !windows.isEmpty else { return nil }
        return Double(windows.map(\.secondsOrZero).max() ?? 0)
    }

    static func isCancellation(_ error: any Error) -> Bool {
        if error is CancellationError { return true }
        if let error = error as? ClientError, error.code == .cancelled { return true }
        return Task.isCancelled
    }

    /// Whether `error` says the origin could not be reached or stopped answering.
    static func isConnectivityFailure(_ error: any Error) -> Bool {
        guard let error = error as? ClientError else { return false }
        return [.cannotConnect, .connectionLost, .timedOut, .transport, .invalidResponse].contains(error.code)
    }

    // MARK: Freshening

    /// `entry` with the header fields of `response` (a `304`, or a `HEAD` response) laid over
    /// its own (RFC 9111 §3.2, §4.3.4): each field `response` carries replaces the stored
    /// ones of that name, but `Content-Length` and the fields never stored; the request and
    /// response times become those of the validation.
    static func freshened(
        _ entry: CacheEntry, with response: HTTPResponse, requestTime: Date, responseTime: Date
    )
        -> CacheEntry
    {
        var updated = entry
        var fields = entry.head.headerFields
        let skipped = CacheRules.fieldsKeptOnUpdate.union(response.headerFields.connectionListed)
        var replaced = Set<HTTPFieldName>()
        for field in response.headerFields where !skipped.contains(field.name.canonicalName) {
            if replaced.insert(field.name).inserted { fields.remove(field.name) }
            fields.append(field)
        }
        // A response without Date is dated when received (RFC 9110 §6.6.1): the stored Date
        // would otherwise make the entry as old as it was before the validation.
        if !response.headerFields.contains(.date) {
            fields.set(try! HTTPField(name: .date, value: HTTPDate.format(responseTime)))
        }
        updated.head.headerFields = fields
        updated.requestTime = requestTime
        updated.responseTime = responseTime
        return updated
    }

    /// Freshens the stored `GET` responses a `200` to a `HEAD` request matches (RFC 9111
    /// §4.3.5), selected as for a `304` (§4.3.4): those with its strong `ETag`; else with its
    /// `Last-Modified`; else, when neither it nor the one stored response has a validator,
    /// that response. A selected response whose `Content-Length` differs from the new one's
    /// is out of date and dropped instead.
    /// - Returns: The freshened entry the response to the `HEAD` is made from, if any.
    func freshen(
        from head: HTTPResponse, _ exchange: CacheExchange, requestTime: Date, responseTime: Date
    )
        -> CacheEntry?
    {
        guard head.status.code == 200, let entries = try? storage.entries(for: exchange.key) else { return nil }
        let candidates = entries.filter { VaryRule.matches($0, exchange.request.headerFields) }
        let selected = Self.selectForUpdate(candidates, by: head)
        var result: CacheEntry?
        for entry in selected {
            if let length = head.contentLength, let stored = entry.head.contentLength, length != stored {
                try? storage.remove([entry.id], for: exchange.key)
                continue
            }
            let updated = Self.freshened(entry, with: head, requestTime: requestTime, responseTime: responseTime)
            try? storage.update(updated)
            configuration.observer?(CacheEvent(kind: .freshened, url: exchange.request.url))
            result = result ?? updated
        }
        return result
    }

    /// The stored responses a validating response selects for update (RFC 9111 §4.3.4).
    static func selectForUpdate(_ entries: [CacheEntry], by response: HTTPResponse) -> [CacheEntry] {
        let tag = response.headerFields[values: .eTag].first
        if let tag, !tag.hasPrefix("W/") {
            return entries.filter { $0.head.headerFields[values: .eTag].first == tag }
        }
        if let modified = response.headerFields[values: .lastModified].first {
            return entries.filter { $0.head.headerFields[values: .lastModified].first == modified }
        }
        if tag == nil, entries.count == 1,
            !entries[0].head.headerFields.contains(.eTag), !entries[0].head.headerFields.contains(.lastModified)
        {
            return entries
        }
        return []
    }

    // MARK: Fetching and storing

    /// Sends `exchange` as it is and stores the response when allowed, superseding
    /// `replacing`; a `HEAD` response freshens stored `GET` responses instead, and a `304`
    /// to the caller's own conditional request freshens what it names.
    func fetch(
        _ exchange: CacheExchange, replacing: [CacheEntry], outcome: CacheOutcome, forward: String
    )
        async throws -> TransportResponse
    {
        let requestTime = configuration.clock.now()
        // Taken as the request goes: an invalidation before the answer is stored wins (§4.4).
        let mark = storage.removalMark()
        var response = try await base.send(exchange.request, options: exchange.options)
        let responseTime = configuration.clock.now()
        if exchange.request.method == .head {
            return answerHead(response, exchange, requestTime, responseTime, outcome: outcome, forward: forward)
        }
        if response.head.status.code == 304 {
            freshenAfterConditional(response.head, exchange, requestTime, responseTime)
            annotate(&response.head, CacheStatusValue(outcome: outcome, forwardStatus: 304, forward: forward))
            record(outcome, url: exchange.request.url)
            return response
        }
        return try await store(
            response, exchange, requestTime: requestTime, responseTime: responseTime, mark: mark,
            replacing: replacing, outcome: outcome, forward: forward)
    }

    /// The response to a `HEAD` from the origin: when it freshens a stored `GET` response
    /// (§4.3.5), that response's head as freshened, which keeps the stored fields the `HEAD`
    /// response left out; else the origin's head as it is.
    func answerHead(
        _ response: TransportResponse, _ exchange: CacheExchange, _ requestTime: Date, _ responseTime: Date,
        outcome: CacheOutcome, forward: String
    ) -> TransportResponse {
        var response = response
        if let updated = freshen(from: response.head, exchange, requestTime: requestTime, responseTime: responseTime) {
            response.head.headerFields = updated.head.headerFields
        }
        annotate(
            &response.head,
            CacheStatusValue(outcome: outcome, forwardStatus: response.head.status.code, forward: forward))
        record(outcome, url: exchange.request.url)
        return response
    }

    /// A `304` to the caller's own conditional request freshens the stored responses with its
    /// strong `ETag` (RFC 9111 §4.3.4).
    private func freshenAfterConditional(
        _ head: HTTPResponse, _ exchange: CacheExchange, _ requestTime: Date, _ responseTime: Date
    ) {
        guard let tag = head.headerFields[values: .eTag].first, !tag.hasPrefix("W/"),
            let entries = try? storage.entries(for: exchange.key)
        else { return }
        for entry in entries where entry.head.headerFields[values: .eTag].first == tag {
            try? storage.update(Self.freshened(entry, with: head, requestTime: requestTime, responseTime: responseTime))
        }
    }

    /// `response` passed on, and stored as its body arrives when RFC 9111 §3 allows it and
    /// nothing of its URI was removed since its request was sent (`mark`, the storage's
    /// ``CacheStorage/removalMark()`` then): a response requested before an unsafe request
    /// invalidated the URI (RFC 9111 §4.4) is passed on, never stored. The body of a redirect
    /// (a `3xx` with `Location`, at most 64 KiB) is read at once: the client follows the
    /// redirect without reading it, and a redirect is cached per hop.
    /// - Throws: The error of reading a redirect's body.
    func store(
        _ response: TransportResponse, _ exchange: CacheExchange, requestTime: Date, responseTime: Date,
        mark: UInt64, replacing: [CacheEntry], outcome: CacheOutcome, forward: String, counted: Bool = true
    ) async throws -> TransportResponse {
        var response = response
        var status = CacheStatusValue(outcome: outcome, forwardStatus: response.head.status.code, forward: forward)
        defer { if counted { record(outcome, url: exchange.request.url) } }
        guard Self.isStorable(response.head, for: exchange.request, requestDirectives: exchange.directives) else {
            annotate(&response.head, status)
            return response
        }
        var entry = CacheEntry(
            key: exchange.key, head: Self.storedHead(response.head),
            requestTime: requestTime, responseTime: responseTime)
        entry.varyValues = VaryRule.values(of: entry.varyNames, in: exchange.request.headerFields)
        // The entries this one replaces (its variant); which other variants stay is decided
        // when it is committed (`pruneVariants`), when every store begun beside it can be seen.
        let superseded = replacing.map(\.id)
        guard let writer = try? storage.makeWriter(for: entry, replacing: superseded, since: mark) else {
            annotate(&response.head, status)
            return response
        }
        status.stored = true
        annotate(&response.head, status)
        let url = exchange.request.url
        let observer = configuration.observer
        let key = exchange.key
        let finished: @Sendable (Bool) -> Void = { [self] stored in
            if stored {
                statistics.withLock { $0.stores += 1 }
                pruneVariants(of: key)
            }
            observer?(CacheEvent(kind: stored ? .stored : .notStored, url: url))
        }
        guard let body = response.body else {
            do {
                try writer.commit()
                finished(true)
            } catch {
                finished(false)
            }
            return response
        }
        let expected: Int64? = response.head.decodedBodyLength
        if (300..<400).contains(response.head.status.code), response.head.headerFields.contains(.location),
            case .known(let length) = body.length, length <= Self.redirectBodyLimit
        {
            let data: Data
            do {
                data = try await body.collect(upTo: Int(Self.redirectBodyLimit))
                try writer.write(data)
            } catch {
                writer.discard()
                finished(false)
                throw error
            }
            response.body = HTTPBody(data)
            // A body shorter or longer than announced is passed on, never stored.
            guard Int64(data.count) == length, expected.map({ $0 == length }) ?? true else {
                writer.discard()
                finished(false)
                return response
            }
            do {
                try writer.commit()
                finished(true)
            } catch {
                finished(false)
            }
            return response
        }
        response.body = HTTPBody(
            length: body.length, iterationBehavior: .single,
            makeSequence: { StoringChunks(body: body, writer: writer, expected: expected, finished: finished) },
            trailerFields: { body.trailerFields })
        return response
    }

    /// Decides replacement once an entry of `key` is committed, when every concurrent store
    /// of the key can be seen: of the entries with the same selecting field values (one
    /// variant) only the newest stays, and of the variants the ``CacheConfiguration/variantLimit``
    /// newest. What `store` chose to replace when it began cannot see the stores begun beside
    /// it (16 concurrent misses for one URL stored 16 copies). Every store that commits makes
    /// the same choice, in the same order, so concurrent prunes agree.
    func pruneVariants(of key: CacheKey) {
        guard let entries = try? storage.entries(for: key), entries.count > 1 else { return }
        var variants = Set<[String: String]>()
        var surplus: [String] = []
        for entry in entries.sorted(by: Self.newerFirst) {
            if variants.count >= configuration.variantLimit || !variants.insert(entry.varyValues).inserted {
                surplus.append(entry.id)
            }
        }
        // Not `remove`, which would also void the stores of the key still in flight.
        if !surplus.isEmpty { try? storage.removeReplaced(surplus, for: key) }
    }

    /// Whether RFC 9111 §3 lets this private cache store `head`, the answer to `request`: a
    /// `GET` without a body, `If-Match`, `If-Unmodified-Since` or `If-Range`; a final status other than `206` and `304`; no `no-store` in the request or the
    /// response (but `must-understand` with a status this cache implements overrides it,
    /// §5.2.2.3, and without one forbids storing); no `Vary: *`; and explicit freshness,
    /// `public`, `private`, or a heuristically cacheable status with a validator or a
    /// `Last-Modified` to compute freshness from.
    static func isStorable(
        _ head: HTTPResponse, for request: HTTPRequest, requestDirectives: CacheDirectives
    )
        -> Bool
    {
        let code = head.status.code
        guard request.method == .get, code >= 200, code != 206, code != 304 else { return false }
        // A GET with a body may mean something else than the plain GET it would be served for
        // (RFC 9110 §9.3.1); a response to If-Match, If-Unmodified-Since or If-Range depends
        // on a precondition a later plain GET does not carry (RFC 9110 §13.2).
        guard request.body == nil, !HTTPFieldName.unservedPreconditions.contains(where: request.headerFields.contains)
        else { return false }
        guard !requestDirectives.has("no-store") else { return false }
        let directives = CacheDirectives(head.headerFields)
        if directives.has("must-understand") {
            guard CacheRules.understoodStatuses.contains(code) else { return false }
        } else if directives.has("no-store") {
            return false
        }
        let varyNames = VaryRule.names(in: head.headerFields)
        guard !varyNames.contains("*"), varyNames.count <= VaryRule.nameLimit else { return false }
        let fields = head.headerFields
        if directives.has("max-age") || fields.contains(.expires) || directives.has("public")
            || directives.has("private")
        {
            return true
        }
        return CacheRules.heuristicallyCacheable.contains(code)
            && (fields.contains(.eTag) || fields.contains(.lastModified))
    }

    /// The head as stored: without `Connection`, the fields it lists and the other fields a
    /// cache must not store (RFC 9111 §3.1), and without its URL, which may hold a token or a
    /// password (an answer served from the entry takes the URL of the request it answers).
    static func storedHead(_ head: HTTPResponse) -> HTTPResponse {
        let skipped = CacheRules.unstoredFields.union(head.headerFields.connectionListed)
        return HTTPResponse(
            status: head.status,
            headerFields: HTTPFields(head.headerFields.filter { !skipped.contains($0.name.canonicalName) }))
    }
}

extension CachingTransport {
    /// The largest redirect body read at once to store the redirect.
    static let redirectBodyLimit: Int64 = 64 * 1024

    /// `seconds` rounded down, clamped to ±2^31 (RFC 9111 §1.2.2 caps delta-seconds there);
    /// `0` when not finite. Never traps, whatever a stored time says.
    static func wholeSeconds(_ seconds: Double) -> Int64 {
        guard seconds.isFinite else { return 0 }
        let limit = 2_147_483_648.0
        return Int64(min(limit, max(-limit, seconds)).rounded(.down))
    }
}

extension HTTPResponse {
    /// Whether a stored response of this status has a body to serve (not `204`, `304`).
    var hasStoredBody: Bool { status.code != 204 && status.code != 304 }
}
