import Foundation
import HTTPCore

/// Gives each call of a non-idempotent method one `Idempotency-Key` field, the same on
/// every attempt and redirect of that call, which opts it into the retry policies.
///
/// A `POST` or `PATCH` that failed while in flight (a reset, a timeout) may have been
/// processed; the retry policies re-send it only when it carries an idempotency key, so
/// that the server can recognise the repeat and answer it without acting twice (the IETF
/// HTTPAPI working group's Idempotency-Key header field draft). The key is made once per
/// call, when the call is first prepared, and kept in the call's values for every later
/// attempt; a request that already carries the field keeps its own. Put it before any
/// interceptor that signs requests, so that the key is among what they sign.
///
/// ```swift
/// let client = Client(baseURL: baseURL, interceptors: [IdempotencyKey()])
/// let response = try await client.send(.post("payments").body(HTTPBody("{}"), contentType: .json))
/// print(response.request.headerFields[.idempotencyKey] != nil)  // true
/// ```
public struct IdempotencyKey: SynchronousInterceptor {
    /// The methods that get a key: `POST` and `PATCH` by default.
    public let methods: Set<HTTPMethod>
    private let makeKey: @Sendable () -> String

    /// Where a call keeps its key between attempts.
    enum CallKey: RequestValueKey { typealias Value = String }

    /// Creates the interceptor.
    /// - Parameters:
    ///   - methods: The methods whose requests get a key; `POST` and `PATCH` by default.
    ///   - makeKey: Makes a new key for a call; a random UUID by default. A key the field
    ///     cannot carry (a control character) fails the call with
    ///     ``ClientError/Code/interceptorFailed``.
    public init(
        methods: Set<HTTPMethod> = [.post, .patch], makeKey: @escaping @Sendable () -> String = { UUID().uuidString }
    ) {
        self.methods = methods
        self.makeKey = makeKey
    }

    /// Adds the call's key to a request of one of ``methods`` that has none.
    /// - Parameters:
    ///   - request: The request to send.
    ///   - context: The call's context, whose values keep the key between attempts.
    /// - Throws: `HTTPCoreError` when the key is not a valid field value.
    public func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) throws {
        guard methods.contains(request.method), !request.headerFields.contains(.idempotencyKey) else { return }
        let key = context.values[CallKey.self] ?? makeKey()
        context.values[CallKey.self] = key
        try request.headerFields.set(.idempotencyKey, key)
    }

    /// Proceeds: the key is the same on every attempt, whatever the outcome.
    /// - Parameters:
    ///   - outcome: The attempt's outcome.
    ///   - context: The attempt's context.
    /// - Returns: ``InterceptorDecision/proceed``.
    public func decide(_ outcome: AttemptOutcome, context: inout InterceptorContext) throws -> InterceptorDecision {
        .proceed
    }
}
