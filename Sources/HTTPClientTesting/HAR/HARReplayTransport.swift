import Foundation
import HTTPClient
import HTTPCore

/// A transport that answers from a HAR file, such as one ``HARRecorder`` wrote or a browser's
/// developer tools exported: for tests of code that uses a `Client`, with no network.
///
/// A request is answered by the recorded entries with the same method and URL, and, with
/// `matchingBody`, the same body bytes. URLs are compared normalised: scheme and host
/// lowercased, a default port dropped, an empty path taken as `/`, the fragment dropped, the
/// query as given, and both sides redacted as ``HARRecorder`` writes them. A secret value is
/// recorded as a fingerprint (`access_token=***~1f0c`) keyed by the recorder's
/// ``HARFingerprintKey``. Given that key, the entries recorded with the very values the
/// request sends are preferred, so `?token=page-1` and `?token=page-2` get their own answers
/// in any order; without it, or when none has them, a request matches by its redacted form
/// alone (`access_token=***`), in recorded order, so a test whose token differs from the
/// recording's (a rotated one) is still answered. (A file from before fingerprints were keyed
/// is matched by its fingerprints without a key.) A JSON or form body is compared the same
/// way: as sent, or redacted as the recorder writes it. With `matchingBody`, an entry whose request body was
/// not kept (an empty `text` with a `bodySize` other than 0) matches any body.
///
/// Repeated requests are served in the recorded order: each request gets the first matching
/// entry not served yet, and once every matching entry was served, the last one again. Each
/// transport keeps its own record of what it served.
///
/// The response has the recorded status and header fields, and the recorded body (decoded
/// from base64 when its `encoding` says so; empty when it was not kept), delivered as
/// decoded: `Content-Encoding` and `Transfer-Encoding` are dropped and `Content-Length` is
/// the length served. Pseudo-header fields (`:status`) and fields that are not valid HTTP
/// are skipped. A request nothing matches fails with `ClientError.Code.noRecordedResponse`,
/// naming the request and the nearest recorded one (the same method and host first, then the
/// closest path, then the closest URL); the network is never used.
///
/// ```swift
/// let replay = try HARReplayTransport(contentsOf: harFile)
/// let client = Client(baseURL: URL(string: "https://api.example.com")!, transport: replay)
/// let response = try await client.send(HTTPRequest(url: URL(string: "users/7")!))
/// print(response.status, String(decoding: response.body, as: UTF8.self))  // 200 OK {"id":7}
/// ```
public final class HARReplayTransport: ClientTransport {
    /// The log the answers come from.
    public let log: HARLog
    /// Whether a request's body must equal the recorded one.
    public let matchesBody: Bool
    /// The key the recording's fingerprints were made with, when given.
    private let fingerprintKey: HARFingerprintKey?
    /// Whether requests are matched by their secret values' fingerprints first: with the key,
    /// or for a file whose fingerprints are not keyed.
    private let matchesFingerprints: Bool

    /// Each entry's method and normalised URL (its secret values fingerprinted, and hidden),
    /// in the log's order.
    private let keys: [(method: String, url: String, redactedURL: String)]
    /// How many times each method, URL (and body) was answered.
    /// The entries served so far, by index.
    private let served = Locked<Set<Int>>([])

    /// The most request body bytes read to compare with a recorded body.
    static let bodyReadLimit = 256 * 1024 * 1024

    /// Creates a transport answering from `log`.
    /// - Parameters:
    ///   - log: The recorded exchanges.
    ///   - matchingBody: Whether a request's body must equal the recorded one; `false` by default.
    ///   - fingerprintKey: The recorder's ``HARRecorder/fingerprintKey``, to match secret values
    ///     by their fingerprints; without it they match by their redacted form.
    public init(log: HARLog, matchingBody: Bool = false, fingerprintKey: HARFingerprintKey? = nil) {
        self.log = log
        self.matchesBody = matchingBody
        self.fingerprintKey = fingerprintKey
        self.matchesFingerprints = fingerprintKey != nil || !log.keyedFingerprints
        self.keys = log.entries.map {
            (
                $0.request.method.uppercased(), Self.normalized($0.request.url),
                Self.normalized($0.request.url, fingerprinting: false)
            )
        }
    }

    /// Creates a transport answering from the HAR file's bytes.
    /// - Parameters:
    ///   - data: The JSON of a HAR file.
    ///   - matchingBody: Whether a request's body must equal the recorded one; `false` by default.
    ///   - fingerprintKey: The recorder's ``HARRecorder/fingerprintKey``, to match secret values
    ///     by their fingerprints; without it they match by their redacted form.
    /// - Throws: `DecodingError` when it is not a HAR file.
    public convenience init(data: Data, matchingBody: Bool = false, fingerprintKey: HARFingerprintKey? = nil) throws {
        self.init(log: try HARLog(data: data), matchingBody: matchingBody, fingerprintKey: fingerprintKey)
    }

    /// Creates a transport answering from the HAR file at `url`.
    /// - Parameters:
    ///   - url: A `file:` URL of a HAR file.
    ///   - matchingBody: Whether a request's body must equal the recorded one; `false` by default.
    ///   - fingerprintKey: The recorder's ``HARRecorder/fingerprintKey``, to match secret values
    ///     by their fingerprints; without it they match by their redacted form.
    /// - Throws: The file system's error when it cannot be read; `DecodingError` when it is not
    ///   a HAR file.
    public convenience init(
        contentsOf url: URL, matchingBody: Bool = false, fingerprintKey: HARFingerprintKey? = nil
    ) throws {
        try self.init(data: Data(contentsOf: url), matchingBody: matchingBody, fingerprintKey: fingerprintKey)
    }

    /// Answers `request` with the recorded response that matches it.
    /// - Parameters:
    ///   - request: The request.
    ///   - options: Unused: the answer is at hand.
    /// - Returns: The recorded response.
    /// - Throws: `ClientError.Code.noRecordedResponse` when no entry matches, naming the
    ///   nearest; `ClientError.Code.connectionLost` for an entry a browser recorded as failed
    ///   (status 0); `ClientError.Code.invalidRequest` when the body to compare cannot be
    ///   read; `CancellationError` when the task is cancelled.
    public func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
        try Task.checkCancellation()
        let method = request.method.rawValue.uppercased()
        let url = keyed(Self.normalized(request.url.absoluteString))
        let redactedURL = Self.normalized(request.url.absoluteString, fingerprinting: false)
        var body: Data?
        if matchesBody, let requestBody = request.body {
            do {
                body = try await requestBody.collect(upTo: Self.bodyReadLimit)
            } catch {
                throw ClientError(
                    .invalidRequest, "HARReplayTransport could not read the request body: \(error)", request: request,
                    underlying: error)
            }
        }
        // The entries recorded with the same secret values first; else those alike once redacted.
        var candidates = keys.indices.filter { index in
            matchesFingerprints && keys[index].method == method && keys[index].url == url
                && (!matchesBody || self.body(body, matches: log.entries[index].request, fingerprinting: true))
        }
        if candidates.isEmpty {
            candidates = keys.indices.filter { index in
                keys[index].method == method && keys[index].redactedURL == redactedURL
                    && (!matchesBody || self.body(body, matches: log.entries[index].request, fingerprinting: false))
            }
        }
        guard !candidates.isEmpty else {
            throw ClientError(
                .noRecordedResponse, unmatchedMessage(method: method, url: redactedURL), request: request)
        }
        // The first matching entry not served yet; when all were, the last one again.
        let chosen = served.withLock { served in
            let next = candidates.first { !served.contains($0) } ?? candidates[candidates.count - 1]
            served.insert(next)
            return next
        }
        return try response(to: request, from: log.entries[chosen])
    }

    /// The recorded response as a transport response to `request`.
    private func response(to request: HTTPRequest, from entry: HARLog.Entry) throws -> TransportResponse {
        let recorded = entry.response
        let status: HTTPStatus
        do {
            // HTTP/2 has no reason phrase: browsers record an empty one.
            status = try HTTPStatus(
                code: recorded.status, reasonPhrase: recorded.statusText.isEmpty ? nil : recorded.statusText)
        } catch {
            throw ClientError(
                .connectionLost, "the recorded request failed without a response (status \(recorded.status))",
                request: request)
        }
        let skipped: Set<String> = ["content-length", "content-encoding", "transfer-encoding"]
        var fields = HTTPFields()
        // Pseudo-header fields, the framing fields, and fields the recorder redacted (an
        // `Authorization: ***` or `Set-Cookie: ***` is no value to serve).
        for header in recorded.headers
        where !header.name.hasPrefix(":") && !skipped.contains(header.name.lowercased())
            && header.value != HARRecorder.redactionMarker
        {
            if let field = try? HTTPField(name: header.name, value: header.value) { fields.append(field) }
        }
        var head = HTTPResponse(status: status, headerFields: fields, url: request.url)
        head.version = Self.version(recorded.httpVersion)
        guard head.hasBody(answering: request) else { return TransportResponse(head: head, body: nil) }
        let bytes = recorded.content.bytes
        // A decimal count is always a valid field value.
        try? head.headerFields.set(.contentLength, String(bytes.count))
        return TransportResponse(head: head, body: HTTPBody(bytes))
    }

    /// The version a HAR file names: `HTTP/1.1`, `HTTP/2`, `HTTP/2.0`, or browsers' `h2`,
    /// `h3`, `http/2.0`; `nil` for anything else (an empty string).
    static func version(_ text: String) -> HTTPVersion? {
        let lowered = text.lowercased()
        switch lowered {
        case "h2": return .http2
        case "h3": return .http3
        default: break
        }
        guard lowered.hasPrefix("http/") else { return nil }
        let numbers = lowered.dropFirst(5).split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(numbers.count), let major = Int(numbers[0]), (1...3).contains(major) else { return nil }
        let minor = numbers.count == 2 ? Int(numbers[1]) : 0
        guard let minor, (0...1).contains(minor) else { return nil }
        return HTTPVersion(major: major, minor: minor)
    }

    /// Whether the request's body (`nil` when it has none) is the recorded one, as bytes or
    /// redacted as the recorder writes a JSON or form body: its secrets fingerprinted, or
    /// (without `fingerprinting`) both sides' secrets hidden alike. A body the recorder did
    /// not keep matches any.
    private func body(_ body: Data?, matches recorded: HARLog.Request, fingerprinting: Bool) -> Bool {
        guard let postData = recorded.postData else { return body?.isEmpty ?? true }
        if postData.text.isEmpty && recorded.bodySize != 0 { return true }
        let sent = body ?? Data()
        if postData.bytes == sent { return true }
        guard postData.encoding == nil, postData.text.contains("***"), let text = String(data: sent, encoding: .utf8)
        else { return false }
        let mimeType = postData.mimeType
        if fingerprinting { return keyed(HARRecorder.redactedBody(text, mimeType: mimeType)) == postData.text }
        return HARRecorder.redactedBody(text, mimeType: mimeType, fingerprinting: false)
            == HARRecorder.redactedBody(postData.text, mimeType: mimeType, fingerprinting: false)
    }

    /// Names the unmatched request and the nearest recorded one: the same method and host
    /// first, then the path fewest edits away, then the whole URL fewest edits away.
    /// URLs are shown, and compared, with their secrets hidden as `***` (no fingerprint).
    private func unmatchedMessage(method: String, url: String) -> String {
        let request = "\(method) \(url)"
        guard !keys.isEmpty else { return "no recorded response for \(request): the HAR file holds no requests" }
        let components = URLComponents(string: url)
        let host = components?.host
        let path = components?.percentEncodedPath ?? url
        // Each distance once, on URLs cut to 2 KiB: a browser export's data: URLs run to
        // hundreds of kilobytes, and edits are counted in quadratic time.
        let nearest = keys.map { key in
            (
                (method: key.method, url: key.redactedURL),
                Self.distance((key.method, key.redactedURL), method: method, url: url, host: host, path: path)
            )
        }
        .min { $0.1 < $1.1 }?.0
        guard let nearest else { return "no recorded response for \(request)" }
        var message =
            "no recorded response for \(request); the nearest recorded request is \(nearest.method) \(nearest.url)"
        if nearest.method == method && nearest.url == url { message += ", with a different body" }
        return message
    }

    /// How far a recorded request is from the unmatched one: method, host, then the edits
    /// between the paths and between the whole URLs, compared in that order.
    private static func distance(
        _ key: (method: String, url: String), method: String, url: String, host: String?, path: String
    ) -> (Int, Int, Int, Int) {
        let recorded = URLComponents(string: key.url)
        let cut = 2048
        return (
            key.method == method ? 0 : 1, recorded?.host == host ? 0 : 1,
            editDistance(
                Array((recorded?.percentEncodedPath ?? key.url).utf8.prefix(cut)), Array(path.utf8.prefix(cut))),
            editDistance(Array(key.url.utf8.prefix(cut)), Array(url.utf8.prefix(cut)))
        )
    }

    /// The Levenshtein distance between two byte strings.
    static func editDistance(_ lhs: [UInt8], _ rhs: [UInt8]) -> Int {
        guard !lhs.isEmpty else { return rhs.count }
        var previous = Array(0...rhs.count)
        var current = previous
        for (row, left) in lhs.enumerated() {
            current[0] = row + 1
            for (column, right) in rhs.enumerated() {
                current[column + 1] = Swift.min(
                    previous[column + 1] + 1, current[column] + 1, previous[column] + (left == right ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[rhs.count]
    }

    /// `text`, a request's URL or body with its secret values fingerprinted as `URLRedaction`
    /// writes them, with those fingerprints keyed as the recorder keyed them, when the key is
    /// given.
    private func keyed(_ text: String) -> String {
        fingerprintKey.map { $0.keyed(text) } ?? text
    }

    /// `text` as a URL compared for matching: redacted (secret values fingerprinted as the
    /// recorder writes them, or, without `fingerprinting`, hidden as `***`), scheme and host
    /// lowercased (not a Unix socket's path, `http+unix://%2Frun%2Fd.sock/`), default port and fragment dropped, an empty path made `/`.
    static func normalized(_ text: String, fingerprinting: Bool = true) -> String {
        guard let url = URL(string: text) else { return text }
        let shown = fingerprinting ? URLRedaction.displayFingerprinted(url) : URLRedaction.display(url)
        guard var components = URLComponents(string: shown) else { return shown }
        let scheme = components.scheme?.lowercased()
        components.scheme = scheme
        // A Unix socket's "host" (`http+unix://%2Frun%2Fd.sock/`) is a file path: case-sensitive.
        if !(scheme?.hasSuffix("+unix") ?? false) {
            components.percentEncodedHost = components.percentEncodedHost?.lowercased()
        }
        if (scheme == "http" && components.port == 80) || (scheme == "https" && components.port == 443) {
            components.port = nil
        }
        if components.percentEncodedPath.isEmpty { components.percentEncodedPath = "/" }
        components.percentEncodedFragment = nil
        return components.string ?? shown
    }
}
