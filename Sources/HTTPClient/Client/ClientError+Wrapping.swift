import HTTPCore

extension ClientError {
    /// Wraps `error` once: a `ClientError` passes through (gaining request context it
    /// lacks), `CancellationError` becomes ``Code/cancelled``, anything else `fallback`.
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

    /// A copy carrying `attempts` when it has none.
    func withAttempts(_ attempts: [Attempt]) -> ClientError {
        guard self.attempts.isEmpty, !attempts.isEmpty else { return self }
        var copy = self
        copy.attempts = attempts
        return copy
    }
}
