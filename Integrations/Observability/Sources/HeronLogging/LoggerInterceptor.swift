import Foundation
import HTTPClient
import Logging

/// Writes each request and response to a swift-log `Logger`, with Heron's redaction.
///
/// The message of each record is the one Heron's ``HTTPClient/Logging`` interceptor writes
/// (the request line, and header fields or bodies when `detail` asks for them), so the same
/// values are hidden: `Authorization`, `Cookie`, `Set-Cookie` and `Proxy-Authorization` values
/// (plus the names in `redacting`), a URL's password, and the values of secret query
/// parameters (`URLRedaction.hiddenQueryNames` plus `secretQueryNames`). The metadata of each
/// record holds the same facts as values of their own, the URL redacted the same way:
///
/// | Key | Value | On |
/// |---|---|---|
/// | `http.method` | the method, `GET` | every record |
/// | `http.url` | the redacted URL | every record |
/// | `http.attempt` | the attempt number, from 1 | every record |
/// | `http.status` | the status code, `503` | a response |
/// | `http.duration` | seconds since the call started, `0.120` | a response or a failure |
/// | `http.error` | the ``ClientError/Code``, `timedOut` | a failure |
///
/// **Levels.** A request is written at ``Levels/request`` (`.debug`), a response below 500 at
/// ``Levels/response`` (`.info`), a 5xx response at ``Levels/serverError`` (`.warning`), and
/// an attempt that failed without a response (a transport error or a timeout) at
/// ``Levels/failure`` (`.error`). Nothing is formatted for a record the logger's `logLevel`
/// leaves out.
///
/// Interceptors prepare in array order and decide in reverse: put it **last**, as
/// ``HTTPClient/Logging``, so that it writes the request as sent and sees every response first.
///
/// ```swift
/// let logger = Logger(label: "com.example.api")
/// let client = Client(
///     baseURL: URL(string: "https://api.example.com")!,
///     interceptors: [BearerAuth(token: "t"), LoggerInterceptor(logger: logger)])
/// ```
public struct LoggerInterceptor: Interceptor {
    /// The log level of each kind of record.
    public struct Levels: Sendable, Hashable {
        /// A request about to be sent; `.debug` by default.
        public var request: Logger.Level
        /// A response with a status below 500; `.info` by default.
        public var response: Logger.Level
        /// A response with a status from 500; `.warning` by default.
        public var serverError: Logger.Level
        /// An attempt that failed without a response; `.error` by default.
        public var failure: Logger.Level

        /// Creates levels.
        /// - Parameters:
        ///   - request: The level of a request.
        ///   - response: The level of a response below 500.
        ///   - serverError: The level of a 5xx response.
        ///   - failure: The level of an attempt that failed without a response.
        public init(
            request: Logger.Level = .debug, response: Logger.Level = .info, serverError: Logger.Level = .warning,
            failure: Logger.Level = .error
        ) {
            self.request = request
            self.response = response
            self.serverError = serverError
            self.failure = failure
        }

        /// `.debug`, `.info`, `.warning` and `.error`.
        public static let `default` = Levels()
    }

    /// The logger written to.
    public let logger: Logger
    /// How much each message holds: the lines, header fields, or bodies too.
    public let detail: HTTPClient.Logging.Level
    /// The log level of each kind of record.
    public let levels: Levels
    /// More field names whose values are redacted, besides ``HTTPClient/Logging/redactedFields``.
    public let redacting: Set<HTTPFieldName>
    /// More query parameter names whose values are hidden, besides `URLRedaction.hiddenQueryNames`.
    public let secretQueryNames: Set<String>

    /// Creates the interceptor.
    /// - Parameters:
    ///   - logger: The logger to write to; its own metadata is kept on every record.
    ///   - detail: How much each message holds; ``HTTPClient/Logging/Level/line`` by default.
    ///   - levels: The log level of each kind of record; ``Levels/default`` by default.
    ///   - redacting: More field names to redact.
    ///   - secretQueryNames: More query parameter names whose values are hidden.
    public init(
        logger: Logger, detail: HTTPClient.Logging.Level = .line, levels: Levels = .default,
        redacting: Set<HTTPFieldName> = [], secretQueryNames: Set<String> = []
    ) {
        self.logger = logger
        self.detail = detail
        self.levels = levels
        self.redacting = redacting
        self.secretQueryNames = secretQueryNames
    }

    /// Writes the request as prepared by the interceptors before this one.
    /// - Parameters:
    ///   - request: The request, unchanged.
    ///   - context: The attempt's context.
    public func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) async throws {
        let level = levels.request
        guard logger.logLevel <= level else { return }
        let metadata = metadata(for: request, attempt: context.attempt)
        try await formatter(level: level, metadata: metadata).prepare(&request, context: &context)
    }

    /// Writes the response or the failure; changes nothing.
    /// - Parameters:
    ///   - outcome: The attempt's outcome.
    ///   - context: The attempt's context.
    /// - Returns: ``HTTPClient/InterceptorDecision/proceed``.
    public func decide(
        _ outcome: AttemptOutcome, context: inout InterceptorContext
    ) async throws
        -> InterceptorDecision
    {
        let level: Logger.Level
        var metadata = metadata(for: context.request, attempt: context.attempt)
        switch outcome {
        case .response(let head, _):
            level = head.status.code >= 500 ? levels.serverError : levels.response
            metadata["http.status"] = "\(head.status.code)"
        case .failure(let error):
            level = levels.failure
            metadata["http.error"] = "\(error.code.rawValue)"
        }
        guard logger.logLevel <= level else { return .proceed }
        metadata["http.duration"] = "\(Self.seconds(context.elapsed))"
        return try await formatter(level: level, metadata: metadata).decide(outcome, context: &context)
    }

    /// Heron's interceptor, writing its one message to the logger at `level` with `metadata`.
    private func formatter(level: Logger.Level, metadata: Logger.Metadata) -> HTTPClient.Logging {
        let logger = logger
        return HTTPClient.Logging(detail, redacting: redacting, secretQueryNames: secretQueryNames) { message in
            logger.log(level: level, "\(message)", metadata: metadata)
        }
    }

    /// The metadata every record carries, the URL redacted.
    private func metadata(for request: HTTPRequest, attempt: Int) -> Logger.Metadata {
        [
            "http.method": "\(request.method.rawValue)",
            "http.url": "\(URLRedaction.display(request.url, hiding: secretQueryNames))",
            "http.attempt": "\(attempt)",
        ]
    }

    /// `0.120`: seconds with three decimals.
    private static func seconds(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
        return String(format: "%.3f", seconds)
    }
}
