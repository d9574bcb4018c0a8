import HTTPCore

extension ClientError {
    /// Wraps `error` once: a `ClientError` passes through (gaining request context it
    /// lacks), `CancellationError` becomes ``Code/cancelled``, anything else `fallback`.
    @inline(never)
    static func wrapping(_ error: any Error, request: HTTPRequest, fallback: Code) -> ClientError {
        if var error = error as? ClientError {
            if error.url == nil {
                error.method = request.method
                error.url = request.url
            }
            return error
        }
        if error is CancellationError {
            return ClientError(.cancelled, "the task awaiting the request was cancelled", request: request)
        }
        if let error = error as? HTTPCoreError {
            return ClientError(.invalidRequest, error.description, request: request, underlying: error)
        }
        return ClientError(fallback, "\(error)", request: request, underlying: error)
    }

    /// Throws the error a fluent modifier kept in `request` (`HTTPRequest.pendingError`),
    /// as ``Code/invalidRequest`` with the original as ``underlying``: such a request is never
    /// sent. `interceptor`, when given, is the one whose `prepare` left the error
    /// (`request = request.header("X-Trace", "a\r\nb")`), and the message names it.
    static func checkBuilt(_ request: HTTPRequest, by interceptor: (any Interceptor)? = nil) throws(ClientError) {
        guard let pending = request.pendingError else { return }
        let source = interceptor.map { "the interceptor \(type(of: $0)) left the request" } ?? "the request was built"
        throw ClientError(
            .invalidRequest, "\(source) with an error: \(pending)", request: request, underlying: pending)
    }

    /// A copy carrying `attempts` when it has none.
    func withAttempts(_ attempts: [Attempt]) -> ClientError {
        guard self.attempts.isEmpty, !attempts.isEmpty else { return self }
        var copy = self
        copy.attempts = attempts
        return copy
    }
}
