import Foundation
import HTTPCore

/// One step of one request, as observers see it.
public struct ClientEvent: Sendable, CustomStringConvertible {
    /// What happened.
    ///
    /// The two cases that carry a ``ClientError``, and the one that carries a ``Proxy``, are
    /// stored out of line, so every event stays small to copy (about 120 bytes rather than 250) on its way to the observers.
    public enum Kind: Sendable {
        /// The interceptors prepared the request for an attempt.
        case prepared(HTTPRequest, attempt: Int)
        /// The request was handed to the transport (once per attempt and per redirect hop).
        case sent(HTTPRequest, attempt: Int)
        /// The client followed a redirect.
        case redirected(from: URL, to: URL, status: HTTPStatus)
        /// A request of an attempt waited `waited` before it was sent (a ``HostLimiter``'s queue).
        case queued(URL, waited: Duration, attempt: Int)
        /// A response to `url` (a redirect hop's or the final one's) came through `proxy`:
        /// its kind, host and port, never its credentials (``Proxy/withoutCredentials``).
        /// Told only by a transport that says (``TransportResponse/proxy``). Stored out of
        /// line, as the error cases are: a proxy is larger than the other cases' values.
        indirect case proxied(URL, proxy: Proxy, attempt: Int)
        /// The client's cookie store refused `Set-Cookie` fields of a response to `url` (a
        /// redirect hop's or the final one's), each with its reason and the cookie's value
        /// redacted: why a cookie a login set is not sent back.
        case cookiesRefused(URL, refusals: [CookieRefusal], attempt: Int)
        /// The final response of an attempt arrived (after redirects).
        case responseReceived(HTTPResponse, attempt: Int)
        /// The attempt failed without a response.
        indirect case transportError(ClientError, attempt: Int)
        /// Another attempt will start after `delay`.
        case retryScheduled(attempt: Int, delay: Duration, reason: String)
        /// The call ended, with the final status (or the error) and the call's metrics.
        indirect case finished(status: HTTPStatus?, error: ClientError?, metrics: ClientMetrics)
        /// An event stream that ended or failed is opened again at `url` after `delay`,
        /// sending `lastEventID` (the `reconnection` count is 1 for the first reconnect of
        /// the stream). The request that follows is a call with events of its own.
        case reconnecting(URL, reconnection: Int, delay: Duration, lastEventID: String, reason: String)
    }

    /// A number identifying the call, the same for all its events and unique per client.
    public let requestID: UInt64
    /// Time since the call started.
    public let elapsed: Duration
    /// What happened.
    public let kind: Kind
    /// How many events this observer missed just before this one, because its queue was
    /// full (it received events more slowly than the client made them); 0 when none.
    public internal(set) var eventsDroppedBefore = 0

    /// Creates an event.
    /// - Parameters:
    ///   - requestID: The call's number.
    ///   - elapsed: Time since the call started.
    ///   - kind: What happened.
    public init(requestID: UInt64, elapsed: Duration, kind: Kind) {
        self.requestID = requestID
        self.elapsed = elapsed
        self.kind = kind
    }

    /// `#3 sent GET https://example.com/ (attempt 1)`.
    public var description: String {
        let what: String
        switch kind {
        case .prepared(let request, let attempt): what = "prepared \(request) (attempt \(attempt))"
        case .sent(let request, let attempt): what = "sent \(request) (attempt \(attempt))"
        case .redirected(let from, let to, let status):
            what = "redirected \(status.code) \(URLRedaction.display(from)) -> \(URLRedaction.display(to))"
        case .queued(let url, let waited, let attempt):
            what = "queued \(waited) before \(URLRedaction.display(url)) (attempt \(attempt))"
        case .proxied(let url, let proxy, let attempt):
            what = "through proxy \(proxy.withoutCredentials) to \(URLRedaction.display(url)) (attempt \(attempt))"
        case .cookiesRefused(let url, let refusals, let attempt):
            let fields = refusals.map(\.description).joined(separator: "; ")
            what = "cookies refused from \(URLRedaction.display(url)) (attempt \(attempt)): \(fields)"
        case .responseReceived(let response, let attempt): what = "received \(response.status) (attempt \(attempt))"
        case .transportError(let error, let attempt): what = "failed \(error.code) (attempt \(attempt))"
        case .retryScheduled(let attempt, let delay, let reason):
            what = "retry after attempt \(attempt) in \(delay): \(reason)"
        case .finished(let status, let error, let metrics):
            what = "finished \(status?.description ?? error?.code.rawValue ?? "?"): \(metrics)"
        case .reconnecting(let url, let reconnection, let delay, let lastEventID, let reason):
            let id = lastEventID.isEmpty ? "" : " with Last-Event-ID \(lastEventID)"
            what = "reconnect \(reconnection) to \(URLRedaction.display(url)) in \(delay)\(id): \(reason)"
        }
        let dropped = eventsDroppedBefore > 0 ? " (after \(eventsDroppedBefore) events dropped)" : ""
        return "#\(requestID) \(what)\(dropped)"
    }
}
