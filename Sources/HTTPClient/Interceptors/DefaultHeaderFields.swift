import HTTPCore

/// Adds header fields to every request: fixed values, or values computed per request.
///
/// With ``Mode/ifAbsent`` a field is added only when the request has no field of that
/// name (the request wins); with ``Mode/always`` it replaces any such field (the
/// interceptor wins). A provider is called for every attempt, so its value can change
/// (a timestamp, a request id, a token read from a store); returning `nil` adds nothing.
///
/// Names and values may be given as text, as a dictionary of them is written elsewhere
/// (`URLRequest.allHTTPHeaderFields`, Alamofire's `HTTPHeaders`): no `try` is needed, and a
/// name or value that is not valid (a space in a name, a line break in a value) makes every
/// call through the client fail with ``ClientError/Code/invalidRequest`` naming it, as a
/// request built with `.headers([...])` does.
///
/// ```swift
/// let headers = DefaultHeaderFields(["Accept": "application/json", "X-Api-Version": "2"])
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
        /// Fields given as text that were not valid: each call fails with this error.
        case invalid(HTTPCoreError)
    }

    private var entries: [Entry]

    /// Adds fixed fields.
    /// - Parameters:
    ///   - fields: The fields; repeated names are all added.
    ///   - mode: Whether they replace the request's own fields of the same names.
    public init(_ fields: HTTPFields, mode: Mode = .ifAbsent) {
        entries = [.fields(fields, mode)]
    }

    /// Adds fixed fields named by text, such as `["Accept": "application/json"]`.
    ///
    /// The fields are added in the order of their names as written (sorted), so the result
    /// does not depend on the dictionary's order. A name or value that is not valid adds none
    /// of them: every call through the client then fails with
    /// ``ClientError/Code/invalidRequest``, whose underlying `HTTPCoreError` names the first
    /// invalid name or value in that order.
    /// - Parameters:
    ///   - fields: Names and values.
    ///   - mode: Whether they replace the request's own fields of the same names.
    public init(_ fields: [String: String], mode: Mode = .ifAbsent) {
        entries = [Self.entry(fields, mode: mode)]
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

    /// A copy that also adds fixed fields named by text, after this one's: a name or value that
    /// is not valid adds none of them and fails every call, as with the initializer taking text.
    /// - Parameters:
    ///   - fields: Names and values.
    ///   - mode: Whether they replace the request's own fields.
    /// - Returns: The combined interceptor.
    public func adding(_ fields: [String: String], mode: Mode = .ifAbsent) -> DefaultHeaderFields {
        var copy = self
        copy.entries.append(Self.entry(fields, mode: mode))
        return copy
    }

    /// The entry of fields named by text: the fields, or the first error in the names' order.
    private static func entry(_ fields: [String: String], mode: Mode) -> Entry {
        var made = HTTPFields()
        do throws(HTTPCoreError) {
            for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
                made.append(try HTTPField(name: name, value: value))
            }
        } catch {
            return .invalid(error)
        }
        return .fields(made, mode)
    }

    /// The error of a call through an interceptor given fields that were not valid.
    private static func failure(_ error: HTTPCoreError, request: HTTPRequest) -> ClientError {
        ClientError(
            .invalidRequest, "DefaultHeaderFields was given an invalid header field: \(error)", request: request,
            underlying: error)
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
    ///   value that is not a valid field value (CR, LF, NUL), naming the field, and for fields
    ///   given as text that were not valid.
    public func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) async throws {
        for entry in entries {
            switch entry {
            case .fields(let fields, let mode):
                Self.add(fields, mode: mode, to: &request)
            case .invalid(let error):
                throw Self.failure(error, request: request)
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
        entries.allSatisfy { if case .provider = $0 { false } else { true } }
    }

    /// ``prepare(_:context:)`` for fixed fields, without `await` (called only when
    /// ``stepsRunInline``).
    func prepareNow(_ request: inout HTTPRequest, context: inout InterceptorContext) throws {
        for entry in entries {
            switch entry {
            case .fields(let fields, let mode): Self.add(fields, mode: mode, to: &request)
            case .invalid(let error): throw Self.failure(error, request: request)
            case .provider: continue
            }
        }
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

extension DefaultHeaderFields: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The fields, a credential's value (`Authorization`, an API key, …) as `<redacted>`, and
    /// the names of the computed ones: `DefaultHeaderFields([Accept: application/json,
    /// X-Api-Key: <redacted>], computed: [X-Trace-ID])`.
    public var description: String {
        "DefaultHeaderFields([\(displayedFields.joined(separator: ", "))]"
            + (computedNames.isEmpty ? ")" : ", computed: [\(computedNames.joined(separator: ", "))])")
    }

    /// The same as ``description``: a credential the fields carry is never printed.
    public var debugDescription: String { description }

    /// The fields as ``description`` shows them, for `dump` and debuggers.
    public var customMirror: Mirror {
        Mirror(self, children: ["fields": displayedFields, "computed": computedNames], displayStyle: .struct)
    }

    /// The fixed fields as lines, credentials redacted, and a note for fields given as text
    /// that were not valid (their text is not repeated: it may hold a credential).
    private var displayedFields: [String] {
        entries.flatMap { entry -> [String] in
            switch entry {
            case .fields(let fields, _): Redacted.lines(of: fields)
            case .invalid(let error): ["<invalid \(error.code)>"]
            case .provider: []
            }
        }
    }

    /// The names of the fields computed per request.
    private var computedNames: [String] {
        entries.compactMap { if case .provider(let name, _, _) = $0 { name.rawName } else { nil } }
    }
}
