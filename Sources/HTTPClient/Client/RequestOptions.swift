import HTTPCore

/// Settings for one call of ``Client``: timeout, retry opt-in, shared values, progress.
///
/// ```swift
/// var options = RequestOptions(timeout: .seconds(5))
/// options.retriesNonIdempotent = true  // this POST carries an idempotency key
/// options.progress = { print($0) }
/// let response = try await client.send(request, options: options)
/// ```
public struct RequestOptions: Sendable {
    /// The longest one attempt may take, or `nil` for the client's default timeout.
    public var timeout: Duration?
    /// Whether the retry policies may re-send this request although its method is not
    /// idempotent (`POST`, `PATCH`). Off by default.
    public var retriesNonIdempotent: Bool
    /// Values for the interceptors, available as ``InterceptorContext/values``.
    public var values: RequestValues
    /// Called with upload and download progress, from any thread.
    public var progress: (@Sendable (TransferProgress) -> Void)?
    /// Receives the same progress as ``progress``; the client finishes it when the call
    /// ends (for ``Client/stream(_:options:)``, when the response head arrives), so a
    /// `for await` loop over its stream terminates.
    ///
    /// ```swift
    /// let (updates, continuation) = AsyncStream.makeStream(of: TransferProgress.self)
    /// var options = RequestOptions()
    /// options.progressUpdates = continuation
    /// async let file = client.download(request, to: destination, options: options)
    /// for await update in updates { print(update.fractionCompleted ?? 0) }
    /// _ = try await file
    /// ```
    public var progressUpdates: AsyncStream<TransferProgress>.Continuation?
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

    /// Creates options.
    /// - Parameters:
    ///   - timeout: The per-attempt timeout, or `nil` for the client's default.
    ///   - retriesNonIdempotent: Whether non-idempotent methods may be retried.
    ///   - values: Values for the interceptors.
    ///   - responseBodyLimit: The most bytes to buffer; 64 MiB by default.
    ///   - redirectLimit: The most redirects, or `nil` for the client's limit.
    ///   - interceptors: Interceptors for this call only, around the client's own.
    ///   - progress: Called with upload and download progress, from any thread.
    public init(
        timeout: Duration? = nil, retriesNonIdempotent: Bool = false, values: RequestValues = RequestValues(),
        responseBodyLimit: Int = RequestOptions.defaultResponseBodyLimit, redirectLimit: Int? = nil,
        interceptors: [any Interceptor] = [], progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) {
        self.timeout = timeout
        self.retriesNonIdempotent = retriesNonIdempotent
        self.values = values
        self.progress = progress
        self.progressUpdates = nil
        self.responseBodyLimit = responseBodyLimit
        self.redirectLimit = redirectLimit
        self.interceptors = interceptors
    }

    /// The default ``responseBodyLimit``: 64 MiB.
    public static let defaultResponseBodyLimit = 64 * 1024 * 1024

    /// One callback feeding both progress sinks, or `nil` when neither is set.
    var progressHandler: (@Sendable (TransferProgress) -> Void)? {
        switch (progress, progressUpdates) {
        case (nil, nil): return nil
        case (let callback?, nil): return callback
        case (nil, let continuation?): return { continuation.yield($0) }
        case (let callback?, let continuation?):
            return {
                callback($0)
                continuation.yield($0)
            }
        }
    }
}
