import Foundation
import HTTPCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Sends requests through interceptors, retry policies and redirects to a transport.
///
/// A client holds a base URL, default header fields, a ``ClientTransport``, and the
/// chains around it. It is safe to share across tasks; make one per API and reuse it.
///
/// The path of one call, for every attempt:
/// 1. The request's URL is resolved against ``baseURL`` (keeping its path prefix:
///    `/v2` + `users` → `/v2/users`) and the default ``headerFields`` missing from the
///    request are added.
/// 2. ``interceptors`` prepare it, **in array order**.
/// 3. The transport sends it; redirects are followed here, beneath the interceptors,
///    up to ``redirectLimit``; the attempt is bounded by the timeout.
/// 4. ``interceptors`` decide on the response or error, **in reverse order**.
/// 5. The ``retry`` stack decides whether to send it again, and after what wait.
///
/// ``observers`` see every step of it and change nothing.
///
/// Cancelling the task that awaits a call cancels the network request promptly and
/// the call throws ``ClientError`` with code ``ClientError/Code/cancelled``.
///
/// ```swift
/// let client = Client(
///     baseURL: baseURL,  // such as https://api.example.com/v2
///     interceptors: [BearerAuth(token: "secret"), Logging(.headers) { print($0) }],
///     retry: [.transportErrors(max: 3), .status([429, 503]), .backoff(.exponential(base: 0.5, cap: 30))]
/// )
/// let response = try await client.send(HTTPRequest(url: URL(string: "bearer")!))
/// print(response.status)  // 200 OK
/// ```
public final class Client: Sendable {
    /// The URL relative request URLs resolve against, if any.
    public let baseURL: URL?
    /// Fields added to every request that does not already have a field of that name; the
    /// credential fields among them only to requests for the base URL's origin.
    public let headerFields: HTTPFields
    /// What sends the requests.
    public let transport: any ClientTransport
    /// The interceptors: `prepare` runs in this order, `decide` in reverse.
    public let interceptors: [any Interceptor]
    /// The observers, each fed through its own queue.
    public let observers: [any ClientObserver]
    /// The retry policies.
    public let retry: RetryStack
    /// The most redirects one attempt follows; 0 returns redirects unfollowed.
    public let redirectLimit: Int
    /// The longest each attempt may wait for the response head (its redirects included), and
    /// then for each chunk of the body, unless a request sets its own
    /// ``RequestOptions/timeout`` (or ``RequestOptions/idleTimeout`` for the body); `nil` for
    /// none. URLSession's `timeoutInterval` and OkHttp's read timeout mean the same: a body that
    /// keeps arriving is never cut at the timeout, however long it takes (a 2 GB download at
    /// 10 MB/s completes under the default), while a server silent for longer fails the attempt
    /// with ``ClientError/Code/timedOut``. To bound a whole call, body included, set
    /// ``deadline``. It also bounds each interceptor step of an attempt (the `prepare` chain,
    /// the `decide` chain), even one that ignores cancellation.
    public let timeout: Duration?
    /// Values every call starts with, beneath the call's own ``RequestOptions/values``
    /// (a call's value for the same key wins): what interceptors and the layers above the
    /// client need on every request, such as the endpoint layer's defaults.
    public let values: RequestValues
    /// The longest any call may take, every attempt, backoff wait, redirect and interceptor
    /// step included, unless the call sets its own deadline (``RequestOptions/deadline``,
    /// ``HTTPCore/HTTPRequest/deadline(_:)-(Duration)``); `nil` (the default) for none. A
    /// stream's call ends at its head; its body is bounded by the idle timeout.
    public let deadline: Duration?
    /// Where the client keeps cookies, if anywhere: each request (each redirect hop) gets the
    /// `Cookie` field of its URL, and each response's `Set-Cookie` fields are stored. `nil` (the
    /// default) sends only the cookies a request sets itself and keeps none.
    public let cookies: (any CookieStore)?

    let resolver: BaseURLResolver
    /// The limits ``transport`` enforces itself, read once: the client enforces the others.
    let transportLimits: TransportLimits
    let hub: ObserverHub
    let counter = RequestCounter()
    let deadlines = DeadlineScheduler()
    private let defaultFieldNames: Set<HTTPFieldName>
    /// ``interceptors`` as a call runs them, worked out once.
    let chain: InterceptorChain
    /// The error every call throws, sending nothing: the client was made with base URL text
    /// that is not a URL, or a setting of the layers above that cannot be sent.
    let refusal: ClientError?

    /// Creates a client whose relative request URLs resolve against `baseURL`.
    ///
    /// `baseURL` is a `URL`, not an optional one: `Client(baseURL: URL(string: text))` does not
    /// compile, so a mistyped address cannot leave a client silently without a base URL. Give
    /// the text itself (`Client(baseURL: "https://api.example.com/v2")`) to have a bad one
    /// reported by every call.
    /// - Parameters:
    ///   - baseURL: The URL relative request URLs resolve against.
    ///   - headerFields: Fields added to requests that lack them (`Authorization`, `Cookie` and
    ///     `Proxy-Authorization` only to requests for the base URL's origin).
    ///   - transport: What sends the requests; a new ``URLSessionTransport`` by default.
    ///   - interceptors: Interceptors; `prepare` in this order, `decide` in reverse.
    ///   - observers: Observers of every step.
    ///   - retry: The retry policies; ``RetryStack/default`` by default.
    ///   - redirectLimit: The most redirects per attempt; 10 by default, 0 to not follow.
    ///   - timeout: The longest wait for a response head, and then between body chunks; 60
    ///     seconds by default.
    ///   - values: Values every call starts with; a call's own values win.
    ///   - deadline: The longest any call may take, every attempt and wait included, unless the
    ///     call sets its own; `nil` for none.
    ///   - cookies: Where to keep cookies (an HTTPCookies `CookieJar`); `nil` for none.
    public convenience init(
        baseURL: URL, headerFields: HTTPFields = [], transport: any ClientTransport = URLSessionTransport(),
        interceptors: [any Interceptor] = [], observers: [any ClientObserver] = [], retry: RetryStack = .default,
        redirectLimit: Int = 10, timeout: Duration? = .seconds(60), values: RequestValues = RequestValues(),
        deadline: Duration? = nil, cookies: (any CookieStore)? = nil
    ) {
        self.init(
            base: .url(baseURL), headerFields: headerFields, transport: transport, interceptors: interceptors,
            observers: observers, retry: retry, redirectLimit: redirectLimit, timeout: timeout, values: values,
            deadline: deadline, cookies: cookies)
    }

    /// Creates a client whose relative request URLs resolve against the URL `baseURL` spells,
    /// such as `"https://api.example.com/v2"`.
    ///
    /// Text that is not an absolute `http` or `https` URL with a host (or a Unix-socket URL,
    /// `http+unix://%2Fpath%2Fto.sock/`, for a transport that sends to sockets) makes a client whose
    /// every call fails with ``ClientError/Code/invalidRequest`` naming the text: loudly, at the
    /// first call, never by sending requests elsewhere.
    /// - Parameters:
    ///   - baseURL: The base URL's text.
    ///   - headerFields: Fields added to requests that lack them.
    ///   - transport: What sends the requests; a new ``URLSessionTransport`` by default.
    ///   - interceptors: Interceptors; `prepare` in this order, `decide` in reverse.
    ///   - observers: Observers of every step.
    ///   - retry: The retry policies; ``RetryStack/default`` by default.
    ///   - redirectLimit: The most redirects per attempt; 10 by default, 0 to not follow.
    ///   - timeout: The longest wait for a response head, and then between body chunks; 60
    ///     seconds by default.
    ///   - values: Values every call starts with; a call's own values win.
    ///   - deadline: The longest any call may take; `nil` for none.
    ///   - cookies: Where to keep cookies (an HTTPCookies `CookieJar`); `nil` for none.
    public convenience init(
        baseURL: String, headerFields: HTTPFields = [], transport: any ClientTransport = URLSessionTransport(),
        interceptors: [any Interceptor] = [], observers: [any ClientObserver] = [], retry: RetryStack = .default,
        redirectLimit: Int = 10, timeout: Duration? = .seconds(60), values: RequestValues = RequestValues(),
        deadline: Duration? = nil, cookies: (any CookieStore)? = nil
    ) {
        let base: Base
        // Parsed as strictly as request URLs: text with a stray space is refused, not encoded.
        let url = HTTPRequest.strictURL(baseURL)
        if let url, RedirectFollower.isSendable(url) {
            base = .url(url)
        } else {
            // The text may hold a key (`?api_key=…`): shown redacted, as every URL in an error is.
            base = .invalid(url.map { URLRedaction.display($0) } ?? "text of \(baseURL.count) characters")
        }
        self.init(
            base: base, headerFields: headerFields, transport: transport, interceptors: interceptors,
            observers: observers, retry: retry, redirectLimit: redirectLimit, timeout: timeout, values: values,
            deadline: deadline, cookies: cookies)
    }

    /// Creates a client without a base URL: every request gives an absolute URL.
    /// - Parameters:
    ///   - headerFields: Fields added to requests that lack them.
    ///   - transport: What sends the requests; a new ``URLSessionTransport`` by default.
    ///   - interceptors: Interceptors; `prepare` in this order, `decide` in reverse.
    ///   - observers: Observers of every step.
    ///   - retry: The retry policies; ``RetryStack/default`` by default.
    ///   - redirectLimit: The most redirects per attempt; 10 by default, 0 to not follow.
    ///   - timeout: The longest wait for a response head, and then between body chunks; 60
    ///     seconds by default.
    ///   - values: Values every call starts with; a call's own values win.
    ///   - deadline: The longest any call may take; `nil` for none.
    ///   - cookies: Where to keep cookies (an HTTPCookies `CookieJar`); `nil` for none.
    public convenience init(
        headerFields: HTTPFields = [], transport: any ClientTransport = URLSessionTransport(),
        interceptors: [any Interceptor] = [], observers: [any ClientObserver] = [], retry: RetryStack = .default,
        redirectLimit: Int = 10, timeout: Duration? = .seconds(60), values: RequestValues = RequestValues(),
        deadline: Duration? = nil, cookies: (any CookieStore)? = nil
    ) {
        self.init(
            base: .none, headerFields: headerFields, transport: transport, interceptors: interceptors,
            observers: observers, retry: retry, redirectLimit: redirectLimit, timeout: timeout, values: values,
            deadline: deadline, cookies: cookies)
    }

    /// What a client was given as its base URL.
    package enum Base {
        case none
        case url(URL)
        /// Text that is not an absolute http(s) URL: every call fails naming it.
        case invalid(String)
    }

    /// Creates a client; `refusal`, when given, is the error every call throws (a setting of
    /// the layers above that cannot be sent, such as an endpoint group's invalid field).
    package init(
        base: Base, headerFields: HTTPFields, transport: any ClientTransport, interceptors: [any Interceptor],
        observers: [any ClientObserver], retry: RetryStack, redirectLimit: Int, timeout: Duration?,
        values: RequestValues, deadline: Duration?, cookies: (any CookieStore)? = nil, refusal: ClientError? = nil
    ) {
        var refusal = refusal
        switch base {
        case .none:
            self.baseURL = nil
        case .url(let url):
            self.baseURL = url
        case .invalid(let text):
            self.baseURL = nil
            refusal = ClientError(
                .invalidRequest, "the client's base URL \"\(text)\" is not an absolute http or https URL with a host")
        }
        self.refusal = refusal
        self.deadline = deadline
        self.cookies = cookies
        self.headerFields = headerFields
        self.transport = transport
        self.transportLimits = transport.enforcedLimits
        self.interceptors = interceptors
        self.observers = observers
        self.retry = retry
        self.redirectLimit = max(0, redirectLimit)
        self.timeout = timeout
        self.values = values
        self.resolver = BaseURLResolver(baseURL: baseURL)
        self.hub = ObserverHub(observers)
        self.defaultFieldNames = Set(headerFields.map(\.name))
        self.chain = InterceptorChain(interceptors)
    }

    /// Sends a request and buffers the response body in memory.
    ///
    /// Any status is returned as a response unless an interceptor (such as
    /// ``ResponseValidation``) fails it.
    /// - Parameters:
    ///   - request: The request; a relative URL resolves against ``baseURL``.
    ///   - options: Per-call settings.
    /// - Returns: The response with its body.
    /// - Throws: ``ClientError``: a transport failure, ``ClientError/Code/timedOut``,
    ///   ``ClientError/Code/cancelled``, ``ClientError/Code/tooManyRetries`` and the errors
    ///   of the interceptors.
    @discardableResult
    public func send(
        _ request: HTTPRequest, options: RequestOptions = RequestOptions()
    ) async throws
        -> ClientResponse<Data>
    {
        let options = options.applying(request)
        return try await execute(request, options: options, mode: BufferedBodyMode(limit: options.responseBodyLimit))
    }

    /// Sends a request and writes the response body to a file.
    ///
    /// The file is moved into place only when the call succeeds: every attempt writes beside
    /// `destination`, and what a failed call wrote (a partial body, or the body of a
    /// response the call then gave up on) is removed, leaving an existing file as it was.
    /// Whatever the status of the response returned, its body is written: check
    /// ``ClientResponse/status`` or use ``ResponseValidation``. Folders missing on the way to
    /// `destination` are created, and removed again if the call fails.
    ///
    /// A body cut short (a reset, a timeout, a lost connection) that the retry policy retries
    /// is not fetched again from its start when the server named a strong validator: the next
    /// attempt asks for the rest with `Range` and `If-Range` (RFC 9110 §14.2, §13.1.5) and
    /// appends it. A `200` instead of a `206` (the content changed), a `Content-Range` that
    /// does not continue what was written, or a `416`, starts the body over. With
    /// ``RequestOptions/keepsPartialDownload``, a call that fails keeps what it wrote and
    /// returns it in ``ClientError/resumableDownload``, for ``download(resuming:request:options:)``.
    /// - Parameters:
    ///   - request: The request.
    ///   - destination: Where to put the body; replaced if it exists.
    ///   - options: Per-call settings, such as progress.
    /// - Returns: The response, its body the URL of the file.
    /// - Throws: ``ClientError``, as ``send(_:options:)``, and ``ClientError/Code/fileWriteFailed``.
    @discardableResult
    public func download(
        _ request: HTTPRequest, to destination: URL, options: RequestOptions = RequestOptions()
    )
        async throws -> ClientResponse<URL>
    {
        try await download(request, body: DownloadBody(destination: destination), options: options)
    }

    /// Goes on with a download an earlier call left unfinished (``ClientError/resumableDownload``),
    /// perhaps in an earlier run of the program: asks for the rest of the body with `Range` and
    /// `If-Range`, appends it to the partial file, and moves the file to its destination. If
    /// the content changed meanwhile (the server answers `200`), the body is fetched whole.
    ///
    /// A resume that fails keeps the partial file and returns it again in
    /// ``ClientError/resumableDownload`` (``RequestOptions/keepsPartialDownload`` is always on
    /// here); one that ends with an answer that is not the body (a `404`, written to the
    /// destination as ``download(_:to:options:)`` writes it) leaves the partial file in place.
    /// - Parameters:
    ///   - resumable: What the failed call returned.
    ///   - request: The request to send, for its header fields (credentials, say); by default a
    ///     `GET` of ``ResumableDownload/url``, whose URL it always gets. When that URL is of
    ///     another origin than the request's (the body came through a redirect), its
    ///     `Authorization`, `Cookie` and `Proxy-Authorization` fields are dropped.
    ///   - options: Per-call settings, such as progress.
    /// - Returns: The response (a `206` when the rest came), its body the destination's URL.
    /// - Throws: As ``download(_:to:options:)``; ``ClientError/Code/fileWriteFailed`` when the
    ///   partial file is gone or cannot be written.
    @discardableResult
    public func download(
        resuming resumable: ResumableDownload, request: HTTPRequest? = nil, options: RequestOptions = RequestOptions()
    ) async throws -> ClientResponse<URL> {
        var request = request ?? HTTPRequest(url: resumable.url)
        // The body may have come from another origin than the request named (a redirect to a
        // CDN): credentials go only where the request was for, as a redirect would drop them.
        if !RedirectFollower.sameOrigin(request.url, resumable.url) {
            for name in [HTTPFieldName.authorization, .cookie, .proxyAuthorization] {
                request.headerFields.remove(name)
            }
        }
        request.url = resumable.url
        // What the caller holds stays held: a resume that fails keeps the partial file.
        var options = options
        options.keepsPartialDownload = true
        return try await download(request, body: DownloadBody(resuming: resumable, request: request), options: options)
    }

    private func download(
        _ request: HTTPRequest, body: DownloadBody, options: RequestOptions
    ) async throws
        -> ClientResponse<URL>
    {
        let created = try DownloadFile.createFolders(for: body.destination, request: request)
        var succeeded = false
        defer { if !succeeded { DownloadFile.removeFolders(created) } }
        let options = options.applying(request)
        let response: ClientResponse<FileBodyMode.Written>
        do {
            response = try await execute(request, options: options, mode: FileBodyMode(body: body))
        } catch var error as ClientError {
            error.resumableDownload = body.finish(failed: options.keepsPartialDownload)
            // A kept partial file needs its folder.
            if error.resumableDownload != nil { succeeded = true }
            throw error
        } catch {
            _ = body.finish(failed: false)
            throw error
        }
        let destination: URL
        do {
            destination = try body.commit(keepingPartial: options.keepsPartialDownload)
        } catch {
            _ = body.finish(failed: false)
            throw error
        }
        succeeded = true
        return response.map { _ in destination }
    }

    /// Sends a request and writes the response body to a new file in the temporary folder,
    /// which is yours to move or remove: Alamofire's download without a destination.
    ///
    /// ```swift
    /// let response = try await client.download(.get("bytes/1024"))
    /// print(response.body.path.hasPrefix(FileManager.default.temporaryDirectory.path))  // true
    /// try FileManager.default.removeItem(at: response.body)
    /// ```
    /// - Parameters:
    ///   - request: The request.
    ///   - options: Per-call settings, such as progress.
    /// - Returns: The response, its body the URL of the file (`heron-download-<UUID>`, with the
    ///   extension of the request URL's last path component, if any).
    /// - Throws: As ``download(_:to:options:)``.
    @discardableResult
    public func download(
        _ request: HTTPRequest, options: RequestOptions = RequestOptions()
    ) async throws
        -> ClientResponse<URL>
    {
        var name = "heron-download-\(UUID().uuidString)"
        let pathExtension = request.url.pathExtension
        if !pathExtension.isEmpty, pathExtension.utf8.count <= 16,
            pathExtension.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
        {
            name += ".\(pathExtension)"
        }
        return try await download(
            request, to: FileManager.default.temporaryDirectory.appendingPathComponent(name), options: options)
    }

    /// Sends a request and returns the response body as it arrives.
    ///
    /// The call returns once the response head is in; read the body from
    /// ``ClientResponse/body``. At most ``RequestOptions/responseBodyLimit`` unread bytes
    /// are buffered (some transports cannot slow the server down). The call, its
    /// `finished` observer event and its ``RequestOptions/progress`` stream end when the
    /// head arrives; failures of the body are thrown by the stream. A wait for the next chunk
    /// longer than ``RequestOptions/idleTimeout`` (by default the call's timeout) ends the
    /// stream with ``ClientError/Code/timedOut`` and cancels the request.
    /// - Parameters:
    ///   - request: The request.
    ///   - options: Per-call settings.
    /// - Returns: The response, its body a stream of chunks.
    /// - Throws: ``ClientError``, as ``send(_:options:)``.
    public func stream(
        _ request: HTTPRequest, options: RequestOptions = RequestOptions()
    ) async throws
        -> ClientResponse<ResponseStream>
    {
        let options = options.applying(request)
        // A transport that enforces the idle timeout ends a silent body itself; for the others
        // the stream times each wait for a chunk.
        let idleTimeout =
            transportLimits.contains(.idleTimeout) ? nil : options.idleTimeout ?? options.timeout ?? timeout
        return try await execute(
            request, options: options,
            mode: StreamBodyMode(bufferLimit: options.responseBodyLimit, idleTimeout: idleTimeout))
    }

    /// Tells the observers of something that happened outside any one call, such as an
    /// event stream's reconnect, as an event with a request ID of its own.
    package func notifyObservers(_ kind: ClientEvent.Kind) {
        guard !hub.isEmpty else { return }
        hub.emit(EventBatch(ClientEvent(requestID: counter.next(), elapsed: .zero, kind: kind)))
    }

    /// The request with its URL resolved and the default header fields added.
    func resolved(_ request: HTTPRequest) throws(ClientError) -> HTTPRequest {
        if var error = refusal {
            error.method = request.method
            error.url = request.url
            throw error
        }
        var request = request
        // An absolute URL is kept as it is: the request's storage then stays shared, not copied.
        if BaseURLResolver.needsResolving(request.url) {
            request.url = try resolver.resolve(request.url, for: request)
        }
        if !headerFields.isEmpty {
            let present = defaultFieldNames.filter { request.headerFields.contains($0) }
            // Default credentials stay with the base URL's origin, as BearerAuth's do.
            let foreign = baseURL.map { !RedirectFollower.sameOrigin($0, request.url) } ?? false
            for field in headerFields where !present.contains(field.name) {
                if foreign && RedirectFollower.credentialFields.contains(field.name) { continue }
                request.headerFields.append(field)
            }
        }
        return request
    }
}

/// Hands out call numbers for observer events.
final class RequestCounter: Sendable {
    private let value = Locked<UInt64>(0)

    func next() -> UInt64 {
        value.withLock { value in
            value &+= 1
            return value
        }
    }
}
