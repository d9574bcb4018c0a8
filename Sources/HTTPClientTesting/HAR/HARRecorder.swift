import Foundation
import HTTPClient
import HTTPCore

/// A transport that records every exchange it passes to another transport, for a HAR 1.2
/// file (the format browsers' developer tools export) that ``HARReplayTransport`` can serve
/// in tests.
///
/// Put it beneath a `Client`: it sees each request as sent (every redirect hop and retry
/// is an entry of its own) and records, in the order the responses arrive:
/// - the request head, and its body when it can be read again (bytes in memory, a file, a
///   replayable stream) and is at most `bodyLimit` bytes. A one-shot stream is sent as it
///   is and not kept;
/// - the response head, and its body as the caller reads it: the body still streams to the
///   caller, and the recorder keeps a copy of at most `bodyLimit` bytes. A body longer than
///   that is not kept at all (no truncated text): its `content` has its size, no `text`,
///   and a `comment` saying why. A body the caller never reads to its end is noted so.
///
/// Secrets stay out of the file:
/// - the values of ``credentialFields`` (`Authorization`, `Proxy-Authorization`, `Cookie`,
///   `Set-Cookie`, and the API-key fields `X-Api-Key`, `Api-Key`, `X-Auth-Token`) and of the
///   fields named in `redacting` become ``redactionMarker`` (the cookie lists keep names only);
/// - URLs are written as `URLRedaction` shows them, with their password hidden and each
///   secret query value (`access_token`, `code`, `password`, …, see
///   `URLRedaction.secretQueryNames`) written as a fingerprint: `***~` and four hex digits;
/// - in JSON bodies (a media type `…/json` or `…+json`) and form bodies, both ways, the values
///   of members and pairs with those secret names (`password`, `access_token`,
///   `refresh_token`, `id_token`, `client_secret`, …) are written the same way, at any depth.
///
/// A fingerprint is a keyed function of the value, its key the recorder's
/// ``fingerprintKey`` (random unless given), which is never written to the file: within one
/// recording equal values have equal fingerprints and different ones differ (but for 1 in
/// 65,536), so a reader can tell two redacted values apart, while whoever holds the file
/// cannot check a guess of a password against it, and the same secret looks different in
/// two recordings. ``HARReplayTransport`` given the key tells apart two requests that differ
/// only in a secret (`?token=page-1` and `?token=page-2`); see ``HARFingerprintKey``. The
/// file is created readable by its owner only (`0600`), never briefly readable by others.
///
/// An exchange that fails before its response head arrives is not recorded. Timings hold
/// `wait` (until the head) and `receive` (until the body ended); `send` is 0, as transports
/// do not report it. The protocol version is the response's `version` (`HTTP/2`, say), which
/// the AsyncHTTPClient transport reports. When the transport does not tell (URLSession
/// does not), request and response record ``unknownVersion``, `unknown`: HAR 1.2 requires the
/// field, browsers' own exports write such a protocol name when they lack one, and no
/// version is guessed; ``HARReplayTransport`` replays it as a response without a version.
///
/// ```swift
/// let recorder = HARRecorder(wrapping: URLSessionTransport(), redacting: [try HTTPFieldName("X-Api-Key")])
/// let client = Client(baseURL: baseURL, transport: recorder)
/// _ = try await client.send(HTTPRequest(url: URL(string: "json")!))
/// let file = FileManager.default.temporaryDirectory.appendingPathComponent("session.har")
/// try recorder.write(to: file)
/// print(recorder.entries.map(\.response.status))  // [200]
/// ```
public final class HARRecorder: ClientTransport {
    /// What replaces a redacted value: `***`, as in `URLRedaction`.
    public static let redactionMarker = "***"

    /// The `httpVersion` recorded when the transport does not report the protocol version:
    /// `unknown`.
    public static let unknownVersion = "unknown"

    /// The fields whose values are always redacted: `Authorization`, `Proxy-Authorization`,
    /// `Cookie`, `Set-Cookie`, and the API-key fields `X-Api-Key`, `Api-Key` and `X-Auth-Token`.
    public static let credentialFields: Set<HTTPFieldName> = [
        .authorization, .proxyAuthorization, .cookie, .setCookie,
        // swift-format-ignore: NeverUseForceTry
        // Valid tokens, spelled here.
        try! HTTPFieldName("X-Api-Key"), try! HTTPFieldName("Api-Key"), try! HTTPFieldName("X-Auth-Token"),
    ]

    /// The transport that sends the requests.
    public let transport: any ClientTransport
    /// The fields whose values are redacted: ``credentialFields`` and those chosen.
    public let redactedFields: Set<HTTPFieldName>
    /// The most bytes of one body kept; a longer body is not kept.
    public let bodyLimit: Int
    /// The key of this recording's fingerprints of secret values, never written to the file.
    public let fingerprintKey: HARFingerprintKey

    private let recorded = Locked<[HARLog.Entry]>([])

    /// Creates a recorder around `transport`.
    /// - Parameters:
    ///   - transport: The transport that sends the requests.
    ///   - fields: More fields whose values to redact, besides ``credentialFields``.
    ///   - bodyLimit: The most bytes of one request or response body to keep; 1 MiB by
    ///     default. A longer body is not kept.
    ///   - fingerprintKey: The key of the fingerprints of secret values; a new random one by
    ///     default. Pass one you keep as a secret to replay with it (see ``HARFingerprintKey``).
    public init(
        wrapping transport: any ClientTransport, redacting fields: [HTTPFieldName] = [], bodyLimit: Int = 1 << 20,
        fingerprintKey: HARFingerprintKey = .random()
    ) {
        self.transport = transport
        self.redactedFields = Self.credentialFields.union(fields)
        self.bodyLimit = max(0, bodyLimit)
        self.fingerprintKey = fingerprintKey
    }

    /// The limits the wrapped transport enforces itself.
    public var enforcedLimits: TransportLimits { transport.enforcedLimits }

    /// The exchanges recorded so far, in the order their responses arrived; an entry whose
    /// body is still being read shows what has arrived.
    public var entries: [HARLog.Entry] { recorded.withLock { $0 } }

    /// The recorded exchanges as a HAR log, its creator `Heron`.
    public var log: HARLog {
        var log = HARLog(creator: HARLog.Creator(name: "Heron", version: "1.0"), entries: entries)
        log.keyedFingerprints = true
        return log
    }

    /// The HAR file of the exchanges recorded so far: JSON with sorted keys, pretty printed.
    /// - Returns: The file's bytes.
    /// - Throws: `EncodingError` when the log cannot be written as JSON.
    public func harData() throws -> Data { try log.fileData() }

    /// Writes the HAR file of the exchanges recorded so far to `url`, through a temporary
    /// file renamed into place, so a reader never sees half a file. Bodies may be in it: the
    /// temporary file is created `0600` (readable by its owner only), so the file never is
    /// readable by others, not even while it is written.
    /// - Parameter url: A `file:` URL; an existing file is replaced.
    /// - Throws: `EncodingError`; `ClientError.Code.fileWriteFailed` naming the path when it
    ///   cannot be written (nothing is left behind).
    public func write(to url: URL) throws {
        let data = try harData()
        let file = try PartialFile<ClientError>(destination: url, mode: 0o600) { problem in
            ClientError(
                .fileWriteFailed, "the HAR file \(problem.path): \(problem.reason)",
                underlying: problem.underlyingError)
        }
        try file.write(data)
        _ = try file.commit()
    }

    /// Sends `request` with the wrapped transport and records the exchange.
    /// - Parameters:
    ///   - request: The request.
    ///   - options: Passed on to the wrapped transport.
    /// - Returns: The wrapped transport's response, its body recorded as it is read.
    /// - Throws: Whatever the wrapped transport throws.
    public func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
        let started = Date()
        let clock = ContinuousClock()
        let start = clock.now
        let harRequest = await record(request)
        let response = try await transport.send(request, options: options)
        let headArrived = clock.now
        let wait = Self.milliseconds(start.duration(to: headArrived))
        var entry = HARLog.Entry(
            startedDateTime: started.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)),
            time: wait, request: harRequest, response: record(response.head, answering: request),
            timings: HARLog.Timings(send: 0, wait: wait, receive: 0))
        // The request went over the connection the response came back on.
        entry.request.httpVersion = entry.response.httpVersion
        let index = recorded.withLock {
            $0.append(entry)
            return $0.count - 1
        }
        // No body, or an empty one (a redirect's, which the client drops unread): done now.
        guard let body = response.body, body.length != .known(0) else {
            finish(index, kept: Data(), size: 0, note: nil, receive: 0)
            return response
        }
        finish(index, kept: nil, size: 0, note: "the body was not read to its end", receive: 0)
        let sink = BodySink(limit: bodyLimit, clock: clock, headArrived: headArrived) { outcome in
            self.finish(
                index, kept: outcome.kept, size: outcome.size, note: outcome.note,
                receive: Self.milliseconds(outcome.receive))
        }
        let recording = HTTPBody(
            length: body.length, iterationBehavior: body.iterationBehavior,
            makeSequence: { WatchedChunks(chunks: body.chunks(), watcher: sink) },
            trailerFields: { body.trailerFields })
        return TransportResponse(
            head: response.head, body: recording, bytesSent: response.bytesSent, waited: response.waited,
            proxy: response.proxy)
    }

    /// Sets the content of entry `index` once its body ended, failed or was left unread.
    private func finish(_ index: Int, kept: Data?, size: Int, note: String?, receive: Double) {
        recorded.withLock { entries in
            var entry = entries[index]
            let mimeType = entry.response.content.mimeType
            var content = HARLog.Content(size: size, mimeType: mimeType, comment: note)
            if let kept {
                if let text = String(data: kept, encoding: .utf8) {
                    // A token response's `access_token`, `refresh_token` and `id_token` stay out.
                    content.text = fingerprintKey.keyed(Self.redactedBody(text, mimeType: mimeType))
                } else {
                    content.text = kept.base64EncodedString()
                    content.encoding = "base64"
                }
            }
            entry.response.content = content
            let encoded = entry.response.headers.contains {
                $0.name.lowercased() == "content-encoding" && $0.value.lowercased() != "identity"
            }
            entry.response.bodySize = encoded ? -1 : size
            entry.timings.receive = receive
            entry.time = ((entry.timings.send + entry.timings.wait + receive) * 1000).rounded() / 1000
            entries[index] = entry
        }
    }

    /// The request's HAR form; its body is read when it can be read again and is short enough.
    private func record(_ request: HTTPRequest) async -> HARLog.Request {
        // HAR 1.2 records the URL without its fragment.
        var components = URLComponents(url: request.url, resolvingAgainstBaseURL: true)
        components?.fragment = nil
        let url = fingerprintKey.keyed(URLRedaction.displayFingerprinted(components?.url ?? request.url))
        var postData: HARLog.PostData?
        var bodySize = 0
        if let body = request.body {
            let mimeType = request.headerFields[.contentType] ?? ""
            if case .known(let count) = body.length { bodySize = Int(count) } else { bodySize = -1 }
            postData = await Self.postData(of: body, mimeType: mimeType, limit: bodyLimit)
            if postData?.encoding == nil, let text = postData?.text { postData?.text = fingerprintKey.keyed(text) }
        }
        let query = URLComponents(string: url)?.queryItems ?? []
        return HARLog.Request(
            method: request.method.rawValue, url: url, httpVersion: Self.unknownVersion,
            cookies: cookies(in: request.headerFields[values: .cookie], setting: false),
            headers: redacted(request.headerFields),
            queryString: query.map { HARLog.NameValue(name: $0.name, value: $0.value ?? "") }, postData: postData,
            bodySize: bodySize)
    }

    private static func postData(of body: HTTPBody, mimeType: String, limit: Int) async -> HARLog.PostData {
        guard body.isReplayable else {
            return HARLog.PostData(mimeType: mimeType, text: "", comment: "a one-shot stream body, not kept")
        }
        if case .known(let count) = body.length, count > Int64(limit) {
            return HARLog.PostData(
                mimeType: mimeType, text: "", comment: "a body of \(count) bytes, not kept: over the limit of \(limit)")
        }
        do {
            let data = try await body.collect(upTo: limit)
            if let text = String(data: data, encoding: .utf8) {
                // A form's or a JSON body's secrets (a password, a client secret, a refresh
                // token) stay out.
                return HARLog.PostData(mimeType: mimeType, text: redactedBody(text, mimeType: mimeType))
            }
            return HARLog.PostData(mimeType: mimeType, text: data.base64EncodedString(), encoding: "base64")
        } catch {
            return HARLog.PostData(mimeType: mimeType, text: "", comment: "the body was not kept: \(error)")
        }
    }

    /// The response head's HAR form, its content empty until the body ends.
    private func record(_ head: HTTPResponse, answering request: HTTPRequest) -> HARLog.Response {
        let redirect = head.headerFields[.location].map(Self.redactedURL) ?? ""
        return HARLog.Response(
            status: head.status.code, statusText: head.status.reasonPhrase,
            httpVersion: head.version?.description ?? Self.unknownVersion,
            cookies: cookies(in: head.headerFields[values: .setCookie], setting: true),
            headers: redacted(head.headerFields),
            content: HARLog.Content(size: 0, mimeType: head.headerFields[.contentType] ?? ""), redirectURL: redirect,
            bodySize: 0)
    }

    private func redacted(_ fields: HTTPFields) -> [HARLog.NameValue] {
        fields.map { field in
            let value: String
            if redactedFields.contains(field.name) {
                value = Self.redactionMarker
            } else if Self.urlFields.contains(field.name) {
                value = Self.redactedURL(field.value)
            } else {
                value = field.value
            }
            return HARLog.NameValue(name: field.name.rawName, value: value)
        }
    }

    /// A body's text as the file holds it: a JSON or form body with its secret-named values
    /// fingerprinted (see the type's overview), or hidden as `***` without `fingerprinting`;
    /// any other text as it is.
    static func redactedBody(_ text: String, mimeType: String, fingerprinting: Bool = true) -> String {
        guard let type = try? MediaType(parsing: mimeType) else { return text }
        if type.subtype == "json" || type.subtype.hasSuffix("+json") {
            return URLRedaction.redactingBody(text, json: true, fingerprinting: fingerprinting)
        }
        if type.essence == MediaType.formURLEncoded.essence {
            return URLRedaction.redactingBody(text, json: false, fingerprinting: fingerprinting)
        }
        return text
    }

    /// Fields whose value is a URL, which may carry a password or a secret query value.
    static let urlFields: Set<HTTPFieldName> = [.location, .referer, try! HTTPFieldName("Content-Location")]

    /// A URL field's value with its secrets hidden; the marker when it is not a URL.
    static func redactedURL(_ value: String) -> String {
        guard let url = URL(string: value) else { return redactionMarker }
        return URLRedaction.display(url)
    }

    /// The cookies of `Cookie` values (`a=1; b=2`) or `Set-Cookie` values (`a=1; Path=/`),
    /// names kept and values redacted.
    private func cookies(in values: [String], setting: Bool) -> [HARLog.Cookie] {
        values.flatMap { value -> [HARLog.Cookie] in
            let pairs = value.split(separator: ";")
            return (setting ? Array(pairs.prefix(1)) : pairs).compactMap { pair in
                let name = pair.split(separator: "=", maxSplits: 1).first?.trimmingCharacters(in: .whitespaces) ?? ""
                return name.isEmpty ? nil : HARLog.Cookie(name: name, value: Self.redactionMarker)
            }
        }
    }

    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return ((Double(seconds) * 1000 + Double(attoseconds) / 1e15) * 1000).rounded() / 1000
    }
}

/// Keeps the first bytes of a response body as its reader takes them, and reports once when
/// the body ends or fails.
final class BodySink: ChunkWatcher {
    /// What was read: the bytes kept (`nil` when over the limit or failed), the size read,
    /// a note, and how long the body took.
    struct Outcome {
        var kept: Data?
        var size: Int
        var note: String?
        var receive: Duration
    }

    private struct State {
        var kept = Data()
        var size = 0
        var over = false
        var done = false
    }

    private let limit: Int
    private let clock: ContinuousClock
    private let headArrived: ContinuousClock.Instant
    private let report: @Sendable (Outcome) -> Void
    private let state = Locked(State())

    init(
        limit: Int, clock: ContinuousClock, headArrived: ContinuousClock.Instant,
        report: @escaping @Sendable (Outcome) -> Void
    ) {
        self.limit = limit
        self.clock = clock
        self.headArrived = headArrived
        self.report = report
    }

    /// Keeps `chunk` while the body stays within the limit.
    func take(_ chunk: Data) {
        state.withLock { state in
            guard !state.done else { return }
            state.size += chunk.count
            if state.size > limit {
                state.over = true
                state.kept = Data()
            } else if !state.over {
                state.kept.append(chunk)
            }
        }
    }

    /// Reports the body's end, or its failure with `error`; only the first report counts.
    func end(failure error: (any Error)?) {
        let outcome: Outcome? = state.withLock { state in
            guard !state.done else { return nil }
            state.done = true
            let receive = headArrived.duration(to: clock.now)
            if let error {
                return Outcome(
                    kept: nil, size: state.size, note: "the body failed after \(state.size) bytes: \(error)",
                    receive: receive)
            }
            if state.over {
                return Outcome(
                    kept: nil, size: state.size,
                    note: "a body of \(state.size) bytes, not kept: over the limit of \(limit)", receive: receive)
            }
            return Outcome(kept: state.kept, size: state.size, note: nil, receive: receive)
        }
        if let outcome { report(outcome) }
    }
}
