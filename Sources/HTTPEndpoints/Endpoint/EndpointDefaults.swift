import HTTPClient
import HTTPEncoding
import HTTPMultipart

/// What every endpoint call through a client uses unless the endpoint says otherwise: the
/// encoders and decoder behind `.json`, `.form` and `.query`, and template variables that
/// every call needs (the signed-in user's id), computed per call.
///
/// Set once on the client, in its values:
///
/// ```swift
/// var defaults = EndpointDefaults()
/// defaults.jsonDecoder = JSONResponseDecoder {
///     let decoder = JSONDecoder()
///     decoder.keyDecodingStrategy = .convertFromSnakeCase
///     return decoder
/// }
/// defaults.provide("user") { await session.userID }  // fills {user} in every template
/// let client = Client(baseURL: baseURL, values: RequestValues(defaults))
/// ```
///
/// A call's own `variables:` win over providers, and providers over the properties of the
/// request value. A provider runs only when a call's template names its variable and the
/// call does not give it.
public struct EndpointDefaults: Sendable, RequestValueKey {
    /// The stored value: the defaults themselves.
    public typealias Value = EndpointDefaults

    /// Computes one template variable for a call.
    typealias Provider = @Sendable () async throws -> URITemplate.Value?

    /// The encoder behind ``RequestEncoding/json``; keys sorted by default.
    public var jsonEncoder: JSONBodyEncoder
    /// The encoder behind ``RequestEncoding/form``.
    public var formEncoder: FormEncoder
    /// The encoder behind ``RequestEncoding/query``.
    public var queryEncoder: FormEncoder
    /// The encoder behind ``RequestEncoding/multipart``.
    public var multipartEncoder = MultipartFormEncoder()
    /// The decoder behind ``ResponseDecoding/json`` and ``ResponseDecoding/automatic``,
    /// and for declared error bodies.
    public var jsonDecoder: JSONResponseDecoder
    /// Where the value of every JSON response sits inside its envelope, such as `data` for
    /// an API that answers `{"data": {...}}`; `nil` (the default) for the whole body.
    ///
    /// It applies to ``ResponseDecoding/automatic``, ``ResponseDecoding/json`` and
    /// ``ResponseDecoding/json(_:)``, and to the decoding sends such as `get(_:as:options:)`;
    /// an endpoint's ``ResponseDecoding/json(at:decoder:)`` and a send's `at:` replace it
    /// (`""` reads the whole body). Declared error bodies, streams and custom decodings are
    /// read without it.
    public var envelopeKeyPath: String?
    private(set) var providers: [String: Provider] = [:]

    /// Creates defaults.
    /// - Parameters:
    ///   - jsonEncoder: The JSON body encoder.
    ///   - formEncoder: The form body encoder.
    ///   - queryEncoder: The query encoder.
    ///   - jsonDecoder: The JSON response decoder.
    public init(
        jsonEncoder: JSONBodyEncoder = JSONBodyEncoder(), formEncoder: FormEncoder = FormEncoder(),
        queryEncoder: FormEncoder = FormEncoder(), jsonDecoder: JSONResponseDecoder = JSONResponseDecoder()
    ) {
        self.jsonEncoder = jsonEncoder
        self.formEncoder = formEncoder
        self.queryEncoder = queryEncoder
        self.jsonDecoder = jsonDecoder
    }

    /// Provides the template variable `name` to every call whose template names it.
    ///
    /// The value goes through the same rules as a request value's properties: a scalar is
    /// a string, an array a list, a struct or dictionary an associative array, `nil` undefined.
    /// - Parameters:
    ///   - name: The variable's name in the templates.
    ///   - value: Computes the value, once per call that needs it; what it throws fails the call.
    public mutating func provide<Value: Encodable & Sendable>(
        _ name: String, _ value: @escaping @Sendable () async throws -> Value
    ) {
        providers[name] = {
            let computed = try await value()
            do throws(VariableShapeError) {
                return try TemplateVariableEncoder.value(of: computed)
            } catch {
                throw VariableShapeError(reason: "the provided value of \"\(name)\": \(error.reason)")
            }
        }
    }

    /// Stops providing the variable `name`.
    /// - Parameter name: The variable's name.
    public mutating func removeProvider(_ name: String) { providers[name] = nil }

    /// The names of the provided variables.
    public var providedVariables: Set<String> { Set(providers.keys) }
}

extension RequestValues {
    /// A store holding `defaults` for the endpoint layer, for `Client` or a call's options.
    /// - Parameter defaults: The endpoint defaults.
    public init(_ defaults: EndpointDefaults) {
        self.init()
        self[EndpointDefaults.self] = defaults
    }

    /// The endpoint layer's defaults in this store, or the built-in ones.
    public var endpointDefaults: EndpointDefaults {
        get { self[EndpointDefaults.self] ?? EndpointDefaults() }
        set { self[EndpointDefaults.self] = newValue }
    }
}
