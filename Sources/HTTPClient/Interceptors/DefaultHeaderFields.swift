import HTTPCore

/// Adds header fields to every request: fixed values, or values computed per request.
///
/// With ``Mode/ifAbsent`` a field is added only when the request has no field of that
/// name (the request wins); with ``Mode/always`` it replaces any such field (the
/// interceptor wins). A provider is called for every attempt, so its value can change
/// (a timestamp, a request id, a token read from a store); returning `nil` adds nothing.
///
/// ```swift
/// let headers = DefaultHeaderFields(try HTTPFields(["Accept": "application/json"]))
///     .adding(try HTTPFieldName("X-Trace-ID"), mode: .always) { _ in UUID().uuidString }
/// let client = Client(baseURL: baseURL, interceptors: [headers])
/// ```
public struct DefaultHeaderFields: Interceptor {
    /// Whether a field replaces one the request already has.
    public enum Mode: Sendable, Hashable {
        /// Add only when the request has no field of that name.
        case ifAbsent
        /// Replace any field of that name.
        case always
    }

    /// Computes a field value for a request; `nil` adds nothing.
    public typealias ValueProvider = @Sendable (HTTPRequest) async throws -> String?

    private enum Entry: Sendable {
        case fields(HTTPFields, Mode)
        case provider(HTTPFieldName, Mode, ValueProvider)
    }

    private var entries: [Entry]

    /// Adds fixed fields.
    /// - Parameters:
    ///   - fields: The fields; repeated names are all added.
    ///   - mode: Whether they replace the request's own fields of the same names.
    public init(_ fields: HTTPFields, mode: Mode = .ifAbsent) {
        entries = [.fields(fields, mode)]
    }

    /// Adds one field whose value is computed per request.
    /// - Parameters:
    ///   - name: The field name.
    ///   - mode: Whether it replaces the request's own field of that name.
    ///   - value: Computes the value; called only when the field will be set.
    public init(_ name: HTTPFieldName, mode: Mode = .ifAbsent, value: @escaping ValueProvider) {
        entries = [.provider(name, mode, value)]
    }

    /// A copy that also adds fixed fields, after this one's.
    /// - Parameters:
    ///   - fields: The fields.
    ///   - mode: Whether they replace the request's own fields.
    /// - Returns: The combined interceptor.
    public func adding(_ fields: HTTPFields, mode: Mode = .ifAbsent) -> DefaultHeaderFields {
        var copy = self
        copy.entries.append(.fields(fields, mode))
        return copy
    }

    /// A copy that also adds a computed field, after this one's.
    /// - Parameters:
    ///   - name: The field name.
    ///   - mode: Whether it replaces the request's own field.
    ///   - value: Computes the value per request.
    /// - Returns: The combined interceptor.
    public func adding(
        _ name: HTTPFieldName, mode: Mode = .ifAbsent, value: @escaping ValueProvider
    )
        -> DefaultHeaderFields
    {
        var copy = self
        copy.entries.append(.provider(name, mode, value))
        return copy
    }

    /// Adds the fields to the request.
    /// - Parameters:
    ///   - request: The request to change.
    ///   - context: The attempt's context.
    /// - Throws: What a provider throws; ``ClientError/Code/invalidRequest`` for a computed
    ///   value that is not a valid field value (CR, LF, NUL), naming the field.
    public func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) async throws {
        for entry in entries {
            switch entry {
            case .fields(let fields, let mode):
                Self.add(fields, mode: mode, to: &request)
            case .provider(let name, let mode, let provider):
                if mode == .ifAbsent, request.headerFields.contains(name) { continue }
                guard let value = try await provider(request) else { continue }
                do {
                    try request.headerFields.set(name, value)
                } catch {
                    throw ClientError(
                        .invalidRequest, "the value computed for header field '\(name)' is invalid: \(error)",
                        request: request, underlying: error)
                }
            }
        }
    }
}

extension DefaultHeaderFields: InlineSteps {
    /// Fixed fields never wait; a provider may.
    var stepsRunInline: Bool {
        entries.allSatisfy { if case .fields = $0 { true } else { false } }
    }

    /// ``prepare(_:context:)`` for fixed fields, without `await` (called only when
    /// ``stepsRunInline``).
    func prepareNow(_ request: inout HTTPRequest, context: inout InterceptorContext) throws {
        for case .fields(let fields, let mode) in entries { Self.add(fields, mode: mode, to: &request) }
    }

    /// Adds `fields` to `request` as `mode` says.
    private static func add(_ fields: HTTPFields, mode: Mode, to request: inout HTTPRequest) {
        var present: [HTTPFieldName] = []
        for field in fields where !present.contains(field.name) && request.headerFields.contains(field.name) {
            present.append(field.name)
        }
        if mode == .always { for name in present { request.headerFields.remove(name) } }
        for field in fields where mode == .always || !present.contains(field.name) {
            request.headerFields.append(field)
        }
    }
}
