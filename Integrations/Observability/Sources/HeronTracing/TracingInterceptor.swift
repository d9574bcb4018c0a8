import Foundation
import HTTPClient
import Tracing

/// Traces each attempt of a call as a client span, with the attributes of OpenTelemetry's
/// HTTP client conventions, and propagates the span's context in the request's header fields.
///
/// **One span per attempt.** As OpenTelemetry's conventions ask, every attempt (each physical
/// request) gets a span of its own, kind `.client`, started in `prepare` and ended in `decide`.
/// The spans of one call are siblings under the span that is current when the call starts
/// (`ServiceContext.current`), or roots when there is none; the span of a retry carries
/// `http.request.resend_count`. Redirects are followed beneath the interceptors, so the span of
/// an attempt covers its redirect hops and records the final response. Between `prepare` and
/// `decide` the span is kept in the attempt's ``HTTPClient/InterceptorContext/values``.
///
/// **Name and attributes.** The span is named after the method (`GET`), or `HTTP` for a
/// method outside RFC 9110 and RFC 5789, and carries:
///
/// | Attribute | Value |
/// |---|---|
/// | `http.request.method` | `GET`; `_OTHER` for another method |
/// | `http.request.method_original` | the method, when it is `_OTHER` |
/// | `url.full` | the URL with its user and password replaced by `REDACTED` and secret query values by `***` |
/// | `server.address` | the host |
/// | `server.port` | the port, or the scheme's default |
/// | `http.request.resend_count` | the number of the resend, on a retry |
/// | `http.response.status_code` | the status, when the server answered |
/// | `error.type` | the status code for a status from 400, or the ``HTTPClient/ClientError/Code`` of a failure |
///
/// A status from 400 or a failure sets the span's status to `.error`; a failure is also
/// recorded on the span as an error.
///
/// **Propagation.** The tracer injects the span's context into the request's header fields
/// through ``HTTPFieldsInjector``: with an OpenTelemetry tracer, the W3C `traceparent` and
/// `tracestate` fields. A field the tracer sets replaces one of the same name.
///
/// **Order.** Put it **last** among the interceptors: it then sees the request as sent, and
/// it decides first, so no other interceptor's decision skips its `decide`. An attempt that
/// never reaches `decide` (the call is cancelled, its deadline passes, or an interceptor after
/// this one in `decide` order ends the chain) still ends its span: with the status `.error`
/// and `error.type` `abandoned`, once the call lets go of the attempt's context (when the
/// call ends, or when a retry's `prepare` starts the next attempt's span). No span is left open.
///
/// ```swift
/// let client = Client(
///     baseURL: URL(string: "https://api.example.com")!,
///     interceptors: [BearerAuth(token: "t"), TracingInterceptor()])
/// ```
public struct TracingInterceptor: Interceptor {
    /// The key under which an attempt's span waits between `prepare` and `decide`.
    private enum AttemptSpan: RequestValueKey {
        typealias Value = OpenSpan
    }

    /// An attempt's span until it is ended: by ``decide(_:context:)`` with the outcome, or,
    /// when that never comes, by the last copy of the attempt's context being released.
    ///
    /// `@unchecked Sendable`: `ended` is only read and written under `lock`; the span is
    /// `Sendable` and only ended once, by whoever sets `ended` first.
    final class OpenSpan: @unchecked Sendable {
        let span: any Span
        private let lock = NSLock()
        private var ended = false

        init(_ span: any Span) { self.span = span }

        /// Takes the span to end it; `nil` when it was already taken.
        func take() -> (any Span)? {
            lock.withLock {
                defer { ended = true }
                return ended ? nil : span
            }
        }

        /// Ends the span as abandoned: its attempt never reached the interceptor's `decide`.
        func abandon() {
            guard let span = take() else { return }
            span.attributes["error.type"] = "abandoned"
            span.setStatus(SpanStatus(code: .error, message: "the attempt ended before its outcome was traced"))
            span.end()
        }

        deinit { abandon() }
    }

    /// The methods OpenTelemetry's conventions know by name; others become `_OTHER`.
    static let knownMethods: Set<String> = [
        "CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE", "QUERY",
    ]

    /// The tracer that starts the spans and injects their context.
    public let tracer: any Tracer
    /// More query parameter names whose values are hidden in `url.full`, besides
    /// `URLRedaction.hiddenQueryNames`.
    public let secretQueryNames: Set<String>

    /// Creates the interceptor.
    /// - Parameters:
    ///   - tracer: The tracer; the bootstrapped `InstrumentationSystem.tracer` by default.
    ///   - secretQueryNames: More query parameter names whose values are hidden in `url.full`.
    public init(tracer: any Tracer = InstrumentationSystem.tracer, secretQueryNames: Set<String> = []) {
        self.tracer = tracer
        self.secretQueryNames = secretQueryNames
    }

    /// Starts the attempt's span and injects its context into the request's header fields.
    /// - Parameters:
    ///   - request: The request to send; gets the tracer's propagation fields.
    ///   - context: The attempt's context; holds the span until ``decide(_:context:)``.
    public func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) async throws {
        context.values[AttemptSpan.self]?.abandon()
        let method = request.method.rawValue
        let known = Self.knownMethods.contains(method)
        let span = tracer.startSpan(
            known ? method : "HTTP", context: ServiceContext.current ?? .topLevel, ofKind: .client)
        if span.isRecording {
            span.updateAttributes { attributes in
                attributes["http.request.method"] = known ? method : "_OTHER"
                if !known { attributes["http.request.method_original"] = method }
                attributes["url.full"] = Self.fullURL(request.url, hiding: secretQueryNames)
                if let host = request.url.host { attributes["server.address"] = host }
                if let port = Self.port(of: request.url) { attributes["server.port"] = port }
                if context.attempt > 1 { attributes["http.request.resend_count"] = context.attempt - 1 }
            }
        }
        tracer.inject(span.context, into: &request.headerFields, using: HTTPFieldsInjector())
        context.values[AttemptSpan.self] = OpenSpan(span)
    }

    /// Records the outcome on the attempt's span and ends it; changes nothing.
    /// - Parameters:
    ///   - outcome: The attempt's outcome.
    ///   - context: The attempt's context, holding the span.
    /// - Returns: ``HTTPClient/InterceptorDecision/proceed``.
    public func decide(
        _ outcome: AttemptOutcome, context: inout InterceptorContext
    ) async throws
        -> InterceptorDecision
    {
        guard let open = context.values[AttemptSpan.self], let span = open.take() else { return .proceed }
        context.values[AttemptSpan.self] = nil
        switch outcome {
        case .response(let head, _):
            let code = head.status.code
            span.attributes["http.response.status_code"] = code
            if code >= 400 {
                span.attributes["error.type"] = "\(code)"
                span.setStatus(SpanStatus(code: .error))
            }
        case .failure(let error):
            span.attributes["error.type"] = error.code.rawValue
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error, message: error.code.rawValue))
        }
        span.end()
        return .proceed
    }

    /// The URL for `url.full`: no user information, secret query values hidden.
    static func fullURL(_ url: URL, hiding secretNames: Set<String>) -> String {
        guard url.user != nil || url.password != nil,
            var components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        else { return URLRedaction.display(url, hiding: secretNames) }
        components.percentEncodedUser = nil
        components.percentEncodedPassword = nil
        guard let bare = components.url else { return "(a URL with credentials)" }
        guard var shown = URLComponents(string: URLRedaction.display(bare, hiding: secretNames)) else {
            return "(a URL with credentials)"
        }
        shown.percentEncodedUser = "REDACTED"
        shown.percentEncodedPassword = "REDACTED"
        return shown.string ?? "(a URL with credentials)"
    }

    /// The URL's port, or its scheme's default for `http`, `https`, `ws` and `wss`.
    static func port(of url: URL) -> Int? {
        if let port = url.port { return port }
        switch url.scheme?.lowercased() {
        case "http", "ws": return 80
        case "https", "wss": return 443
        default: return nil
        }
    }
}
