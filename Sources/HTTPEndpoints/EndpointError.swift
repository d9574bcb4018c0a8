import Foundation
import HTTPCore
import HTTPEncoding

/// Why an endpoint call failed in the endpoint layer: its declaration, its variables, its
/// request value, or the response's status or body.
///
/// Failures of the client beneath (the transport, timeouts, retries) come through as the
/// client's `ClientError`, unchanged. An error names the endpoint, and where it has them
/// the request, the response head, the first bytes of the body and the coding path.
///
/// ```swift
/// do {
///     _ = try await client.call(API.user, variables: ["id": 0])
/// } catch let error as EndpointError where error.code == .errorResponse {
///     print(error.status ?? 0, error.body(as: ProblemDetails.self)?.title ?? "")
/// }
/// ```
public struct EndpointError: Error, Sendable, CustomStringConvertible {
    /// A kind of failure: an open set of static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name.
        public let rawValue: String

        /// Creates a code.
        /// - Parameter rawValue: The code's name.
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// The endpoint's URI template does not parse (RFC 6570 §2); the underlying error is
        /// the `URITemplateError` with the offset.
        public static let invalidTemplate = Code("invalidTemplate")
        /// A header field declared on the endpoint is invalid (a bad name, CR or LF in a value).
        public static let invalidHeaderField = Code("invalidHeaderField")
        /// A variable a path expression needs has no value, or an empty one.
        public static let missingVariable = Code("missingVariable")
        /// A variable's value has no URI template form, or would change the request's shape
        /// (`.` or `..` as a path segment), or the template cannot take it (a prefix on a list).
        public static let invalidVariable = Code("invalidVariable")
        /// The request value could not be encoded as the endpoint's body or query.
        public static let encodingFailed = Code("encodingFailed")
        /// The expanded template is not a URL.
        public static let invalidURL = Code("invalidURL")
        /// The response's status is not one the endpoint accepts, and no declared error body
        /// could be read from it.
        public static let unacceptableStatus = Code("unacceptableStatus")
        /// The response's status is not accepted and its body decoded as the endpoint's error
        /// body type, now in ``EndpointError/errorBody`` (read it with
        /// ``EndpointError/body(as:decoder:)``).
        public static let errorResponse = Code("errorResponse")
        /// The response body could not be read as the endpoint's response type.
        public static let decodingFailed = Code("decodingFailed")
        /// A streamed response (events, JSON Lines) came with a `Content-Type` the stream
        /// cannot read.
        public static let unexpectedContentType = Code("unexpectedContentType")
        /// The call does not fit the endpoint, such as a download destination given for an
        /// endpoint whose response is not ``ResponseDecoding/file``.
        public static let invalidCall = Code("invalidCall")
        /// A downloaded file could not be moved into place.
        public static let fileWriteFailed = Code("fileWriteFailed")

        /// The code's name.
        public var description: String { rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// The endpoint's name, such as `GET /users/{id}`.
    public let endpoint: String
    /// A sentence about what went wrong, naming the offending value.
    public let message: String
    /// The template variable at fault, if any.
    public var variable: String?
    /// The request's method, once the request was built.
    public var method: HTTPMethod?
    /// The request's URL, once the request was built.
    public var url: URL?
    /// The response head (status and header fields), when the server answered.
    public var response: HTTPResponse?
    /// The response body, up to ``bodyLimit`` bytes, when it was read.
    public var body: Data?
    /// The coding path of a value that failed to encode or decode, such as `["items", "0", "id"]`.
    public var codingPath: [String]
    /// The decoded error body of an ``Code/errorResponse``, such as a ``ProblemDetails``.
    public var errorBody: (any Sendable)?
    /// The error that caused this one, if any.
    public var underlying: (any Error)?
    /// The client's JSON decoder, for ``body(as:decoder:)``, when the error came from a response.
    var jsonDecoder: JSONResponseDecoder?

    /// The most response body bytes an error keeps.
    public static let bodyLimit = 64 * 1024

    /// Creates an error.
    /// - Parameters:
    ///   - code: What kind of failure this is.
    ///   - endpoint: The endpoint's name.
    ///   - message: What went wrong.
    ///   - variable: The variable at fault, if any.
    ///   - request: The request, for its method and URL, if built.
    ///   - response: The response head, if any.
    ///   - body: The response body; the first ``bodyLimit`` bytes are kept.
    ///   - codingPath: The coding path at fault, if any.
    ///   - errorBody: The decoded error body, if any.
    ///   - underlying: The causing error, if any.
    public init(
        _ code: Code, endpoint: String, _ message: String, variable: String? = nil, request: HTTPRequest? = nil,
        response: HTTPResponse? = nil, body: Data? = nil, codingPath: [String] = [],
        errorBody: (any Sendable)? = nil, underlying: (any Error)? = nil
    ) {
        self.code = code
        self.endpoint = endpoint
        self.message = message
        self.variable = variable
        self.method = request?.method
        self.url = request?.url
        self.response = response
        self.body = body.map { $0.count > Self.bodyLimit ? Data($0.prefix(Self.bodyLimit)) : $0 }
        self.codingPath = codingPath
        self.errorBody = errorBody
        self.underlying = underlying
    }

    /// The response status, when the server answered.
    public var status: HTTPStatus? { response?.status }

    /// The body of the failed call as `type`: the error body the endpoint declared
    /// (``Endpoint/errorBody(_:decoder:)``) when it is one, or else the kept ``body`` decoded
    /// as JSON (an error body the endpoint did not declare, or one of several an API sends);
    /// `nil` when there is no body or it is not one.
    ///
    /// The same name reads the body of a `ClientError` and of a response
    /// (`response.body(as:)`).
    ///
    /// - Parameters:
    ///   - type: The type to read.
    ///   - decoder: The JSON decoder; `nil` for the client's (``EndpointDefaults/jsonDecoder``)
    ///     when the error came from a response, the built-in one otherwise.
    /// - Returns: The body, or `nil`.
    public func body<Body: Decodable>(as type: Body.Type, decoder: JSONResponseDecoder? = nil) -> Body? {
        if let declared = errorBody as? Body { return declared }
        guard let body, !body.isEmpty, let response else { return nil }
        return try? (decoder ?? jsonDecoder ?? JSONResponseDecoder()).decode(type, from: body, response: response)
    }

    /// The response ``body`` decoded as JSON into `type`, or `nil` when it is not one.
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - decoder: The JSON decoder.
    /// - Returns: The decoded body, or `nil`.
    @available(*, deprecated, renamed: "body(as:decoder:)")
    public func decodeBody<Body: Decodable>(
        as type: Body.Type, decoder: JSONResponseDecoder = JSONResponseDecoder()
    ) -> Body? {
        guard let body, let response else { return nil }
        return try? decoder.decode(type, from: body, response: response)
    }

    /// The decoded error body as `type`, or `nil` when there is none of that type.
    /// - Parameter type: The error body type the endpoint declares.
    /// - Returns: The error body.
    @available(*, deprecated, renamed: "body(as:)")
    public func errorBody<Body>(as type: Body.Type) -> Body? { errorBody as? Body }

    /// A message a person can act on: code, endpoint, request, status, coding path, body
    /// prefix and cause.
    public var description: String {
        var parts = ["\(code): \(endpoint): \(message)"]
        if let method, let url { parts.append("request: \(method) \(URLRedaction.display(url))") }
        if let response { parts.append("response: \(response.status)") }
        if !codingPath.isEmpty { parts.append("at: \(codingPath.joined(separator: "."))") }
        if let body, !body.isEmpty { parts.append("body: \(URLRedaction.displayBody(body))") }
        if let underlying { parts.append("cause: \(URLRedaction.displayError(underlying))") }
        return parts.joined(separator: "; ")
    }
}
