import HTTPCore

/// Settings for one call of ``Client``: timeout, retry opt-in, shared values, progress.
///
/// ```swift
/// var options = RequestOptions(timeout: .seconds(5))
/// options.retriesNonIdempotent = true  // this POST carries an idempotency key
/// options.progress = .callback { print($0) }
/// let response = try await client.send(request, options: options)
/// ```
public struct RequestOptions: Sendable {
    /// The longest each attempt may wait for the response head (its redirects and interceptor
    /// steps included), and then for each chunk of the body unless ``idleTimeout`` is set; `nil`
    /// for the client's ``Client/timeout``. It does not bound the whole body: a long download
    /// that keeps arriving goes on (``deadline`` bounds the whole call).
    public var timeout: Duration?
    /// Whether the retry policies may re-send this request although its method is not
    /// idempotent (`POST`, `PATCH`). Off by default.
    public var retriesNonIdempotent: Bool
    /// Values for the interceptors, available as ``InterceptorContext/values``.
    public var values: RequestValues
    /// Where upload and download progress goes, if anywhere: a callback or an
    /// `AsyncStream`, which the client finishes when the call ends.
    public var progress: ProgressDestination?
    /// The most bytes ``Client/send(_:options:)`` buffers; a larger response fails with
    /// ``ClientError/Code/responseTooLarge``. For streams, the most unread bytes buffered.
    public var responseBodyLimit: Int
    /// The most redirects to follow, or `nil` for the client's limit.
    public var redirectLimit: Int?
    /// Interceptors for this call only, around the client's own: their `prepare` runs
    /// before the client's interceptors (in this order) and their `decide` after them (in
    /// reverse), so the client's logging and authentication see the request as these
    /// shaped it.
    public var interceptors: [any Interceptor]
    /// The longest the response body may go without a chunk, for ``Client/send(_:options:)``,
    /// the downloads and ``Client/stream(_:options:)`` alike, or `nil` for ``timeout``. When it
    /// passes, the call (or the stream's reading) fails with ``ClientError/Code/timedOut`` and
    /// the request is cancelled, on any transport. It bounds silence, not the whole body: a
    /// server that sends a little at a time goes on for as long as it sends, and time the body
    /// waits for a slow reader (a slow disk, a busy loop) is not silence. The wait for the head
    /// is bounded by ``timeout``, not by this. To end a body at a time of your choosing, set
    /// ``deadline`` or cancel the task that reads it.
    public var idleTimeout: Duration?
    /// When the whole call must have ended, every attempt, backoff wait, redirect and
    /// interceptor step included, or `nil` for the client's ``Client/deadline`` (if any). For
    /// ``Client/stream(_:options:)`` it bounds the call up to the response head; the body
    /// then belongs to its reader and its idle timeout.
    /// When it passes, the attempt in flight is cancelled and the call throws
    /// ``ClientError/Code/timedOut`` naming the attempts made; a backoff that would end past it
    /// is not started.
    public var deadline: ContinuousClock.Instant?
    /// Settings for the transports beneath the client, laid over the request's own
    /// `HTTPRequest.options` for this call (a value set here wins). A module that
    /// decorates a transport declares its keys and, usually, a typed property over this
    /// store; the client only passes it on.
    public var requestOptions: HTTPRequest.Options
    /// Whether a download that fails after writing part of a body it could resume keeps the
    /// partial file and returns it in ``ClientError/resumableDownload`` (for
    /// ``Client/download(resuming:request:options:)``); `false` by default: a failed download
    /// leaves nothing behind.
    public var keepsPartialDownload = false

    /// Creates options.
    /// - Parameters:
    ///   - timeout: The longest wait for the head and between body chunks, or `nil` for the
    ///     client's.
    ///   - retriesNonIdempotent: Whether non-idempotent methods may be retried.
    ///   - values: Values for the interceptors.
    ///   - responseBodyLimit: The most bytes to buffer; 64 MiB by default.
    ///   - redirectLimit: The most redirects, or `nil` for the client's limit.
    ///   - interceptors: Interceptors for this call only, around the client's own.
    ///   - progress: Where upload and download progress goes, if anywhere.
    ///   - idleTimeout: The longest the body may go without a chunk, or `nil` for `timeout`.
    ///   - deadline: When the whole call must have ended, or `nil` for the client's deadline.
    public init(
        timeout: Duration? = nil, retriesNonIdempotent: Bool = false, values: RequestValues = RequestValues(),
        responseBodyLimit: Int = RequestOptions.defaultResponseBodyLimit, redirectLimit: Int? = nil,
        interceptors: [any Interceptor] = [], progress: ProgressDestination? = nil, idleTimeout: Duration? = nil,
        deadline: ContinuousClock.Instant? = nil
    ) {
        self.requestOptions = HTTPRequest.Options()
        self.deadline = deadline
        self.idleTimeout = idleTimeout
        self.timeout = timeout
        self.retriesNonIdempotent = retriesNonIdempotent
        self.values = values
        self.progress = progress
        self.responseBodyLimit = responseBodyLimit
        self.redirectLimit = redirectLimit
        self.interceptors = interceptors
    }

    /// The default ``responseBodyLimit``: 64 MiB.
    public static let defaultResponseBodyLimit = 64 * 1024 * 1024
}

/// Where a call reports how far its upload and download have got.
///
/// ```swift
/// let (updates, continuation) = AsyncStream.makeStream(of: TransferProgress.self)
/// var options = RequestOptions()
/// options.progress = .updates(continuation)
/// async let file = client.download(request, to: destination, options: options)
/// for await update in updates { print(update.fractionCompleted ?? 0) }
/// _ = try await file
/// ```
public enum ProgressDestination: Sendable {
    /// Calls the closure with each report, from any thread, in order per direction.
    case callback(@Sendable (TransferProgress) -> Void)
    /// Yields each report to the stream, and finishes it when the call ends (for
    /// ``Client/stream(_:options:)``, when the response head arrives), so a `for await`
    /// loop over the stream terminates.
    case updates(AsyncStream<TransferProgress>.Continuation)
    /// Reports to both destinations, the first first.
    indirect case both(ProgressDestination, ProgressDestination)

    /// Hands `progress` to the destination.
    /// - Parameter progress: The report.
    public func report(_ progress: TransferProgress) {
        switch self {
        case .callback(let callback): callback(progress)
        case .updates(let continuation): continuation.yield(progress)
        case .both(let first, let second):
            first.report(progress)
            second.report(progress)
        }
    }

    /// Finishes the streams among the destinations: the call reports nothing more.
    public func finish() {
        switch self {
        case .callback: break
        case .updates(let continuation): continuation.finish()
        case .both(let first, let second):
            first.finish()
            second.finish()
        }
    }
}
