import AsyncHTTPClient
import Foundation
import HTTPClient
import HTTPCore

extension AsyncHTTPClientTransport {
    /// The proxy ``proxyPolicy`` chooses for `request`, as given (with its credentials), or
    /// `nil` to go to the origin.
    /// - Throws: The policy's error with the request; ``ClientError/Code/proxyUnsupported``
    ///   for a proxy this transport cannot use.
    func proxy(for request: HTTPCore.HTTPRequest) throws(ClientError) -> Proxy? {
        guard let proxyPolicy else { return nil }
        let chosen: Proxy?
        do {
            chosen = try proxyPolicy.proxy(for: request.url)
        } catch {
            throw ClientError(error.code, error.message, request: request, underlying: error.underlying)
        }
        guard let chosen else { return nil }
        do {
            try Self.checkSupported(chosen)
        } catch {
            throw ClientError(error.code, error.message, request: request)
        }
        return chosen
    }

    /// Throws ``ClientError/Code/proxyUnsupported`` for a proxy AsyncHTTPClient cannot go
    /// through: a SOCKS5 proxy with credentials (AsyncHTTPClient 1.37 offers a SOCKS5 server
    /// only the method "no authentication required", RFC 1928 §3, not RFC 1929's user name and
    /// password), or a kind it does not speak.
    static func checkSupported(_ proxy: Proxy) throws(ClientError) {
        switch proxy.kind {
        case .http:
            return
        case .socks5 where proxy.credentials == nil:
            return
        case .socks5:
            throw ClientError(
                .proxyUnsupported,
                "AsyncHTTPClientTransport cannot give credentials to the SOCKS5 proxy \(proxy): AsyncHTTPClient "
                    + "speaks SOCKS5 without authentication only (RFC 1928 method 00)")
        default:
            throw ClientError(
                .proxyUnsupported, "AsyncHTTPClientTransport cannot go through the \(proxy.kind) proxy \(proxy)")
        }
    }

    /// Refuses at once a ``ProxyPolicy/through(_:bypass:)`` policy whose proxy this transport
    /// cannot go through; a policy that chooses per request (the environment, a closure) fails
    /// the requests it sends to such a proxy instead.
    static func checkAtOnce(_ policy: ProxyPolicy) throws(ClientError) {
        guard let proxy = policy.fixedProxy else { return }
        try proxy.validate()
        try checkSupported(proxy)
    }

    /// Sends `request` through `proxy`, answering its `407` once: a proxy with credentials is
    /// asked without them first, and the request sent once more with them when it asks (once
    /// it has, its requests carry them from the start); a second `407`, or one when there are
    /// no credentials, is ``ClientError/Code/proxyAuthenticationFailed`` naming the proxy.
    func send(
        _ request: HTTPCore.HTTPRequest, options: TransportOptions, through proxy: Proxy, clients: ProxyClients
    ) async throws -> TransportResponse {
        let answering = proxy.credentials != nil && clients.asks(proxy)
        var upload: Upload?
        do {
            return try await send(
                request, options: options, via: try clients.lease(answering ? proxy : proxy.withoutCredentials),
                upload: &upload)
        } catch let error as ClientError where answering && Self.refusesCredentials(error) {
            throw Self.refusedCredentials(proxy, error, request: request)
        } catch let error as ClientError where error.code == .proxyAuthenticationFailed {
            guard proxy.credentials != nil else {
                throw ClientError(
                    .proxyAuthenticationFailed,
                    "the proxy \(proxy.withoutCredentials) asks for credentials (407 Proxy Authentication Required) "
                        + "and the proxy policy gives none for it", request: request, underlying: error.underlying)
            }
            clients.rememberAsking(proxy)
            // AsyncHTTPClient asks for the body only once a connection carries the request: after
            // a refused CONNECT, even a one-shot stream is intact.
            guard request.body?.isReplayable ?? true || !(upload?.started ?? false) else {
                throw ClientError(
                    .proxyAuthenticationFailed,
                    "the proxy \(proxy.withoutCredentials) asks for credentials (407 Proxy Authentication Required), "
                        + "and the request's one-shot body cannot be sent again with them", request: request,
                    underlying: error.underlying)
            }
            try Task.checkCancellation()
            var again: Upload?
            do {
                return try await send(request, options: options, via: try clients.lease(proxy), upload: &again)
            } catch let error as ClientError where Self.refusesCredentials(error) {
                throw Self.refusedCredentials(proxy, error, request: request)
            }
        }
    }

    /// Sends `request` once over `lease`'s client; returns the lease when the send fails
    /// (a failure before the exchange began leaves it borrowed otherwise).
    private func send(
        _ request: HTTPCore.HTTPRequest, options: TransportOptions, via lease: ProxyClients.Lease,
        upload: inout Upload?
    ) async throws -> TransportResponse {
        do {
            return try await send(
                request, options: options,
                route: Exchange.Route(client: lease.client, proxy: lease.configured, lease: lease), upload: &upload)
        } catch {
            lease.release()
            throw error
        }
    }

    /// Whether `error`, for a request whose `CONNECT` carried the proxy's credentials, is the
    /// proxy refusing them: another `407` (RFC 9110 §15.5.8). A refused `CONNECT` of another
    /// status (a port the proxy does not tunnel to) stays ``ClientError/Code/proxyConnectFailed``.
    static func refusesCredentials(_ error: ClientError) -> Bool {
        error.code == .proxyAuthenticationFailed
    }

    /// The error of a proxy that refused the credentials it asked for.
    private static func refusedCredentials(
        _ proxy: Proxy, _ error: ClientError, request: HTTPCore.HTTPRequest
    ) -> ClientError {
        ClientError(
            .proxyAuthenticationFailed,
            "the proxy \(proxy.withoutCredentials) refused the credentials given for it (another 407 Proxy "
                + "Authentication Required); AsyncHTTPClientTransport answers a proxy with Basic credentials only "
                + "(AsyncHTTPClient does not show the proxy's Proxy-Authenticate challenge), so a proxy that asks "
                + "for Digest cannot be answered on this transport", request: request, underlying: error.underlying)
    }
}
