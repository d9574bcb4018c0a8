import Foundation
import HTTPCore

/// Writes each request and response to a sink, with credentials redacted.
///
/// The level sets how much: ``Level/line`` (method, URL, status, duration),
/// ``Level/headers`` (and header fields), or ``Level/bodies(limit:)`` (and up to `limit`
/// bytes of each body). `Authorization`, `Cookie`, `Set-Cookie` and
/// `Proxy-Authorization` values are always replaced by `<redacted>`, plus any names you
/// add; the password of every URL written (a request's, or a proxy's named in an error) is
/// `***`. A one-shot stream body is never read for logging, and a file body is named, not
/// read; a response body is shown only when the client buffers it.
///
/// Interceptors prepare in array order and decide in reverse: put `Logging` **last** so
/// that it logs the request as sent (with the other interceptors' fields) and sees every
/// response first.
///
/// Without a sink, messages go to standard output (each written whole, so lines of
/// concurrent calls do not interleave); pass one to send them to your logger.
///
/// ```swift
/// let logging = Logging(.headers) { line in print(line) }
/// let client = Client(baseURL: baseURL, interceptors: [BearerAuth(token: "t"), logging])
/// _ = try await client.send(HTTPRequest(url: URL(string: "get")!))
/// // -> GET http://…/get (attempt 1)
/// // Authorization: <redacted>
/// ```
public struct Logging: SynchronousInterceptor {
    /// How much to write.
    public enum Level: Sendable, Hashable {
        /// The request line and the status line.
        case line
        /// Lines and header fields.
        case headers
        /// Lines, header fields, and up to `limit` bytes of each body.
        case bodies(limit: Int)
    }

    /// The fields whose values are always redacted.
    public static let redactedFields: Set<HTTPFieldName> = [.authorization, .cookie, .setCookie, .proxyAuthorization]

    /// How much is written.
    public let level: Level
    /// The field names redacted: ``redactedFields`` and the ones added at creation.
    public let redacted: Set<HTTPFieldName>
    /// Query parameter names whose values are hidden, besides
    /// `URLRedaction.hiddenQueryNames`; a URL's password is always hidden.
    public let secretQueryNames: Set<String>
    private let sink: @Sendable (String) -> Void

    /// Creates the interceptor.
    /// - Parameters:
    ///   - level: How much to write; ``Level/line`` by default.
    ///   - redacting: More field names to redact, besides ``redactedFields``.
    ///   - secretQueryNames: More query parameter names whose values are hidden.
    ///   - sink: Receives one message per request or response (lines joined by `\n`);
    ///     by default each is printed to standard output.
    public init(
        _ level: Level = .line, redacting: Set<HTTPFieldName> = [], secretQueryNames: Set<String> = [],
        sink: @escaping @Sendable (String) -> Void = { print($0) }
    ) {
        self.level = level
        self.redacted = Self.redactedFields.union(redacting)
        self.secretQueryNames = secretQueryNames
        self.sink = sink
    }

    /// Logs the request as prepared by the interceptors before this one.
    /// - Parameters:
    ///   - request: The request, unchanged.
    ///   - context: The attempt's context.
    public func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) throws {
        var lines = [
            "-> \(request.method) \(URLRedaction.display(request.url, hiding: secretQueryNames)) (attempt \(context.attempt))"
        ]
        if level != .line { lines += fieldLines(request.headerFields) }
        if case .bodies(let limit) = level, let body = request.body { lines.append(describe(body, limit: limit)) }
        sink(lines.joined(separator: "\n"))
    }

    /// Logs the response or the failure; changes nothing.
    /// - Parameters:
    ///   - outcome: The attempt's outcome.
    ///   - context: The attempt's context.
    /// - Returns: ``InterceptorDecision/proceed``.
    public func decide(_ outcome: AttemptOutcome, context: inout InterceptorContext) throws -> InterceptorDecision {
        let seconds = String(
            format: "%.3f",
            Double(context.elapsed.components.attoseconds) * 1e-18
                + Double(context.elapsed.components.seconds))
        let target = "\(context.request.method) \(URLRedaction.display(context.request.url, hiding: secretQueryNames))"
        var lines: [String]
        switch outcome {
        case .response(let head, let body):
            lines = ["<- \(head.status) \(target) (\(seconds) s)"]
            if level != .line { lines += fieldLines(head.headerFields) }
            if case .bodies(let limit) = level {
                lines.append(body.map { describe($0, limit: limit) } ?? "<body not buffered>")
            }
        case .failure(let error):
            // A message may name a URL with a password (a proxy's, from the environment).
            lines = [
                "<- failed \(error.code) \(target) (\(seconds) s): \(URLRedaction.redactingURLs(in: error.message))"
            ]
        }
        sink(lines.joined(separator: "\n"))
        return .proceed
    }

    private func fieldLines(_ fields: HTTPFields) -> [String] {
        fields.map { field in
            "\(field.name.rawName): \(redacted.contains(field.name) ? "<redacted>" : field.value)"
        }
    }

    private func describe(_ body: HTTPBody, limit: Int) -> String {
        switch body.source {
        case .data(let data): return describe(data, limit: limit)
        case .file(let url): return "<file body: \(url.path), \(body.length)>"
        case .stream where body.isReplayable: return "<stream body, \(body.length), not read for logging>"
        case .stream: return "<one-shot stream body, \(body.length), never read for logging>"
        }
    }

    private func describe(_ data: Data, limit: Int) -> String {
        if data.isEmpty { return "<empty body>" }
        let shown = data.prefix(max(0, limit))
        let more = data.count > shown.count ? " … (\(data.count) bytes in all)" : ""
        guard let text = String(data: shown, encoding: .utf8) ?? String(data: shown.dropLast(3), encoding: .utf8),
            !text.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" && $0 != "\r" && $0 != "\t" })
        else { return "<\(data.count) bytes of binary data>" }
        return text + more
    }
}
