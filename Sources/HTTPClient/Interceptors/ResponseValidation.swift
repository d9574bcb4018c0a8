import Foundation
import HTTPCore

/// Fails responses whose status or content type is not acceptable.
///
/// A rejected response becomes ``ClientError`` with code
/// ``ClientError/Code/validationFailed``, carrying the request, the status and header
/// fields, and the first bytes of a buffered body. Transport failures pass through.
/// The retry policies still see the original outcome, so a `503` that fails validation
/// is retried when the stack lists it; place this interceptor first in the array so
/// that the others (logging, auth refresh) see the response before it is rejected.
///
/// ```swift
/// let validation = ResponseValidation(statuses: [200...299, 304...304], contentTypes: [.json])
/// let client = Client(baseURL: baseURL, interceptors: [validation, Logging(.line) { print($0) }])
/// _ = try? await client.send(HTTPRequest(url: URL(string: "html")!))
/// // -> GET http://…/html (attempt 1)
/// // <- 200 OK GET http://…/html (0.004 s), then validationFailed: text/html is not acceptable
/// ```
public struct ResponseValidation: SynchronousInterceptor {
    /// The acceptable status codes.
    public let statuses: [ClosedRange<Int>]
    /// The acceptable content types (patterns such as `application/*`); empty accepts any.
    public let contentTypes: [MediaType]

    /// Creates the interceptor.
    /// - Parameters:
    ///   - statuses: Acceptable status code ranges; `200...299` by default.
    ///   - contentTypes: Acceptable content types, matched with `MediaType.matches(_:)`;
    ///     empty (the default) accepts any. Responses with no body (`204`, `304`, `HEAD`,
    ///     or an empty buffered body) are not checked for a content type.
    public init(statuses: [ClosedRange<Int>] = [200...299], contentTypes: [MediaType] = []) {
        self.statuses = statuses
        self.contentTypes = contentTypes
    }

    /// Leaves the request unchanged.
    /// - Parameters:
    ///   - request: The request to send.
    ///   - context: The attempt's context.
    public func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) throws {}

    /// Checks the response.
    /// - Parameters:
    ///   - outcome: The attempt's outcome.
    ///   - context: The attempt's context.
    /// - Returns: ``InterceptorDecision/fail(_:)`` with ``ClientError/Code/validationFailed``
    ///   for an unacceptable response, else ``InterceptorDecision/proceed``.
    public func decide(_ outcome: AttemptOutcome, context: inout InterceptorContext) throws -> InterceptorDecision {
        guard case .response(let head, let body) = outcome else { return .proceed }
        if !statuses.contains(where: { $0.contains(head.status.code) }) {
            let accepted = statuses.map { "\($0.lowerBound)...\($0.upperBound)" }.joined(separator: ", ")
            return .fail(
                ClientError(
                    .validationFailed, "the status \(head.status) is not acceptable (accepted: \(accepted))",
                    request: context.request, response: head, body: body))
        }
        guard !contentTypes.isEmpty, Self.hasBody(head, body: body, method: context.request.method) else {
            return .proceed
        }
        let accepted = contentTypes.map(\.description).joined(separator: ", ")
        guard let type = head.contentType else {
            let raw = head.headerFields[.contentType].map { "'\($0)' (malformed)" } ?? "none"
            return .fail(
                ClientError(
                    .validationFailed, "the content type \(raw) is not acceptable (accepted: \(accepted))",
                    request: context.request, response: head, body: body))
        }
        guard contentTypes.contains(where: { type.matches($0) }) else {
            return .fail(
                ClientError(
                    .validationFailed, "the content type '\(type)' is not acceptable (accepted: \(accepted))",
                    request: context.request, response: head, body: body))
        }
        return .proceed
    }

    private static func hasBody(_ head: HTTPResponse, body: Data?, method: HTTPMethod) -> Bool {
        if method == .head || head.status == .noContent || head.status == .notModified { return false }
        if let body { return !body.isEmpty }
        return head.contentLength != 0
    }
}
