import AsyncHTTPClient
import Foundation
import HTTPClient
import HTTPCore
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL

/// A transport for Heron's `Client` that sends requests with an AsyncHTTPClient `HTTPClient`
/// (swift-server/async-http-client, over SwiftNIO), on Linux and Apple platforms.
///
/// It behaves as `URLSessionTransport` does, so a client can swap one for the other: each
/// request is sent once, exactly as given, and what the server answered comes back as it is
/// (a 3xx too: Heron's client follows redirects, never the transport). Failures carry the
/// same ``ClientError/Code`` for the same fault (a refused connection is `cannotConnect`, a
/// reset `connectionLost`, a body shorter than its `Content-Length` `truncatedBody`, a
/// silent server `timedOut`).
///
/// - Request bodies: bytes go out as one buffer; files and streams are read as they are
///   sent, a chunk at a time, each once AsyncHTTPClient can take it, so any size goes out
///   in constant memory. All go with `Content-Length` when their length is known, chunked
///   otherwise. Upload progress is reported per chunk handed to AsyncHTTPClient.
/// - Response bodies: handed over as they arrive, as an `HTTPBody` read once. A reader that
///   falls behind pauses the server (AsyncHTTPClient reads no more until it catches up), so
///   at most ``TransportOptions/responseBufferLimit`` unread bytes (and at most 256 KiB)
///   are held. Compressed bodies (`Content-Encoding: gzip` or `deflate`) arrive decoded,
///   as with URLSession.
/// - The head's deadline (``TransportOptions/deadline``), the idle timeout
///   (``TransportOptions/idleTimeout``, to the millisecond) and the body's deadline
///   (``TransportOptions/bodyDeadline``) are enforced here; cancelling the task that awaits
///   ``send(_:options:)``, or the body's reader, cancels the request at once.
/// - A request whose body is in memory (or absent) and that reports no upload progress goes
///   through AsyncHTTPClient's delegate API (`execute(request:delegate:eventLoop:deadline:)`):
///   no task runs for it, neither AsyncHTTPClient's nor this transport's; the transport's one
///   watchdog timer fails it when a limit passes. File and stream bodies, and calls with
///   upload progress, go through AsyncHTTPClient's `async` API (`execute(_:deadline:logger:)`).
///
/// - Proxies: an owned transport applies a ``ProxyPolicy`` (the process's environment by
///   default, read as curl reads it; see ``init(configuration:trust:proxy:)``). Through an HTTP
///   proxy every request, plain `http` too, goes through a `CONNECT` tunnel (RFC 9110 §9.3.6),
///   so the proxy's credentials never reach an origin; SOCKS5 (RFC 1928) works without
///   credentials. ``TransportResponse/proxy`` names the proxy a response came through.
/// - Unix domain sockets: `http+unix://<percent-encoded socket path>/path`,
///   `https+unix://…` and `unix:///socket/path` (request path `/`) reach a local server on
///   its socket, never through a proxy.
///
/// ## Who owns the HTTPClient
/// An AsyncHTTPClient `HTTPClient` holds connections and must be shut down once, by its
/// owner, when no longer needed:
/// - ``init(configuration:)`` makes a client that this transport owns: call ``shutdown()``
///   when done with the transport (a transport released without it shuts its client down
///   then, without waiting).
/// - ``init(client:uploadChunkSize:)`` uses a client you made and own: you shut it down,
///   after the last request; ``shutdown()`` then does nothing. Make it with
///   ``clientConfiguration(_:)``, or at least with `redirectConfiguration: .disallow`:
///   a transport whose client follows a redirect fails the request rather than return an
///   answer that is not the request's.
///
/// ```swift
/// let transport = AsyncHTTPClientTransport()
/// let client = Client(baseURL: URL(string: "https://api.example.com")!, transport: transport)
/// let response = try await client.send(.get("items/42"))
/// print(response.head.status)
/// try await transport.shutdown()
/// ```
public final class AsyncHTTPClientTransport: ClientTransport {
    /// Settings of an ``AsyncHTTPClientTransport`` that makes its own `HTTPClient`.
    public struct Configuration: Sendable, Hashable {
        /// The most HTTP/1.1 connections kept open to one host (AsyncHTTPClient's default is 8).
        public var maximumConnectionsPerHost: Int
        /// The longest a connection may take to be made (TCP and TLS).
        public var connectTimeout: Duration
        /// How long an unused connection stays open in the pool.
        public var connectionIdleTimeout: Duration
        /// Whether `gzip` and `deflate` response bodies are decoded (as URLSession does).
        public var decompressesResponses: Bool
        /// How many times its encoded size a decoded body may grow to: past it the request
        /// fails with ``HTTPClient/ClientError/Code/responseTooLarge``, so a small `gzip` bomb
        /// cannot fill memory or a disk through a stream or a download. Text compresses 3 to
        /// 20 times, a bomb a thousand.
        public var maximumDecompressionRatio: Int
        /// How long a TLS connection being closed (a cancelled call's) waits for the server's
        /// `close_notify` before the socket is closed anyway: NIOSSL waits 5 s by default,
        /// during which a server still sending a body keeps sending.
        public var tlsShutdownTimeout: Duration
        /// The size of the chunks a file or stream body is read in, in bytes.
        public var uploadChunkSize: Int

        /// Creates settings.
        /// - Parameters:
        ///   - maximumConnectionsPerHost: The most connections per host; 64 by default.
        ///   - connectTimeout: The longest a connection may take to be made; 10 s by default.
        ///   - connectionIdleTimeout: How long an unused connection stays open; 60 s by default.
        ///   - decompressesResponses: Whether compressed bodies are decoded; `true` by default.
        ///   - uploadChunkSize: The chunk size for reading file and stream bodies; 256 KiB by default.
        ///   - maximumDecompressionRatio: How many times its encoded size a decoded body may
        ///     grow; 100 by default.
        ///   - tlsShutdownTimeout: The wait for the server's TLS `close_notify` when a
        ///     connection is closed; 100 ms by default.
        public init(
            maximumConnectionsPerHost: Int = 64, connectTimeout: Duration = .seconds(10),
            connectionIdleTimeout: Duration = .seconds(60), decompressesResponses: Bool = true,
            uploadChunkSize: Int = 256 * 1024, maximumDecompressionRatio: Int = 100,
            tlsShutdownTimeout: Duration = .milliseconds(100)
        ) {
            self.maximumConnectionsPerHost = max(1, maximumConnectionsPerHost)
            self.connectTimeout = connectTimeout
            self.connectionIdleTimeout = connectionIdleTimeout
            self.decompressesResponses = decompressesResponses
            self.uploadChunkSize = max(1024, uploadChunkSize)
            self.maximumDecompressionRatio = max(1, maximumDecompressionRatio)
            self.tlsShutdownTimeout = max(.zero, tlsShutdownTimeout)
        }
    }

    /// The AsyncHTTPClient client that sends the requests that go through no proxy (all of
    /// them for a transport over a client of yours).
    public let client: HTTPClient
    /// Whether this transport made ``client`` and shuts it down in ``shutdown()``; `false`
    /// when the caller passed it and owns it.
    public let ownsClient: Bool
    /// The size of the chunks a file or stream body is read in, in bytes.
    public let uploadChunkSize: Int
    /// The proxy policy this transport applies; `nil` for a transport over a client of yours,
    /// whose own proxy setting (`HTTPClient.Configuration.proxy`) applies.
    public let proxyPolicy: ProxyPolicy?

    /// Transfers sent and not ended yet.
    let transfers = TransferCount()
    /// The one timer of the limits AsyncHTTPClient does not enforce.
    let watchdog: Watchdog
    /// The clients of the proxies requests go through, made on first use; `nil` when no
    /// request ever goes through one.
    let proxyClients: ProxyClients?
    /// Whether ``shutdown()`` was called (an owned client is shut down once).
    private let shutDown = NIOLockedValueBox(false)

    /// Creates a transport with an `HTTPClient` of its own, made with
    /// ``clientConfiguration(_:)`` on AsyncHTTPClient's shared event loops, that sends requests
    /// through the proxies the process's environment names (``ProxyPolicy/environment``, read
    /// as curl reads it); call ``shutdown()`` when done with it.
    ///
    /// A proxy the environment names that this transport cannot use (a SOCKS5 proxy with
    /// credentials, an `https://` proxy) fails each request it would carry with
    /// ``ClientError/Code/proxyUnsupported``.
    /// - Parameter configuration: The transport's settings.
    public convenience init(configuration: Configuration = Configuration()) {
        self.init(
            settings: Self.clientConfiguration(configuration), uploadChunkSize: configuration.uploadChunkSize,
            proxy: .environment)
    }

    /// Creates a transport with an `HTTPClient` of its own that applies `trust` to its TLS
    /// connections and sends requests through the proxies the process's environment names
    /// (call ``shutdown()`` when done with it), or fails at once with what it cannot apply.
    ///
    /// Roots of your own (with or without the system's) and a client identity for mutual TLS
    /// are applied through NIOSSL's `TLSConfiguration`. Pins are not: AsyncHTTPClient 1.37
    /// makes its TLS connections with NIOSSL's own verification and takes no custom
    /// verification callback, so this transport never sees a chain to check, and a policy with
    /// pins fails with ``ClientError/Code/trustPolicyUnsupported``. A server whose chain the
    /// roots do not verify (an unknown CA, an expired certificate, another host's) fails the
    /// request with ``ClientError/Code/serverTrustFailed``, which is not retried.
    /// - Parameters:
    ///   - configuration: The transport's settings.
    ///   - trust: The trust policy.
    /// - Throws: ``ClientError/Code/trustPolicyUnsupported`` for pins;
    ///   ``ClientError/Code/invalidRequest`` for a certificate or key NIOSSL cannot read, or a
    ///   policy that trusts no root.
    public convenience init(configuration: Configuration = Configuration(), trust: TrustPolicy) throws(ClientError) {
        try self.init(configuration: configuration, trust: trust, proxy: .environment)
    }

    /// Creates a transport with an `HTTPClient` of its own that applies `trust` to its TLS
    /// connections and `proxy` to its requests (call ``shutdown()`` when done with it), or
    /// fails at once with what it cannot apply.
    ///
    /// AsyncHTTPClient takes one proxy per `HTTPClient`: the transport keeps its own client
    /// for the requests that go to their origin and, made on the first request through each
    /// proxy, one more per proxy (at most 16 at once, the least recently used idle one shut
    /// down past that), all with the same settings, all shut down by ``shutdown()``.
    ///
    /// - An HTTP proxy: AsyncHTTPClient opens a tunnel with `CONNECT` (RFC 9110 §9.3.6) for
    ///   every request, `http` ones too (TLS, for `https`, then runs through the tunnel to the
    ///   origin), so `Proxy-Authorization` (RFC 9110 §11.7.1) goes only in the `CONNECT`,
    ///   never to an origin. A proxy with credentials is first asked without them; when it
    ///   answers `407 Proxy Authentication Required` (RFC 9110 §15.5.8), the request is sent
    ///   once more with `Basic` credentials (RFC 7617), and later requests through that proxy
    ///   carry them from the start. AsyncHTTPClient does not show the proxy's
    ///   `Proxy-Authenticate` challenge (RFC 9110 §11.7.1) and answers only with `Basic` or
    ///   `Bearer`, so a proxy that asks for `Digest` cannot be answered. A refusal of the
    ///   credentials (a second `407`, or any refused `CONNECT` once they were sent: tinyproxy
    ///   answers wrong ones with `401`, and AsyncHTTPClient does not report the status) is
    ///   ``ClientError/Code/proxyAuthenticationFailed``, naming the proxy and not the origin;
    ///   so is a `407` from a proxy the policy gives no credentials for. A one-shot stream body
    ///   is sent again too: AsyncHTTPClient asks for no byte of a body before the tunnel is open.
    /// - A SOCKS5 proxy (RFC 1928): without credentials only (AsyncHTTPClient offers no
    ///   authentication method but "no authentication required").
    /// - A refused tunnel (a status other than 2xx or 407, which AsyncHTTPClient does not
    ///   report), a SOCKS5 refusal, a handshake that times out and a proxy that cannot be
    ///   reached are ``ClientError/Code/proxyConnectFailed``, which the client's default retry
    ///   stack retries as it does ``ClientError/Code/cannotConnect``: nothing reached the origin.
    /// - Unix-socket URLs (`http+unix://`, `https+unix://`, `unix://`) never go through a proxy.
    ///
    /// - Parameters:
    ///   - configuration: The transport's settings.
    ///   - trust: The trust policy; the system's roots by default.
    ///   - proxy: Which proxy each request goes through.
    /// - Throws: As ``init(configuration:trust:)``; ``ClientError/Code/proxyUnsupported`` for
    ///   ``ProxyPolicy/through(_:bypass:)`` with a SOCKS5 proxy with credentials (such a proxy
    ///   chosen per request, by the environment or a closure, fails that request instead);
    ///   ``ClientError/Code/invalidRequest`` for a proxy with no valid host or port.
    public convenience init(
        configuration: Configuration = Configuration(), trust: TrustPolicy = .system, proxy: ProxyPolicy
    ) throws(ClientError) {
        try Self.checkAtOnce(proxy)
        self.init(
            settings: try Self.clientConfiguration(configuration, trust: trust),
            uploadChunkSize: configuration.uploadChunkSize, proxy: proxy)
    }

    /// Creates a transport over `client`, which the caller owns and shuts down after the last
    /// request (``shutdown()`` leaves it alone).
    ///
    /// The client must not follow redirects (`redirectConfiguration: .disallow`, as
    /// ``clientConfiguration(_:)`` makes it): Heron's client follows them. Its timeouts,
    /// connection pool, proxy, TLS and decompression settings are used as they are: no
    /// ``ProxyPolicy`` applies (``proxyPolicy`` is `nil`), and responses report no
    /// ``TransportResponse/proxy``.
    /// - Parameters:
    ///   - client: An `HTTPClient` the caller shuts down.
    ///   - uploadChunkSize: The chunk size for reading file and stream bodies; 256 KiB by default.
    public convenience init(client: HTTPClient, uploadChunkSize: Int = 256 * 1024) {
        self.init(client: client, owning: false, uploadChunkSize: uploadChunkSize, proxy: nil, proxyClients: nil)
    }

    /// A transport that owns a client made with `settings`, and the clients of `proxy`'s proxies.
    private convenience init(settings: HTTPClient.Configuration, uploadChunkSize: Int, proxy: ProxyPolicy) {
        let group = HTTPClient.defaultEventLoopGroup
        let client = HTTPClient(eventLoopGroup: group, configuration: settings)
        let proxyClients = proxy.isDirect ? nil : ProxyClients(settings: settings, eventLoopGroup: group)
        self.init(
            client: client, owning: true, uploadChunkSize: uploadChunkSize, proxy: proxy, proxyClients: proxyClients)
    }

    private init(
        client: HTTPClient, owning: Bool, uploadChunkSize: Int, proxy: ProxyPolicy?, proxyClients: ProxyClients?
    ) {
        self.client = client
        self.ownsClient = owning
        self.uploadChunkSize = max(1024, uploadChunkSize)
        self.proxyPolicy = proxy
        self.proxyClients = proxyClients
        watchdog = Watchdog(eventLoop: client.eventLoopGroup.next())
    }

    deinit {
        // An owned client left running would hold its connections (and AsyncHTTPClient
        // asserts in debug builds): shut it down now, without waiting.
        if ownsClient, !shutDown.withLockedValue({ $0 }) {
            client.shutdown().whenComplete { _ in }
            proxyClients?.shutdownNow()
        }
    }

    /// The AsyncHTTPClient settings a transport made with `configuration` gives its own
    /// client: redirects off, connection failures reported at once (Heron's retry policies
    /// decide what to retry), `configuration`'s connection limits, timeouts, decompression
    /// (bounded by its ratio) and TLS shutdown timeout. For a client you make yourself and pass to ``init(client:uploadChunkSize:)``.
    /// - Parameter configuration: The transport's settings.
    /// - Returns: The `HTTPClient.Configuration`.
    public static func clientConfiguration(_ configuration: Configuration) -> HTTPClient.Configuration {
        var settings = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: Self.timeAmount(configuration.connectTimeout)),
            connectionPool: .init(
                idleTimeout: Self.timeAmount(configuration.connectionIdleTimeout),
                concurrentHTTP1ConnectionsPerHostSoftLimit: configuration.maximumConnectionsPerHost),
            decompression: configuration.decompressesResponses
                ? .enabled(limit: .ratio(configuration.maximumDecompressionRatio)) : .disabled)
        settings.connectionPool.retryConnectionEstablishment = false
        // AsyncHTTPClient's own default TLS settings, but for how long a closing connection
        // waits for the server (a cancelled download over TLS otherwise reads on for 5 s).
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.shutdownTimeout = Self.timeAmount(configuration.tlsShutdownTimeout)
        settings.tlsConfiguration = tls
        return settings
    }

    /// The settings of ``clientConfiguration(_:)`` with `trust` applied to their TLS settings
    /// (see ``init(configuration:trust:)``).
    /// - Parameters:
    ///   - configuration: The transport's settings.
    ///   - trust: The trust policy.
    /// - Returns: The `HTTPClient.Configuration`.
    /// - Throws: As ``init(configuration:trust:)``.
    public static func clientConfiguration(
        _ configuration: Configuration, trust: TrustPolicy
    ) throws(ClientError)
        -> HTTPClient.Configuration
    {
        var settings = clientConfiguration(configuration)
        var tls = settings.tlsConfiguration ?? TLSConfiguration.makeClientConfiguration()
        guard trust.pins.isEmpty else {
            throw ClientError(
                .trustPolicyUnsupported,
                "AsyncHTTPClientTransport cannot check pins (for \(trust.pins.map(\.pattern).joined(separator: ", "))): "
                    + "AsyncHTTPClient 1.37 verifies TLS connections with NIOSSL's own rules and takes no custom "
                    + "verification callback")
        }
        func read<Value>(_ what: String, _ make: () throws -> Value) throws(ClientError) -> Value {
            do {
                return try make()
            } catch {
                throw ClientError(.invalidRequest, "NIOSSL cannot read \(what)", underlying: error)
            }
        }
        let roots = try read("a root certificate") {
            try trust.additionalRoots.map { try NIOSSLCertificate(bytes: Array($0.der), format: .der) }
        }
        if !trust.trustsSystemRoots {
            guard !roots.isEmpty else {
                throw ClientError(.invalidRequest, "the trust policy trusts neither the system's roots nor any other")
            }
            tls.trustRoots = .certificates(roots)
        } else if !roots.isEmpty {
            tls.additionalTrustRoots = [.certificates(roots)]
        }
        if let identity = trust.clientIdentity {
            tls.certificateChain = try read("the client certificate chain") {
                try identity.certificateChain.map {
                    .certificate(try NIOSSLCertificate(bytes: Array($0.der), format: .der))
                }
            }
            tls.privateKey = try read("the client identity's private key") {
                .privateKey(try NIOSSLPrivateKey(bytes: Array(identity.privateKeyPEM.utf8), format: .pem))
            }
        }
        settings.tlsConfiguration = tls
        return settings
    }

    /// Shuts down the client this transport owns, and those it made for proxies, once their
    /// requests have ended; does nothing for a client the caller passed (the caller shuts
    /// that down).
    ///
    /// Requests sent after it fail with ``ClientError/Code/transport``.
    /// - Throws: AsyncHTTPClient's error when the shutdown fails.
    public func shutdown() async throws {
        guard ownsClient else { return }
        let first = shutDown.withLockedValue { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        var failure: (any Error)?
        do { try await proxyClients?.shutdown() } catch { failure = error }
        try await client.shutdown()
        if let failure { throw failure }
    }

    /// Whether responses' trailer sections reach the caller (`HTTPBody.trailerFields`): `true`
    /// in a build with this package's `ResponseTrailers` trait on, `false` without it, when a
    /// trailer section AsyncHTTPClient receives is dropped (the body itself is unchanged).
    public static var deliversTrailers: Bool {
        #if ResponseTrailers
        true
        #else
        false
        #endif
    }

    /// Every limit: the transport fails a request with ``ClientError/Code/timedOut`` at
    /// ``TransportOptions/deadline`` and ``TransportOptions/bodyDeadline`` and after
    /// ``TransportOptions/idleTimeout`` without a byte (time spent waiting for the body's
    /// reader aside), and cancels it, as it does when the caller's task is cancelled.
    public var enforcedLimits: TransportLimits { .all }

    /// Sends `request` once and returns the response head and body.
    ///
    /// - Parameters:
    ///   - request: The request, with an absolute `http` or `https` URL, or a Unix-socket URL
    ///     (`http+unix://`, `https+unix://`, `unix://`).
    ///   - options: The idle timeout, the deadline, the most unread body bytes to hold, and
    ///     an upload progress callback.
    /// - Returns: Once the head arrives: the head, and the body as it arrives (with
    ///   ``TransportOptions/awaitsWholeBody``, once the whole body is here).
    /// - Throws: `CancellationError` when the task is cancelled; ``ClientError`` otherwise:
    ///   ``ClientError/Code/cannotConnect``, ``ClientError/Code/connectionLost``,
    ///   ``ClientError/Code/timedOut``, ``ClientError/Code/invalidResponse``,
    ///   ``ClientError/Code/invalidRequest`` or ``ClientError/Code/transport``; through a proxy,
    ///   ``ClientError/Code/proxyConnectFailed``, ``ClientError/Code/proxyAuthenticationFailed``
    ///   and ``ClientError/Code/proxyUnsupported``. The body's reads throw these too, and
    ///   ``ClientError/Code/truncatedBody`` and ``ClientError/Code/responseTooLarge``.
    public func send(_ request: HTTPCore.HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
        try Task.checkCancellation()
        try request.checkURL()
        guard let proxyClients, let chosen = try proxy(for: request) else {
            var upload: Upload?
            return try await send(
                request, options: options, route: Exchange.Route(client: client, proxy: nil, lease: nil),
                upload: &upload)
        }
        return try await send(request, options: options, through: chosen, clients: proxyClients)
    }

    /// Sends `request` once over `route`'s client and returns the response head and body.
    /// - Parameter upload: Set to the reader of the request body, when one reads it.
    func send(
        _ request: HTTPCore.HTTPRequest, options: TransportOptions, route: Exchange.Route, upload: inout Upload?
    ) async throws -> TransportResponse {
        // AsyncHTTPClient's deadline covers the wait for the head; a guard enforces the rest:
        // the body's deadline, and the idle timeout unless that deadline comes first.
        var headDeadline = NIODeadline.distantFuture
        var guardDeadline: NIODeadline?
        var idleTimeout = options.idleTimeout.map(Self.timeAmount)
        var earliest = options.deadline
        if let bodyDeadline = options.bodyDeadline { earliest = earliest.map { min($0, bodyDeadline) } ?? bodyDeadline }
        if let deadline = earliest {
            let now = ContinuousClock.now
            let left = deadline - now
            guard left > .zero else {
                throw ClientError(.timedOut, "no response before the deadline of the attempt", request: request)
            }
            let nioNow = NIODeadline.now()
            headDeadline = nioNow + Self.timeAmount(left)
            if let bodyDeadline = options.bodyDeadline {
                let amount = Self.timeAmount(bodyDeadline - now)
                guardDeadline = nioNow + amount
                if let idle = idleTimeout, idle >= amount { idleTimeout = nil }
            }
        }
        var guardian: TransferGuard?
        // A call's timeout bounds the wait for the head; a shorter idle timeout set for the body
        // must not end a slow server's answer.
        let idleBeforeHead = options.deadline == nil
        if guardDeadline != nil || idleTimeout != nil {
            guardian = TransferGuard(deadline: guardDeadline, idleTimeout: idleTimeout, idleBeforeHead: idleBeforeHead)
        }
        #if !ResponseTrailers
        // A request body in memory or none, no progress to report: the delegate API, with no
        // task of AsyncHTTPClient's or of this transport's, the body collected whole on the event
        // loop or pushed to its reader with backpressure.
        if options.progress == nil, Self.isInMemory(request.body) {
            // AsyncHTTPClient's deadline would bound the whole body here: the guard keeps the head's.
            if headDeadline != .distantFuture || guardian != nil {
                guardian = TransferGuard(
                    deadline: guardDeadline, idleTimeout: idleTimeout,
                    headDeadline: headDeadline == .distantFuture ? nil : headDeadline, idleBeforeHead: idleBeforeHead)
            }
            let exchange = Exchange(
                transport: self, request: request, options: options, upload: nil, guardian: guardian, progress: nil,
                route: route)
            transfers.add()
            if let guardian { watchdog.watch(guardian) }
            guard options.awaitsWholeBody else { return try await StreamedExchange.run(exchange) }
            return try await BufferedExchange.run(exchange)
        }
        #endif
        var clientRequest = request.makeClientRequest()
        let progress = options.progress.map(ProgressReports.init)
        if let body = request.body {
            if case .data(let data) = body.source, progress == nil {
                clientRequest.body = .bytes(ByteBuffer(bytes: data))
            } else {
                let reader = Upload(body: body, chunkSize: uploadChunkSize, progress: progress, guardian: guardian)
                clientRequest.body = reader.clientBody
                upload = reader
            }
        }
        let exchange = Exchange(
            transport: self, request: request, options: options, upload: upload, guardian: guardian,
            progress: progress, route: route)
        transfers.add()
        guard let guardian else { return try await exchange.run(clientRequest, headDeadline: headDeadline) }
        watchdog.watch(guardian)
        // AsyncHTTPClient's deadline ends the wait for the head, unless the idle timeout
        // passes first: the guard then stops it, by cancelling a task of its own (a wait
        // only its task's cancellation ends, and the caller's task must not be cancelled).
        guard guardian.due < headDeadline else {
            return try await exchange.run(clientRequest, headDeadline: headDeadline)
        }
        return try await guardian.run { [clientRequest, headDeadline] in
            try await exchange.run(clientRequest, headDeadline: headDeadline)
        }
    }

    /// Whether `body` is bytes in memory, or there is none.
    static func isInMemory(_ body: HTTPBody?) -> Bool {
        guard let body else { return true }
        if case .data = body.source { return true }
        return false
    }

    /// `duration` as NIO's time amount, clamped to what it can hold.
    static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        guard seconds < Int64.max / 1_000_000_000 - 1 else { return .nanoseconds(.max) }
        return .nanoseconds(max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
    }
}
