import AsyncHTTPClient
import Foundation
import HTTPClient
import NIOConcurrencyHelpers
import NIOCore

/// The AsyncHTTPClient clients an owning ``AsyncHTTPClientTransport`` sends through proxies
/// with: AsyncHTTPClient takes its proxy per `HTTPClient` (`HTTPClient.Configuration.proxy`),
/// so each proxy a request goes through gets a client of its own, made on first use with the
/// transport's settings (TLS and trust, pool, timeouts, decompression) and the proxy.
///
/// A proxy with credentials has two: one that sends none in its `CONNECT` (tried first: the
/// credentials go only to a proxy that asks for them, RFC 9110 §11.7.1), and one that answers
/// with `Basic` (once the proxy asked, remembered, and used from then on).
///
/// At most ``limit`` clients are kept: past it, the least recently used one with no request
/// under way is shut down; when every one is busy, the request fails with
/// ``ClientError/Code/proxyUnsupported`` (a policy's closure that names a new proxy per
/// request would otherwise hold a connection pool per proxy).
final class ProxyClients: Sendable {
    /// The most per-proxy clients kept at once.
    static let limit = 16

    /// One client, keyed by the proxy as it is configured (credentials for an answering one).
    private struct Entry {
        let client: HTTPClient
        var inFlight = 0
        var lastUsed: UInt64
    }

    private struct State {
        var entries: [Proxy: Entry] = [:]
        /// Proxies with credentials known to ask for them: their requests go straight to the
        /// answering client.
        var asking: Set<Proxy> = []
        var uses: UInt64 = 0
        var shutDown = false
        /// Shutdowns of clients let go past ``limit``, for ``shutdown()`` to wait for.
        var evicted: [EventLoopFuture<Void>] = []
    }

    /// The settings of the transport's direct client, to which each adds its proxy.
    private let settings: HTTPClient.Configuration
    private let eventLoopGroup: any EventLoopGroup
    private let state = NIOLockedValueBox(State())

    init(settings: HTTPClient.Configuration, eventLoopGroup: any EventLoopGroup) {
        self.settings = settings
        self.eventLoopGroup = eventLoopGroup
    }

    /// A client borrowed for one request, returned with ``release()`` when the request ends.
    final class Lease: Sendable {
        let client: HTTPClient
        /// The proxy as the client is configured: with credentials when it answers with them.
        let configured: Proxy
        private let owner: ProxyClients
        private let released = NIOLockedValueBox(false)

        fileprivate init(client: HTTPClient, configured: Proxy, owner: ProxyClients) {
            self.client = client
            self.configured = configured
            self.owner = owner
        }

        /// The request ended: the client may be let go again. Only the first call counts.
        func release() {
            let first = released.withLockedValue { done in
                defer { done = true }
                return !done
            }
            if first { owner.release(configured) }
        }
    }

    /// Whether `proxy` (with credentials) is known to ask for them.
    func asks(_ proxy: Proxy) -> Bool { state.withLockedValue { $0.asking.contains(proxy) } }

    /// Remembers that `proxy` asks for its credentials.
    func rememberAsking(_ proxy: Proxy) { _ = state.withLockedValue { $0.asking.insert(proxy) } }

    /// The number of per-proxy clients kept now.
    var count: Int { state.withLockedValue { $0.entries.count } }

    /// The per-proxy clients kept now.
    var clients: [HTTPClient] { state.withLockedValue { $0.entries.values.map(\.client) } }

    /// Borrows the client for `configured`, making it if needed.
    /// - Throws: ``ClientError/Code/transport`` after ``shutdown()``;
    ///   ``ClientError/Code/proxyUnsupported`` when ``limit`` clients are all busy.
    func lease(_ configured: Proxy) throws(ClientError) -> Lease {
        let result: Result<HTTPClient, ClientError> = state.withLockedValue { state in
            guard !state.shutDown else {
                return .failure(ClientError(.transport, "the AsyncHTTPClientTransport was shut down"))
            }
            state.uses += 1
            if var entry = state.entries[configured] {
                entry.inFlight += 1
                entry.lastUsed = state.uses
                state.entries[configured] = entry
                return .success(entry.client)
            }
            if state.entries.count >= Self.limit {
                let idle = state.entries.filter { $0.value.inFlight == 0 }.min { $0.value.lastUsed < $1.value.lastUsed }
                guard let idle else {
                    return .failure(
                        ClientError(
                            .proxyUnsupported,
                            "AsyncHTTPClientTransport keeps a client per proxy, at most \(Self.limit), and all are "
                                + "busy: \(configured.withoutCredentials) cannot get one"))
                }
                state.entries[idle.key] = nil
                state.evicted.append(idle.value.client.shutdown())
            }
            let client = HTTPClient(eventLoopGroup: eventLoopGroup, configuration: settings(for: configured))
            state.entries[configured] = Entry(client: client, inFlight: 1, lastUsed: state.uses)
            return .success(client)
        }
        switch result {
        case .success(let client): return Lease(client: client, configured: configured, owner: self)
        case .failure(let error): throw error
        }
    }

    private func release(_ configured: Proxy) {
        state.withLockedValue { state in
            guard var entry = state.entries[configured] else { return }
            entry.inFlight = max(0, entry.inFlight - 1)
            state.entries[configured] = entry
        }
    }

    /// The direct client's settings with `configured` as their proxy.
    private func settings(for configured: Proxy) -> HTTPClient.Configuration {
        var settings = self.settings
        switch configured.kind {
        case .socks5:
            settings.proxy = .socksServer(host: configured.host, port: configured.port)
        default:
            settings.proxy = .server(
                host: configured.host, port: configured.port,
                authorization: configured.credentials.map { .basic(username: $0.username, password: $0.password) })
        }
        return settings
    }

    /// Shuts every client down (requests under way fail) and makes no more.
    func shutdown() async throws {
        let (clients, evicted) = state.withLockedValue { state in
            state.shutDown = true
            defer {
                state.entries = [:]
                state.evicted = []
            }
            return (state.entries.values.map(\.client), state.evicted)
        }
        var failure: (any Error)?
        for client in clients {
            do { try await client.shutdown().get() } catch { failure = failure ?? error }
        }
        for future in evicted { try? await future.get() }
        if let failure { throw failure }
    }

    /// Starts shutting every client down without waiting (the transport is released).
    func shutdownNow() {
        let clients = state.withLockedValue { state in
            state.shutDown = true
            defer { state.entries = [:] }
            return state.entries.values.map(\.client)
        }
        for client in clients { client.shutdown().whenComplete { _ in } }
    }
}
