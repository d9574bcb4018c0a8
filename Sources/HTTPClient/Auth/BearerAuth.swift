import Foundation
import HTTPCore

/// Sends a bearer token (RFC 6750 §2.1), refreshing it once per request on `401`.
///
/// With a fixed token it only adds `Authorization: Bearer <token>`. With a
/// ``TokenRefresher`` it also reacts to a `401 Unauthorized`: it asks the refresher for
/// a new token (one refresh shared by every request rejected at the same time) and
/// retries the request with it. A second `401` after a refresh, or a failed refresh,
/// fails the request with ``ClientError/Code/authenticationFailed``.
///
/// The field is added only when the request has no `Authorization` field. The one retry
/// after a refresh is an interceptor's: the stack's time budget and the call's deadline
/// bound it (``InterceptorDecision/retry``).
///
/// Printed, dumped or shown in a debugger, the interceptor never shows its token
/// (`BearerAuth(token: <redacted>)`).
///
/// ```swift
/// let tokens = TokenRefresher(token: "stale") { _ in try await fetchToken() }
/// let client = Client(baseURL: baseURL, interceptors: [BearerAuth(tokens)])
/// let response = try await client.send(HTTPRequest(url: URL(string: "token-protected")!))
/// print(response.status, response.metrics.attempts.count)  // 200 OK 2
/// ```
public struct BearerAuth: Interceptor {
    private enum Source: Sendable {
        /// The field, validated once; or why the token cannot be a field value.
        case fixed(Result<HTTPField, HTTPCoreError>)
        case refreshing(TokenRefresher)
    }

    private enum Generation: RequestValueKey { typealias Value = Int }
    private enum Refreshed: RequestValueKey { typealias Value = Bool }

    private let source: Source

    /// Sends a fixed token.
    /// - Parameter token: The token.
    public init(token: String) {
        source = .fixed(
            Result { () throws(HTTPCoreError) in try HTTPField(name: .authorization, value: "Bearer \(token)") })
    }

    /// Sends the refresher's token and refreshes it on `401`.
    /// - Parameter tokens: The shared refresher.
    public init(_ tokens: TokenRefresher) { source = .refreshing(tokens) }

    /// A fixed token never waits; a refresher may.
    var stepsRunInline: Bool {
        if case .fixed = source { return true }
        return false
    }

    /// ``prepare(_:context:)`` for a fixed token, without `await` (called only when
    /// ``stepsRunInline``).
    func prepareNow(_ request: inout HTTPRequest, context: inout InterceptorContext) throws {
        guard case .fixed(let field) = source, !request.headerFields.contains(.authorization),
            context.mayCarryCredentials(request)
        else { return }
        try Self.add(field, to: &request)
    }

    private static func add(_ field: Result<HTTPField, HTTPCoreError>, to request: inout HTTPRequest) throws {
        switch field {
        case .success(let field):
            request.headerFields.append(field)
        case .failure(let error):
            throw ClientError(
                .authenticationFailed, "the bearer token is not a valid field value", request: request,
                underlying: error)
        }
    }

    /// Adds the `Authorization` field, unless the request already has one or goes to another
    /// origin than the client's base URL (``InterceptorContext/mayCarryCredentials(_:)``).
    /// - Parameters:
    ///   - request: The request to change.
    ///   - context: The attempt's context; remembers which token generation was sent.
    /// - Throws: ``ClientError/Code/authenticationFailed`` when a first token cannot be
    ///   fetched or is not a valid field value.
    public func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) async throws {
        // Never to another origin than the client's base URL's (an absolute URL elsewhere).
        guard !request.headerFields.contains(.authorization), context.mayCarryCredentials(request) else { return }
        let token: String
        switch source {
        case .fixed(let field):
            try Self.add(field, to: &request)
            return
        case .refreshing(let refresher):
            let current = try await refresher.tokenForRequest()
            context.values[Generation.self] = current.generation
            token = current.token
        }
        do {
            try request.headerFields.set(.authorization, "Bearer \(token)")
        } catch {
            throw ClientError(
                .authenticationFailed, "the bearer token is not a valid field value", request: request,
                underlying: error)
        }
    }

    /// On `401`, refreshes the token and asks for a retry, once per request. A `401` to a
    /// redirect hop that went without the token (to another origin, or back from one) is left
    /// as it is: the token never went there.
    /// - Parameters:
    ///   - outcome: The attempt's outcome.
    ///   - context: The attempt's context.
    /// - Returns: ``InterceptorDecision/retry`` after a refresh, ``InterceptorDecision/fail(_:)``
    ///   when the refresh failed or the refreshed token was rejected too, else ``InterceptorDecision/proceed``.
    public func decide(
        _ outcome: AttemptOutcome, context: inout InterceptorContext
    ) async throws
        -> InterceptorDecision
    {
        guard case .refreshing(let refresher) = source, case .response(let head, let body) = outcome,
            head.status == .unauthorized, context.values[Generation.self] != nil,
            // A 401 to a hop that went to another origin, or lost the token on the way
            // (A → B → A), refuses a token that never went there.
            !context.lastHopLeftOrigin, context.lastHop?.headerFields.contains(.authorization) ?? true
        else { return .proceed }
        if context.values[Refreshed.self] == true {
            return .fail(
                ClientError(
                    .authenticationFailed, "the server rejected the refreshed bearer token", request: context.request,
                    response: head, body: body))
        }
        do {
            _ = try await refresher.refresh(after: context.values[Generation.self] ?? 0)
        } catch let error as ClientError {
            var failure = error
            failure.method = context.request.method
            failure.url = context.request.url
            failure.response = head
            return .fail(failure)
        }
        context.values[Refreshed.self] = true
        return .retry
    }
}

extension BearerAuth: InlineSteps {}

extension BearerAuth: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Where the token comes from, never the token: `BearerAuth(token: <redacted>)`, or
    /// `BearerAuth(TokenRefresher(token: <redacted>))`.
    public var description: String {
        switch source {
        case .fixed: "BearerAuth(token: \(Redacted()))"
        case .refreshing(let refresher): "BearerAuth(\(refresher))"
        }
    }

    /// The same as ``description``: the token is never printed.
    public var debugDescription: String { description }

    /// A redacted token, or the refresher (which shows none), for `dump` and debuggers.
    public var customMirror: Mirror {
        switch source {
        case .fixed: Mirror(self, children: ["token": Redacted()], displayStyle: .struct)
        case .refreshing(let refresher): Mirror(self, children: ["tokens": refresher], displayStyle: .struct)
        }
    }
}
