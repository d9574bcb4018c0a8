import HTTPCore

/// Holds an access token and refreshes it at most once at a time (single flight).
///
/// When many requests are rejected with the same stale token, the first call to refresh
/// starts one refresh and every other caller waits for that same refresh and gets its
/// token, or its failure. Each refresh, successful or not, opens a new *generation*: a
/// caller that read the token before a refresh completed gets that refresh's outcome
/// instead of starting another, so N concurrent 401s cost exactly one refresh, and a
/// failed refresh fails all of them once with ``ClientError/Code/authenticationFailed``.
/// A request that reads the token afterwards can trigger a new refresh.
///
/// Printed, dumped or shown in a debugger, a refresher never shows its token
/// (`TokenRefresher(token: <redacted>)`); read ``token`` for it.
///
/// ```swift
/// let tokens = TokenRefresher(token: storedToken) { rejected in
///     try await authService.refreshAccessToken()
/// }
/// let client = Client(baseURL: baseURL, interceptors: [BearerAuth(tokens)])
/// ```
public actor TokenRefresher {
    /// Fetches a new token; gets the token that was rejected, if any.
    public typealias Refresh = @Sendable (_ rejected: String?) async throws -> String

    private let refreshToken: Refresh
    private var currentToken: String?
    private var generation = 0
    private var failure: (generation: Int, error: ClientError)?
    private var inFlight: Task<String, any Error>?

    /// Creates a refresher.
    /// - Parameters:
    ///   - token: The token to start with; `nil` fetches one before the first request.
    ///   - refresh: Fetches a new token.
    public init(token: String? = nil, refresh: @escaping Refresh) {
        self.currentToken = token
        self.refreshToken = refresh
    }

    /// The token in use, if any.
    public var token: String? { currentToken }

    /// The token to send and the generation it belongs to, fetching one if there is none.
    func tokenForRequest() async throws -> (token: String, generation: Int) {
        if let currentToken { return (currentToken, generation) }
        let seen = generation
        let token = try await refresh(after: seen)
        return (token, generation)
    }

    /// A token newer than generation `seen`: the outcome of a refresh that completed
    /// since, the one in flight, or a new one.
    /// - Throws: ``ClientError/Code/authenticationFailed`` when that refresh failed.
    func refresh(after seen: Int) async throws -> String {
        if seen < generation {
            if let failure, failure.generation == generation { throw failure.error }
            if let currentToken { return currentToken }
        }
        if let inFlight { return try await inFlight.value }
        let stale = currentToken
        let task = Task { try await self.runRefresh(replacing: stale) }
        inFlight = task
        return try await task.value
    }

    private func runRefresh(replacing stale: String?) async throws -> String {
        defer { inFlight = nil }
        do {
            let token = try await refreshToken(stale)
            currentToken = token
            generation += 1
            failure = nil
            return token
        } catch {
            generation += 1
            let wrapped = ClientError(
                .authenticationFailed, "refreshing the access token failed: \(error)", underlying: error)
            failure = (generation, wrapped)
            throw wrapped
        }
    }
}

extension TokenRefresher: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Never the token: `TokenRefresher(token: <redacted>)`.
    public nonisolated var description: String { "TokenRefresher(token: \(Redacted()))" }

    /// The same as ``description``: the token is never printed.
    public nonisolated var debugDescription: String { description }

    /// A redacted token, for `dump` and debuggers: not the token, the refresh closure or a
    /// refresh in flight.
    public nonisolated var customMirror: Mirror {
        Mirror(self, children: ["token": Redacted()], displayStyle: .class)
    }
}
