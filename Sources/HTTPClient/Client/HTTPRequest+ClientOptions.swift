import HTTPCore

/// The keys of the client's settings in ``HTTPCore/HTTPRequest/Options``.
enum TimeoutOption: HTTPRequest.OptionKey { typealias Value = Duration }
enum RetryOption: HTTPRequest.OptionKey { typealias Value = RetryStack }
enum RetriesNonIdempotentOption: HTTPRequest.OptionKey { typealias Value = Bool }
enum ProgressOption: HTTPRequest.OptionKey { typealias Value = @Sendable (TransferProgress) -> Void }
enum InterceptorsOption: HTTPRequest.OptionKey { typealias Value = [any Interceptor] }
enum ResponseBodyLimitOption: HTTPRequest.OptionKey { typealias Value = Int }
enum DeadlineOption: HTTPRequest.OptionKey { typealias Value = ContinuousClock.Instant }
enum IdleTimeoutOption: HTTPRequest.OptionKey { typealias Value = Duration }

extension HTTPRequest {
    /// This request with its own timeout, over the client's: the longest each attempt may wait
    /// for the response head, and then for each chunk of the body (``Client/timeout``).
    ///
    /// ```swift
    /// let response = try await client.send(.get("report").timeout(.seconds(120)).retries(5))
    /// ```
    /// - Parameter timeout: The longest wait for the head, and between body chunks.
    /// - Returns: The request with the setting.
    public func timeout(_ timeout: Duration) -> HTTPRequest {
        var copy = self
        copy.options[TimeoutOption.self] = timeout
        return copy
    }

    /// This request retried up to `count` times after a transport failure or a retryable
    /// status (408, 429, 500, 502, 503, 504), with exponential backoff, in place of the
    /// client's retry policies.
    /// - Parameter count: The most retries; 0 for none.
    /// - Returns: The request with the setting.
    public func retries(_ count: Int) -> HTTPRequest {
        // At most a million: beyond that no caller means a number, and count + 1 must not overflow.
        let count = min(max(0, count), 1_000_000)
        return retry(
            count == 0
                ? .none
                : [
                    .transportErrors(max: count), .status(max: count), .attempts(max: count + 1),
                    .backoff(.exponential(base: 0.25, cap: 8), jitter: .full),
                ])
    }

    /// This request with its own retry policies, in place of the client's.
    /// - Parameter policies: The retry stack for this request.
    /// - Returns: The request with the setting.
    public func retry(_ policies: RetryStack) -> HTTPRequest {
        var copy = self
        copy.options[RetryOption.self] = policies
        return copy
    }

    /// This request opted in to (or out of) retries although its method is not idempotent.
    /// - Parameter retries: Whether the retry policies may re-send it.
    /// - Returns: The request with the setting.
    public func retriesNonIdempotent(_ retries: Bool = true) -> HTTPRequest {
        var copy = self
        copy.options[RetriesNonIdempotentOption.self] = retries
        return copy
    }

    /// This request reporting upload and download progress to `handler`, from any thread.
    ///
    /// Each call adds a handler: `.uploadProgress { }` and `.downloadProgress { }` on one
    /// request both report.
    /// - Parameter handler: Called with each progress update.
    /// - Returns: The request with the setting.
    public func progress(_ handler: @escaping @Sendable (TransferProgress) -> Void) -> HTTPRequest {
        var copy = self
        if let earlier = options[ProgressOption.self] {
            copy.options[ProgressOption.self] = { progress in
                earlier(progress)
                handler(progress)
            }
        } else {
            copy.options[ProgressOption.self] = handler
        }
        return copy
    }

    /// This request reporting how much of its body has been sent, from any thread.
    ///
    /// ```swift
    /// let response = try await client.send(
    ///     .post("post").body(HTTPBody(Data(count: 1 << 20))).uploadProgress { print($0.fraction) })
    /// print(response.status)  // 200 OK, after fractions up to 1.0
    /// ```
    /// - Parameter handler: Called with each upload update; ``TransferProgress/fraction`` is
    ///   exact whenever the body's length is known (bytes, a file, a form).
    /// - Returns: The request with the setting.
    public func uploadProgress(_ handler: @escaping @Sendable (TransferProgress) -> Void) -> HTTPRequest {
        progress { if $0.direction == .upload { handler($0) } }
    }

    /// This request reporting how much of the response body has arrived, from any thread.
    /// - Parameter handler: Called with each download update; ``TransferProgress/fraction`` is
    ///   exact when the response declares its length, else 0 until the last report's 1.
    /// - Returns: The request with the setting.
    public func downloadProgress(_ handler: @escaping @Sendable (TransferProgress) -> Void) -> HTTPRequest {
        progress { if $0.direction == .download { handler($0) } }
    }

    /// This request with interceptors of its own, added after those it has: their `prepare`
    /// runs before the client's interceptors, their `decide` after them.
    /// - Parameter interceptors: The interceptors.
    /// - Returns: The request with the interceptors.
    public func intercepted(by interceptors: any Interceptor...) -> HTTPRequest {
        var copy = self
        copy.options[InterceptorsOption.self] = (options[InterceptorsOption.self] ?? []) + interceptors
        return copy
    }

    /// This request with a deadline for the whole call, `duration` from now: every attempt,
    /// backoff wait, redirect and interceptor step (a token refresh) included. When it passes,
    /// the attempt in flight is cancelled and the call throws ``ClientError/Code/timedOut``
    /// naming the attempts made; a backoff that would end past it is not started. It takes
    /// the place of the client's ``Client/deadline``.
    /// - Parameter duration: The time the whole call may take, from now.
    /// - Returns: The request with the deadline.
    public func deadline(_ duration: Duration) -> HTTPRequest {
        deadline(.now + duration)
    }

    /// This request with a deadline for the whole call at `instant`.
    /// - Parameter instant: When the call must have ended.
    /// - Returns: The request with the deadline.
    public func deadline(_ instant: ContinuousClock.Instant) -> HTTPRequest {
        var copy = self
        copy.options[DeadlineOption.self] = instant
        return copy
    }

    /// This request with an idle timeout for its response body, apart from its timeout: the
    /// longest a call (``Client/send(_:options:)``, ``Client/download(_:to:options:)``,
    /// ``Client/stream(_:options:)``) waits for the next chunk before it fails with
    /// ``ClientError/Code/timedOut`` and cancels the request (``RequestOptions/idleTimeout``).
    ///
    /// ```swift
    /// let response = try await client.stream(.get("logs/tail").idleTimeout(.seconds(15)))
    /// ```
    /// - Parameter timeout: The longest wait between chunks.
    /// - Returns: The request with the idle timeout.
    public func idleTimeout(_ timeout: Duration) -> HTTPRequest {
        var copy = self
        copy.options[IdleTimeoutOption.self] = timeout
        return copy
    }

    /// This request with a limit on the response bytes buffered.
    /// - Parameter limit: The most bytes; a larger response fails with ``ClientError/Code/responseTooLarge``.
    /// - Returns: The request with the limit.
    public func responseBodyLimit(_ limit: Int) -> HTTPRequest {
        var copy = self
        copy.options[ResponseBodyLimitOption.self] = limit
        return copy
    }
}

extension RequestOptions {
    /// These options with the settings `request` carries laid over them; applied once per
    /// call, by the public entry points, before they choose how the body is delivered.
    func applying(_ request: HTTPRequest) -> RequestOptions {
        guard !request.options.isEmpty else { return self }
        var options = self
        if let timeout = request.options[TimeoutOption.self] { options.timeout = timeout }
        if let idle = request.options[IdleTimeoutOption.self] { options.idleTimeout = idle }
        if let deadline = request.options[DeadlineOption.self] { options.deadline = deadline }
        if let retries = request.options[RetriesNonIdempotentOption.self] { options.retriesNonIdempotent = retries }
        if let limit = request.options[ResponseBodyLimitOption.self] { options.responseBodyLimit = limit }
        if let interceptors = request.options[InterceptorsOption.self] {
            options.interceptors = interceptors + options.interceptors
        }
        if let progress = request.options[ProgressOption.self] {
            options.progress = options.progress.map { .both($0, .callback(progress)) } ?? .callback(progress)
        }
        return options
    }
}
