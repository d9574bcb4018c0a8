import HTTPClient

/// The identifier of the OpenAPI operation a call is for, as ``HeronTransport`` gives it to
/// the Heron client's interceptors in their `InterceptorContext.values`.
///
/// It is the document's `operationId` (such as `listPets`), so an interceptor can act per
/// operation: a timeout, a metric label, a log line.
///
/// ```swift
/// struct OperationField: Interceptor {
///     func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) async throws {
///         if let operation = context.values[OpenAPIOperationID.self] {
///             try request.headerFields.set(HTTPFieldName("X-Operation"), operation)
///         }
///     }
/// }
/// ```
public enum OpenAPIOperationID: RequestValueKey {
    /// The `operationId`.
    public typealias Value = String
}
