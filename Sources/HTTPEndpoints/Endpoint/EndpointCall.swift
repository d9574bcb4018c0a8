import Foundation
import HTTPClient
import HTTPCore

/// One call of an endpoint with its arguments bound (the request value and the template
/// variables), ready for `client.call(_:options:)`.
///
/// Bound calls let an API read as its operations, as Moya's targets do: a static function
/// per operation, declared on `EndpointCall` for its response type, takes the arguments and
/// binds them to the endpoint, and the call site names it with a leading dot:
///
/// ```swift
/// enum Members: EndpointGroup {
///     static let baseURL = URL(string: "https://api.example.com/v2")!
///     static let update = Endpoint<MemberUpdate, Member>(.patch, "/members/{id}", body: .json)
/// }
/// extension EndpointCall<Member> {
///     static func updateMember(id: Int, name: String) -> Self {
///         Members.update.with(MemberUpdate(name: name), variables: ["id": id])
///     }
/// }
/// ```
///
/// ```swift
/// let client = Client(for: Members.self, transport: transport)
/// let member = try await client.call(.updateMember(id: 1, name: "Ada"))
/// ```
///
/// A bound call is a `Sendable` value: the endpoint's settings (interceptors, timeout,
/// accepted statuses, error body) come with it.
public struct EndpointCall<Response: Sendable>: Sendable {
    /// The endpoint's name, for errors and logs.
    public let name: String
    let perform: @Sendable (Client, RequestOptions, _ destination: URL?) async throws -> ClientResponse<Response>
    let build: @Sendable (EndpointDefaults) throws(EndpointError) -> HTTPRequest

    init<Request>(
        _ endpoint: Endpoint<Request, Response>, value: Request, variables: [String: any Encodable & Sendable]
    ) {
        name = endpoint.name
        perform = { client, options, destination in
            try await client.perform(
                endpoint, value, variables: variables, options: options, destination: destination)
        }
        build = { (defaults) throws(EndpointError) in
            try endpoint.makeRequest(value, variables: variables, defaults: defaults)
        }
    }

    /// Builds the request this call sends, without sending it, as
    /// ``Endpoint/makeRequest(_:variables:defaults:)`` does.
    /// - Parameter defaults: The encoders to use; the built-in ones by default.
    /// - Returns: The request.
    /// - Throws: ``EndpointError``, as ``Endpoint/makeRequest(_:variables:defaults:)``.
    public func makeRequest(defaults: EndpointDefaults = EndpointDefaults()) throws(EndpointError) -> HTTPRequest {
        try build(defaults)
    }
}

extension Endpoint {
    /// This endpoint with a request value and template variables bound, for
    /// `client.call(_:options:)`.
    ///
    /// - Parameters:
    ///   - value: The request value.
    ///   - variables: Template variables, winning over the client's providers and the
    ///     value's properties.
    /// - Returns: The bound call.
    public func with(_ value: Request, variables: [String: any Encodable & Sendable] = [:]) -> EndpointCall<Response> {
        EndpointCall(self, value: value, variables: variables)
    }
}

extension Endpoint where Request == Empty {
    /// This endpoint, which sends no request value, with template variables bound, for
    /// `client.call(_:options:)`.
    ///
    /// - Parameter variables: Template variables, winning over the client's providers.
    /// - Returns: The bound call.
    public func with(variables: [String: any Encodable & Sendable]) -> EndpointCall<Response> {
        EndpointCall(self, value: Empty(), variables: variables)
    }
}

extension Client {
    /// Calls an endpoint whose arguments are bound and returns its response value.
    ///
    /// - Parameters:
    ///   - call: The bound call.
    ///   - options: Per-call settings; those left at their defaults take the endpoint's.
    /// - Returns: The response value; a download to a temporary file (which the caller then
    ///   owns) for a `URL` response.
    /// - Throws: ``EndpointError`` for the endpoint layer's failures; `ClientError`,
    ///   unchanged, for the client's.
    @discardableResult
    public func call<Response>(
        _ call: EndpointCall<Response>, options: RequestOptions = RequestOptions()
    ) async throws -> Response {
        try await call.perform(self, options, nil).body
    }

    /// Calls a file endpoint whose arguments are bound and puts the body at `destination`,
    /// moved there only when complete and accepted.
    /// - Parameters:
    ///   - call: The bound call of a file endpoint.
    ///   - destination: Where the file goes.
    ///   - options: Per-call settings, such as progress.
    /// - Returns: `destination`.
    /// - Throws: ``EndpointError`` (``EndpointError/Code/invalidCall`` when the endpoint
    ///   does not read a file) or `ClientError`.
    @discardableResult
    public func call(
        _ call: EndpointCall<URL>, to destination: URL, options: RequestOptions = RequestOptions()
    ) async throws -> URL {
        try await call.perform(self, options, destination).body
    }

    /// Calls an endpoint whose arguments are bound and returns its response value with the
    /// response head, the request as sent and the call's metrics.
    /// - Parameters:
    ///   - call: The bound call.
    ///   - options: Per-call settings.
    /// - Returns: The response, its body the response value.
    /// - Throws: ``EndpointError`` or `ClientError`, as `call(_:options:)`.
    @discardableResult
    public func response<Response>(
        for call: EndpointCall<Response>, options: RequestOptions = RequestOptions()
    ) async throws -> ClientResponse<Response> {
        try await call.perform(self, options, nil)
    }
}
