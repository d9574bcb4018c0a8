import Foundation
import HTTPCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default transport: sends requests with one `URLSession`, on Linux and Apple platforms.
///
/// The transport sends each request once, exactly as given, and hands back what the
/// server answered: it does not follow redirects (a 3xx comes back as it is), keep
/// cookies or cache responses, so the client and its interceptors decide all of that.
///
/// - Request bodies: bytes go out as one buffer, and files and streams are read in constant
///   memory; all go out with `Content-Length` when their length is known (a file may go
///   chunked instead: see ``Configuration/fileUploadMode``), streams of unknown length
///   chunked.
///   `Content-Length` and `Transfer-Encoding` in the request's fields are replaced by the
///   framing the body needs.
/// - Response bodies: handed over as they arrive, as an `HTTPBody` read once; at most
///   ``TransportOptions/responseBufferLimit`` unread bytes are held.
/// - Cancelling the task that awaits ``send(_:options:)`` cancels the network request and
///   throws `CancellationError` at once.
///
/// URLSession on Linux (swift-corelibs-foundation) has limits this transport works around
/// or documents: the idle timeout is rounded up to whole seconds, and the transport enforces
/// it (and ``TransportOptions/deadline``) on its own clock as well as through URLSession,
/// whose timer shares one work queue with every session of the process and can fire seconds
/// late on a busy machine; a response body has
/// no backpressure (hence ``TransportOptions/responseBufferLimit``),
/// and server-trust challenges never reach a delegate, so certificate pinning is
/// available only on Apple platforms. Header fields are sent and received through
/// dictionaries: repeated request fields are combined into one line (RFC 9110 §5.3), and
/// response fields arrive sorted by name. Proxies there are libcurl's, read from the
/// process's environment for every request (see ``init(trust:proxy:configuration:)``); each
/// response names the proxy it came through (``TransportResponse/proxy``). URLs for a Unix
/// domain socket (`http+unix://`) are refused: `AsyncHTTPClientTransport` takes them.
///
/// ```swift
/// let transport = URLSessionTransport(configuration: .init(maximumConnectionsPerHost: 32))
/// let request = HTTPRequest(url: URL(string: "https://example.com/")!)
/// let response = try await transport.send(request, options: TransportOptions())
/// let bytes = try await response.body?.collect(upTo: 1 << 20) ?? Data()
/// print(response.head.status, bytes.count)
/// ```
public final class URLSessionTransport: ClientTransport {
    /// How a ``URLSessionTransport`` sends file bodies.
    public enum FileUploadMode: Sendable, Hashable {
        /// Read the file in chunks and send it chunked, without `Content-Length`.
        case stream
        /// Send the file with `Content-Length` (the default): every server takes it, and
        /// some refuse chunked request bodies.
        ///
        /// On Linux the file is read as in ``stream``, with libcurl told not to chunk it;
        /// elsewhere URLSession's `uploadTask(with:fromFile:)` sends it.
        case contentLength
    }

    /// Settings of a ``URLSessionTransport``.
    public struct Configuration: Sendable, Hashable {
        /// The most connections open at once to one host (URLSession's default is 6).
        public var maximumConnectionsPerHost: Int
        /// How file bodies are sent.
        public var fileUploadMode: FileUploadMode
        /// The size of the chunks a stream or file body is read in, in bytes.
        public var uploadChunkSize: Int

        /// Creates settings.
        /// - Parameters:
        ///   - maximumConnectionsPerHost: The most connections per host; 64 by default.
        ///   - fileUploadMode: How file bodies are sent; with `Content-Length` by default.
        ///   - uploadChunkSize: The chunk size for reading stream and file bodies; 256 KiB by default.
        public init(
            maximumConnectionsPerHost: Int = 64, fileUploadMode: FileUploadMode = .contentLength,
            uploadChunkSize: Int = 256 * 1024
        ) {
            self.maximumConnectionsPerHost = max(1, maximumConnectionsPerHost)
            self.fileUploadMode = fileUploadMode
            self.uploadChunkSize = max(1024, uploadChunkSize)
        }
    }

    /// The settings this transport was made with.
    public let configuration: Configuration
    /// The proxy policy requests are sent with: the process's environment unless made with
    /// ``init(trust:proxy:configuration:)``.
    public let proxyPolicy: ProxyPolicy
    /// The most connections open at once to one host.
    public var maximumConnectionsPerHost: Int { configuration.maximumConnectionsPerHost }

    let session: URLSession
    let delegate: URLSessionTransportDelegate
    /// The policy whose choice for each request is the proxy the transport reports
    /// (``TransportResponse/proxy``), `nil` when no request goes through a proxy, or when the
    /// platform's settings decide unseen: a policy that names no proxy costs a send nothing.
    let reportedProxies: ProxyPolicy?
    /// Fails requests at their ``TransportOptions/deadline`` and past their
    /// ``TransportOptions/idleTimeout``.
    private let timers = DeadlineScheduler()

    /// Creates a transport with its own ephemeral session that applies `trust` to its TLS
    /// connections, or fails at once when it cannot: a security setting is never ignored.
    ///
    /// URLSession on Linux (swift-corelibs-foundation) gives server-trust challenges to no
    /// delegate and takes no client certificate: there no roots of your own, pins or client
    /// identity can be applied. This transport does not apply them on Apple platforms yet
    /// either. So a policy other than ``TrustPolicy/system`` fails with
    /// ``ClientError/Code/trustPolicyUnsupported`` naming what it holds; use
    /// `AsyncHTTPClientTransport` (the HeronAsyncHTTPClient package) for roots of your own and
    /// mutual TLS.
    /// - Parameters:
    ///   - trust: The trust policy.
    ///   - configuration: The transport's settings.
    /// - Throws: ``ClientError/Code/trustPolicyUnsupported`` for any policy but the system's.
    public convenience init(trust: TrustPolicy, configuration: Configuration = Configuration()) throws(ClientError) {
        guard trust == .system else {
            throw ClientError(
                .trustPolicyUnsupported,
                "URLSessionTransport cannot apply \(trust): URLSession on Linux gives server-trust challenges to no "
                    + "delegate and takes no client certificate, and this transport does not apply a policy on Apple "
                    + "platforms yet")
        }
        self.init(configuration: configuration)
    }

    /// Creates a transport with its own ephemeral session that applies `trust` and `proxy`, or
    /// fails at once with what it cannot apply: a security or network setting is never ignored.
    ///
    /// On Linux, swift-corelibs-foundation hands libcurl no proxy setting
    /// (`connectionProxyDictionary` is ignored); libcurl reads the process's environment for
    /// every transfer, as curl does (`http_proxy`, `https_proxy`/`HTTPS_PROXY`,
    /// `all_proxy`/`ALL_PROXY`, `no_proxy`/`NO_PROXY`; HTTP and SOCKS proxies, Basic
    /// credentials in the proxy's URL). So ``ProxyPolicy/environment`` is what this transport
    /// applies there, and ``ProxyPolicy/direct`` while the environment names no proxy; any
    /// other policy (one proxy, another environment, a closure) fails with
    /// ``ClientError/Code/proxyUnsupported``: use `AsyncHTTPClientTransport` for those.
    /// libcurl answers a proxy's Basic challenge with the credentials of the proxy's URL (it
    /// sends them before any challenge) and no other scheme: corelibs sets no
    /// `CURLOPT_PROXYAUTH`, so a proxy that asks for Digest gets Basic credentials and fails
    /// the request with ``ClientError/Code/proxyAuthenticationFailed``.
    ///
    /// On Apple platforms the session's `connectionProxyDictionary` is set from the policy:
    /// ``ProxyPolicy/direct``, ``ProxyPolicy/through(_:bypass:)`` and an environment (the
    /// process's or one given) apply, with HTTP and SOCKS5 proxies without credentials; a
    /// proxy with credentials and ``ProxyPolicy/choosing(_:)`` fail with
    /// ``ClientError/Code/proxyUnsupported``.
    ///
    /// Each response says which proxy it came through (``TransportResponse/proxy``). A
    /// request whose proxy the policy cannot name (an `https://` or `socks4://` proxy in
    /// `https_proxy`, say, which libcurl would use) fails at send with the policy's error, and
    /// a `407` to a request sent through a proxy (the proxy's answer, RFC 9110 §15.5.8) fails
    /// it with ``ClientError/Code/proxyAuthenticationFailed``; a tunnel the proxy refused is
    /// ``ClientError/Code/proxyConnectFailed``.
    /// - Parameters:
    ///   - trust: The trust policy; the system's by default (see ``init(trust:configuration:)``).
    ///   - proxy: The proxy policy.
    ///   - configuration: The transport's settings.
    /// - Throws: ``ClientError/Code/trustPolicyUnsupported`` or
    ///   ``ClientError/Code/proxyUnsupported`` for what the platform cannot apply.
    public convenience init(
        trust: TrustPolicy = .system, proxy: ProxyPolicy, configuration: Configuration = Configuration()
    ) throws(ClientError) {
        try Self.checkApplicable(proxy)
        guard trust == .system else {
            try self.init(trust: trust, configuration: configuration)
            return
        }
        let sessionConfiguration = Self.ephemeralConfiguration()
        #if !canImport(FoundationNetworking)
        sessionConfiguration.connectionProxyDictionary = try Self.proxyDictionary(for: proxy)
        #endif
        self.init(sessionConfiguration: sessionConfiguration, configuration: configuration, proxy: proxy, reports: true)
    }

    /// Creates a transport with its own ephemeral session: no cookies, no cache.
    /// - Parameter configuration: The transport's settings.
    public convenience init(configuration: Configuration = Configuration()) {
        self.init(sessionConfiguration: Self.ephemeralConfiguration(), configuration: configuration)
    }

    /// An ephemeral session's settings without a cache.
    private static func ephemeralConfiguration() -> URLSessionConfiguration {
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.urlCache = nil
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return sessionConfiguration
    }

    /// Creates a transport whose session uses a copy of `sessionConfiguration`.
    ///
    /// The copy gets ``Configuration/maximumConnectionsPerHost`` and has cookie handling
    /// turned off (no cookie storage, no `Cookie` fields added): the client decides what
    /// a request carries. Proxies, TLS settings and additional header fields are kept as
    /// given; responses are never cached nor served from a cache.
    /// - Parameters:
    ///   - sessionConfiguration: The session settings to start from.
    ///   - configuration: The transport's settings.
    public convenience init(
        sessionConfiguration: URLSessionConfiguration, configuration: Configuration = Configuration()
    ) {
        // On Linux libcurl applies the process's environment whatever the configuration says;
        // on Apple platforms the configuration's proxy settings (the system's by default) apply.
        #if canImport(FoundationNetworking)
        let reports = true
        #else
        let reports = false
        #endif
        self.init(
            sessionConfiguration: sessionConfiguration, configuration: configuration, proxy: .environment,
            reports: reports)
    }

    private init(
        sessionConfiguration: URLSessionConfiguration, configuration: Configuration, proxy: ProxyPolicy, reports: Bool
    ) {
        self.proxyPolicy = proxy
        reportedProxies = reports && !proxy.isDirect ? proxy : nil
        let copy = (sessionConfiguration.copy() as? URLSessionConfiguration) ?? .ephemeral
        copy.httpMaximumConnectionsPerHost = configuration.maximumConnectionsPerHost
        copy.httpShouldSetCookies = false
        copy.httpCookieStorage = nil
        copy.httpCookieAcceptPolicy = .never
        let delegate = URLSessionTransportDelegate()
        #if canImport(FoundationNetworking)
        let queue: OperationQueue = URLSessionInlineQueue()
        #else
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        #endif
        queue.name = "Heron.URLSessionTransport.delegate"
        self.configuration = configuration
        self.delegate = delegate
        self.session = URLSession(configuration: copy, delegate: delegate, delegateQueue: queue)
    }

    deinit {
        let session = self.session
        Self.submitQueue.async { session.finishTasksAndInvalidate() }
    }

    /// Sends `request` once and returns the response head and body.
    ///
    /// - Parameters:
    ///   - request: The request, with an absolute `http` or `https` URL.
    ///   - options: The idle timeout (rounded up to whole seconds, at least one; it counts
    ///     from the send and from every byte that moves after, either way), the deadline,
    ///     the most unread body bytes to hold, and an upload progress callback.
    /// - Returns: Once the head arrives: the head, and the body as it arrives.
    /// - Throws: `CancellationError` when the task is cancelled; ``ClientError`` otherwise:
    ///   ``ClientError/Code/cannotConnect``, ``ClientError/Code/connectionLost``,
    ///   ``ClientError/Code/timedOut``, ``ClientError/Code/invalidResponse``,
    ///   ``ClientError/Code/invalidRequest``, ``ClientError/Code/serverTrustFailed`` (the
    ///   server's certificate did not verify: untrusted, expired, not yet valid, another
    ///   host's), ``ClientError/Code/authenticationFailed`` (the server refused the client
    ///   certificate), ``ClientError/Code/proxyConnectFailed``,
    ///   ``ClientError/Code/proxyAuthenticationFailed``, ``ClientError/Code/proxyUnsupported``
    ///   (see ``init(trust:proxy:configuration:)``) or ``ClientError/Code/transport``; a URL
    ///   for a Unix domain socket (`http+unix`, `https+unix`, `unix`) is
    ///   ``ClientError/Code/invalidRequest``, before anything is sent. The body's
    ///   reads throw these too, and ``ClientError/Code/truncatedBody`` and
    ///   ``ClientError/Code/responseTooLarge``.
    public func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
        try Task.checkCancellation()
        // URLSession's own timer bounds every wait, the head's included: never shorter than the
        // head's deadline, which the transfer's timer keeps (with the idle timeout after the head).
        var sessionTimeout = options.idleTimeout
        if let idle = sessionTimeout, let deadline = options.deadline { sessionTimeout = max(idle, deadline - .now) }
        let urlRequest = try request.makeURLRequest(idleTimeout: sessionTimeout)
        let proxy = reportedProxies == nil ? nil : try proxy(for: request)
        let transfer = URLSessionTransfer(request: request, options: options, timers: timers, proxy: proxy)
        // The deadline and the idle timeout, on Heron's clock: one timer for both.
        if let due = transfer.firstTimerDue { transfer.setTimer(at: due) }
        defer { if transfer.firstTimerDue != nil { transfer.stopTimerIfOver() } }
        let response = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard transfer.prepare(continuation) else { return }
                let submit: @Sendable () -> Void = { [self] in
                    var urlRequest = urlRequest
                    let task = makeTask(for: request, urlRequest: &urlRequest, transfer: transfer)
                    delegate.register(transfer, for: task)
                    if transfer.start(task) {
                        task.resume()
                    } else {
                        delegate.unregister(task)
                        task.cancel()
                    }
                }
                // URLSession's task calls wait for its work queue (one for every session of the
                // process), which other transfers keep busy, and a stream body's read holds until
                // its producer (which may need a cooperative thread) delivers: made here while
                // others run, they could stall the caller's cooperative thread for seconds, and
                // every task queued behind it. So they are made on a queue of ours, unless this
                // is the process's only transfer: the queue then has nothing to do, and calling
                // at once saves a thread switch (sequential requests ran about 13 % slower).
                if URLSessionTransfer.inFlight.withLock({ $0 }) == 1 {
                    submit()
                } else {
                    Self.submitQueue.async(execute: submit)
                }
            }
        } onCancel: {
            transfer.cancel()
        }
        if let proxy, response.head.status.code == 407 {
            // Its body (the proxy's page) is dropped, which stops the task.
            throw Self.proxyRefused(response.head, through: proxy, request: request)
        }
        return response
    }

    /// Every limit: the transport fails a request with ``ClientError/Code/timedOut`` at
    /// ``TransportOptions/deadline`` and ``TransportOptions/bodyDeadline``, and after
    /// ``TransportOptions/idleTimeout`` without a byte (rounded up to whole seconds), and
    /// cancels its URLSession task, as it does when the caller's task is cancelled.
    public var enforcedLimits: TransportLimits { .all }

    /// What URLSession reads a file or stream body from: the file directly when its size
    /// is known, the body's own `InputStream` when it is made from streams, else a pump
    /// from the body's chunks.
    func makeBodySource(
        for body: HTTPBody, onFailure: @escaping @Sendable (any Error) -> Void
    ) -> any URLSessionBodySource {
        if case .file(let url) = body.source, case .known(let size) = body.length {
            return URLSessionDirectBodyReader(.file(url, size: size), onFailure: onFailure)
        }
        if body.makesInputStreams { return URLSessionDirectBodyReader(.inputStream(body), onFailure: onFailure) }
        return URLSessionBodyPump(body: body, chunkSize: configuration.uploadChunkSize, onFailure: onFailure)
    }

    /// Makes URLSession send a body stream of `size` bytes with `Content-Length` instead of
    /// chunked.
    ///
    /// On Linux, swift-corelibs-foundation gives libcurl no length for a body stream, so libcurl
    /// frames it chunked, adding `Transfer-Encoding: chunked` even next to a
    /// `Content-Length` of ours (a request with both is rejected: RFC 9112 §6.3). A
    /// `Transfer-Encoding` field whose value is blank is how libcurl is told to send no
    /// such field (it then never chooses chunked framing), and corelibs passes a
    /// one-space value through as exactly that. libcurl then sends the bytes the stream
    /// gives, which the body source keeps to `size`: a shorter body fails the request
    /// instead of leaving the server waiting. About as fast as a chunked stream, where
    /// `uploadTask(fromFile:)` runs several times slower. Elsewhere CFNetwork sends a body
    /// stream with the `Content-Length` the request sets.
    static func frameWithContentLength(_ urlRequest: inout URLRequest, size: Int64) {
        urlRequest.setValue(String(size), forHTTPHeaderField: "Content-Length")
        #if canImport(FoundationNetworking)
        urlRequest.setValue(" ", forHTTPHeaderField: "Transfer-Encoding")
        #endif
    }

    /// The queue that creates, starts and invalidates URLSession tasks and sessions.
    static let submitQueue = DispatchQueue(label: "Heron.URLSessionTransport.submit")

    /// Attaches the body to `urlRequest` and makes the task that sends it.
    private func makeTask(
        for request: HTTPRequest, urlRequest: inout URLRequest, transfer: URLSessionTransfer
    ) -> URLSessionTask {
        guard let body = request.body else { return session.dataTask(with: urlRequest) }
        switch body.source {
        case .data(let data):
            urlRequest.httpBody = data
            return session.dataTask(with: urlRequest)
        case .file(let url) where configuration.fileUploadMode == .contentLength:
            #if canImport(FoundationNetworking)
            if case .known(let size) = body.length {
                Self.frameWithContentLength(&urlRequest, size: size)
                return streamedTask(for: body, urlRequest: &urlRequest, transfer: transfer)
            }
            #endif
            return session.uploadTask(with: urlRequest, fromFile: url)
        case .stream:
            // A stream of known length keeps it: a streamed multipart form reaches the
            // server with its exact length, and servers that refuse chunked bodies take it.
            if case .known(let size) = body.length { Self.frameWithContentLength(&urlRequest, size: size) }
            return streamedTask(for: body, urlRequest: &urlRequest, transfer: transfer)
        case .file:
            return streamedTask(for: body, urlRequest: &urlRequest, transfer: transfer)
        }
    }

    /// A data task that reads `body` through a body source the transfer keeps.
    private func streamedTask(
        for body: HTTPBody, urlRequest: inout URLRequest, transfer: URLSessionTransfer
    ) -> URLSessionTask {
        let onFailure: @Sendable (any Error) -> Void = { [weak transfer] error in transfer?.requestBodyFailed(error) }
        let source = makeBodySource(for: body, onFailure: onFailure)
        transfer.attach(source)
        if body.isReplayable {
            transfer.allowRemakingBody { [self] in makeBodySource(for: body, onFailure: onFailure) }
        }
        urlRequest.httpBodyStream = source.makeInputStream()
        return session.dataTask(with: urlRequest)
    }
}
