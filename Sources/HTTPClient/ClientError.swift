import Foundation
import HTTPCore

/// The one error type the client and its transports throw.
///
/// A `ClientError` says what failed (``code``), for which request, and with what the
/// server answered when it answered: the response head and a bounded prefix of the body.
/// Errors are wrapped once: an interceptor's or transport's `ClientError` passes through
/// the client unchanged.
///
/// ```swift
/// let client = Client(baseURL: baseURL, retry: [.status([503], max: 1)])
/// do {
///     _ = try await client.send(HTTPRequest(url: URL(string: "status/503")!))
/// } catch let error as ClientError where error.code == .tooManyRetries {
///     print(error.attempts.count, error.response?.status.code ?? 0)  // 2 503
/// }
/// ```
public struct ClientError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. New codes may be added: switch with a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The stable identifier of the code, such as `"timedOut"`.
        public let rawValue: String

        /// Creates a code from its identifier, for codes of your own interceptors.
        /// - Parameter rawValue: A stable identifier.
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// The request could not be built or sent as described (bad URL, relative URL
        /// without a base URL, a body the transport cannot send).
        public static let invalidRequest = Code("invalidRequest")
        /// The host could not be reached: DNS failure, connection refused, TLS failure.
        public static let cannotConnect = Code("cannotConnect")
        /// The connection was reset or closed before the whole response arrived.
        public static let connectionLost = Code("connectionLost")
        /// The response body ended before the length its header declared.
        public static let truncatedBody = Code("truncatedBody")
        /// Any other transport failure; see ``ClientError/underlying``.
        public static let transport = Code("transport")
        /// The request or one attempt took longer than its timeout.
        public static let timedOut = Code("timedOut")
        /// The task awaiting the request was cancelled.
        public static let cancelled = Code("cancelled")
        /// The response could not be read as HTTP (no status, a status outside 100...599,
        /// an invalid header field).
        public static let invalidResponse = Code("invalidResponse")
        /// The response was larger than the limit set for buffering it, or its head larger
        /// than the transport accepts (with URLSession on Linux, libcurl's 300 KiB in all and
        /// 100 KiB a field). Not retried.
        public static let responseTooLarge = Code("responseTooLarge")
        /// The platform refused to send the request's head as it is (with URLSession on Linux,
        /// libcurl sends at most 1 MiB of header fields). Not retried: a retry would send the
        /// same head.
        public static let requestHeadRejected = Code("requestHeadRejected")
        /// The response body is labelled with a `Content-Encoding` the transport cannot
        /// decode (`snappy`, say), or is not valid in the coding it names. The response head
        /// is attached. Not retried: the server would send the same.
        public static let contentDecodingFailed = Code("contentDecodingFailed")
        /// The server's certificate did not verify: its chain leads to no trusted root, it has
        /// expired or is not valid yet, it names another host, or it holds none of the
        /// ``TrustPolicy``'s pinned public keys. Not retried: the server would show the same chain.
        public static let serverTrustFailed = Code("serverTrustFailed")
        /// A transport cannot apply a ``TrustPolicy`` it was given (pins with a transport
        /// that cannot see the chain): thrown when the transport is made, never ignored.
        public static let trustPolicyUnsupported = Code("trustPolicyUnsupported")
        /// A transport cannot apply the ``ProxyPolicy`` it was given, or the proxy a policy chose
        /// for a request (a SOCKS proxy with credentials, an HTTPS proxy, a per-URL choice that
        /// URLSession on Linux cannot make): thrown when the transport is made or the request
        /// is sent, never ignored.
        public static let proxyUnsupported = Code("proxyUnsupported")
        /// The proxy did not open the way to the origin: it refused the `CONNECT` tunnel (its
        /// status, when known, is in the message) or the SOCKS handshake, or closed the
        /// connection before. Nothing reached the origin, so it is retried as
        /// ``cannotConnect`` is, even for a request that is not idempotent.
        public static let proxyConnectFailed = Code("proxyConnectFailed")
        /// The proxy asked for credentials (`407 Proxy Authentication Required`, RFC 9110
        /// §15.5.8) and none were given, or it refused the answer given once to its challenge.
        /// The message names the proxy, never the origin. Not retried.
        public static let proxyAuthenticationFailed = Code("proxyAuthenticationFailed")
        /// A validation interceptor rejected the status or content type.
        public static let validationFailed = Code("validationFailed")
        /// The retry policies asked for another attempt but the limit was reached;
        /// ``ClientError/attempts`` holds the history.
        public static let tooManyRetries = Code("tooManyRetries")
        /// More redirects than the configured limit.
        public static let tooManyRedirects = Code("tooManyRedirects")
        /// A retry or redirect needed to send the body again, but it is a one-shot stream.
        public static let bodyNotReplayable = Code("bodyNotReplayable")
        /// Writing a download to its destination failed.
        public static let fileWriteFailed = Code("fileWriteFailed")
        /// Authentication failed: no credentials, or refreshing them failed.
        public static let authenticationFailed = Code("authenticationFailed")
        /// An interceptor failed with an error that is not a `ClientError`; see
        /// ``ClientError/underlying``.
        public static let interceptorFailed = Code("interceptorFailed")

        /// The identifier.
        public var description: String { rawValue }
    }

    /// One attempt of a request, as recorded for ``ClientError/attempts``.
    public struct Attempt: Sendable, CustomStringConvertible {
        /// The attempt number, from 1.
        public let number: Int
        /// The response status, when the attempt got a response.
        public let status: HTTPStatus?
        /// A description of the error, when the attempt failed without a response.
        public let failure: String?
        /// How long the attempt took, in seconds.
        public let duration: TimeInterval

        /// Creates an attempt record.
        /// - Parameters:
        ///   - number: The attempt number, from 1.
        ///   - status: The response status, if any.
        ///   - failure: The failure, if no response came.
        ///   - duration: The attempt's duration in seconds.
        public init(number: Int, status: HTTPStatus?, failure: String?, duration: TimeInterval) {
            self.number = number
            self.status = status
            self.failure = failure
            self.duration = duration
        }

        /// `#2: 503 Service Unavailable (0.012 s)`.
        public var description: String {
            let outcome = status?.description ?? failure ?? "no outcome"
            return "#\(number): \(outcome) (\(String(format: "%.3f", duration)) s)"
        }
    }

    /// What kind of failure this is.
    public let code: Code
    /// A sentence about what went wrong, naming the offending value.
    public let message: String
    /// The request's method, when known.
    public var method: HTTPMethod?
    /// The request's URL, when known.
    public var url: URL?
    /// The response head, when the server answered.
    public var response: HTTPResponse?
    /// The first bytes of the response body (at most ``bodyPrefixLimit``), when read.
    public var bodyPrefix: Data?
    /// The error that caused this one, if any.
    public var underlying: (any Error)?
    /// Every attempt made, for ``Code/tooManyRetries`` and other failures after retries.
    public var attempts: [Attempt]
    /// A download's partial body, kept for ``Client/download(resuming:request:options:)``: set
    /// when a ``Client/download(_:to:options:)`` with ``RequestOptions/keepsPartialDownload``
    /// fails after writing part of a body it can resume.
    public var resumableDownload: ResumableDownload?
    /// Whether the attempt this error ended had already been answered by a server (a
    /// redirect) before it failed: a later hop's ``Code/cannotConnect`` then does not show
    /// that nothing of the request was sent, and the retry rules judge it as a failure
    /// mid-request.
    var followedRedirect = false
    /// Whether this attempt's failure was a download's answer that cannot continue its partial
    /// file (a `416`, a `Content-Range` elsewhere), which the body's file was emptied for: the
    /// next attempt fetches it whole. Any `transportErrors` retry policy retries it, as it retried
    /// the cut that made the partial file.
    var restartsDownload = false

    /// The most body bytes an error keeps.
    public static let bodyPrefixLimit = 1024

    /// Creates an error.
    /// - Parameters:
    ///   - code: What kind of failure this is.
    ///   - message: What went wrong, naming the offending value.
    ///   - request: The request, for its method and URL.
    ///   - response: The response head, if the server answered.
    ///   - body: The response body; only its first ``bodyPrefixLimit`` bytes are kept.
    ///   - underlying: The causing error, if any.
    ///   - attempts: The attempts made so far.
    public init(
        _ code: Code, _ message: String, request: HTTPRequest? = nil, response: HTTPResponse? = nil,
        body: Data? = nil, underlying: (any Error)? = nil, attempts: [Attempt] = []
    ) {
        self.code = code
        self.message = message
        self.method = request?.method
        self.url = request?.url
        self.response = response
        self.bodyPrefix = body.map { Data($0.prefix(Self.bodyPrefixLimit)) }
        self.underlying = underlying
        self.attempts = attempts
    }

    /// A message a person can act on: code, request, status, message, body prefix and cause.
    public var description: String {
        var parts = ["\(code): \(message)"]
        if let method, let url { parts.append("request: \(method) \(URLRedaction.display(url))") }
        if let response { parts.append("response: \(response.status)") }
        if let bodyPrefix, !bodyPrefix.isEmpty { parts.append("body: \(URLRedaction.displayBody(bodyPrefix))") }
        if !attempts.isEmpty { parts.append("attempts: \(attempts.map(\.description).joined(separator: ", "))") }
        if let underlying { parts.append("cause: \(URLRedaction.displayError(underlying))") }
        return parts.joined(separator: "; ")
    }
}
