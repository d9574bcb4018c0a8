import HTTPCore

/// What one call of the client cost: attempts, redirects, time and bytes.
public struct ClientMetrics: Sendable, CustomStringConvertible {
    /// Every attempt, in order, with its status or failure and duration.
    public var attempts: [ClientError.Attempt] {
        get { history.array }
        set { history = AttemptHistory(newValue) }
    }
    /// The attempts as the client records them: one needs no array.
    var history: AttemptHistory
    /// Redirects followed, over all attempts.
    public var redirects: Int
    /// Time from the call to its end, retries and waits included.
    public var duration: Duration
    /// Request body bytes sent in the last attempt, when the transport counts them.
    public var bytesSent: Int64?
    /// Response body bytes received in the last attempt, when known (not for streams).
    public var bytesReceived: Int64?
    /// Time the call's requests waited before they were sent (a ``HostLimiter``'s queue),
    /// over the attempts that got a response and their redirects (a failed attempt's wait
    /// is not known to the client).
    public var queued: Duration
    /// The proxy the last attempt's response came through (the final hop's, after
    /// redirects): its kind, host and port, never its credentials; `nil` when it came
    /// straight from the origin, when the last attempt failed, or when the transport does not
    /// say (``TransportResponse/proxy``).
    public var proxy: Proxy? {
        get { _proxy }
        set { _proxy = newValue?.withoutCredentials }
    }
    /// ``proxy``, stored without credentials.
    private var _proxy: Proxy?

    /// Creates metrics.
    /// - Parameters:
    ///   - attempts: The attempts in order.
    ///   - redirects: Redirects followed.
    ///   - duration: The whole call's duration.
    ///   - bytesSent: Request body bytes sent, if counted.
    ///   - bytesReceived: Response body bytes received, if known.
    ///   - queued: Time waited before sending; none by default.
    public init(
        attempts: [ClientError.Attempt], redirects: Int, duration: Duration, bytesSent: Int64?, bytesReceived: Int64?,
        queued: Duration = .zero
    ) {
        self.init(
            history: AttemptHistory(attempts), redirects: redirects, duration: duration, bytesSent: bytesSent,
            bytesReceived: bytesReceived, queued: queued)
    }

    /// Creates metrics from the client's record of the attempts.
    init(
        history: AttemptHistory, redirects: Int, duration: Duration, bytesSent: Int64?, bytesReceived: Int64?,
        queued: Duration, proxy: Proxy? = nil
    ) {
        self.queued = queued
        self._proxy = proxy?.withoutCredentials
        self.history = history
        self.redirects = redirects
        self.duration = duration
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
    }

    /// `2 attempts, 0 redirects, 0.120 s, sent 0 B, received 512 B`, and `, queued 0.2 seconds`
    /// and `, through http://proxy.internal:3128` when there is something to say.
    public var description: String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
        let sent = bytesSent.map { "\($0) B" } ?? "?"
        let received = bytesReceived.map { "\($0) B" } ?? "?"
        let waited = queued > .zero ? ", queued \(queued)" : ""
        let through = _proxy.map { ", through \($0)" } ?? ""
        return "\(history.count) attempts, \(redirects) redirects, \(String(format: "%.3f", seconds)) s, "
            + "sent \(sent), received \(received)\(waited)\(through)"
    }
}

/// The attempts of a call, in order, the first held inline: a call of one attempt (almost
/// every call) records it without an array.
struct AttemptHistory: Sendable {
    private var first: ClientError.Attempt?
    private var rest: [ClientError.Attempt] = []

    init() {}

    init(_ attempts: [ClientError.Attempt]) {
        first = attempts.first
        rest = Array(attempts.dropFirst())
    }

    var count: Int { first == nil ? 0 : 1 + rest.count }

    mutating func append(_ attempt: ClientError.Attempt) {
        if first == nil {
            first = attempt
        } else {
            rest.append(attempt)
        }
    }

    /// The attempts as an array (made when asked for).
    var array: [ClientError.Attempt] {
        guard let first else { return [] }
        return [first] + rest
    }
}
