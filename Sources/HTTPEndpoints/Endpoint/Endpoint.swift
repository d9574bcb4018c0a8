import Foundation
import HTTPClient
import HTTPCore
import HTTPEncoding

/// One operation of an HTTP API, typed by what it sends and what it returns: declared once,
/// as a static value, and called through a `Client`.
///
/// An endpoint holds a method, an RFC 6570 URI template (relative to the client's base URL,
/// or absolute), how the request value is sent (``RequestEncoding``), how the response is
/// read (``ResponseDecoding``), header fields, interceptors and per-call settings. The
/// template is parsed once, when the endpoint is made; a template that does not parse
/// fails every call with ``EndpointError/Code/invalidTemplate`` (and ``validate()`` says so
/// in a unit test).
///
/// Template variables come from, in order of precedence: the call's `variables:`, the
/// client's providers (``EndpointDefaults/provide(_:_:)``), then the request value's
/// properties of the same name. A property whose name the template uses belongs to the
/// URI: it is never sent in the body or query, whichever source filled the variable, so a
/// call's `variables: ["id": 42]` cannot leave a conflicting `id` in the body.
///
/// ```swift
/// struct Post: Codable, Sendable {
///     var id: Int
///     var title: String
/// }
/// struct NewPost: Encodable, Sendable { var title: String }
///
/// enum Blog {
///     static let post = Endpoint<Empty, Post>(.get, "/posts/{id}")
///     static let search = Endpoint<Empty, [Post]>(.get, "/posts{?q,tags*,page}")
///     static let create = Endpoint<NewPost, Post>(.post, "/posts", body: .json)
///         .header(.acceptLanguage, "en")
///         .errorBody(ProblemDetails.self)
/// }
///
/// let post = try await client.call(Blog.post, variables: ["id": 42])
/// let found = try await client.call(Blog.search, variables: ["q": "swift", "tags": ["http", "nio"]])
/// let created = try await client.call(Blog.create, NewPost(title: "Hi"))
/// ```
public struct Endpoint<Request: Sendable, Response: Sendable>: Sendable {
    /// The request method.
    public let method: HTTPMethod
    /// The URI template as written.
    public let templateText: String
    /// How the request value is sent.
    public var body: RequestEncoding<Request>
    /// How the response is read.
    public var response: ResponseDecoding<Response>
    /// A name for errors and logs; `METHOD template` unless set with ``named(_:)``.
    public var name: String
    /// Header fields every request of this endpoint carries.
    public private(set) var headerFields: HTTPFields = []
    /// Interceptors for this endpoint's calls: their `prepare` runs before the client's
    /// interceptors, their `decide` after them.
    public var interceptors: [any Interceptor] = []
    /// The longest each attempt waits for the response head and then between body chunks,
    /// unless the call sets its own; `nil` for the client's.
    public var timeout: Duration?
    /// Whether the client's retry policies may re-send this endpoint's requests although
    /// the method is not idempotent (a `POST` with an idempotency key, say).
    public var retriesNonIdempotent = false
    /// The most response bytes a call buffers, unless the call sets its own; `nil` for the
    /// client's default.
    public var responseBodyLimit: Int?
    /// The statuses whose responses are read as `Response`; 2xx by default.
    public var acceptableStatuses: [ClosedRange<Int>] = [200...299]

    let parsedTemplate: Result<URITemplate, URITemplateError>
    /// The first invalid header field declared, reported by every call.
    private(set) var headerFailure: HTTPCoreError?
    /// Reads a declared error body, or `nil` when the body is not one.
    private(set) var errorBodyReader: (@Sendable (Data, HTTPResponse, EndpointDefaults) -> (any Sendable)?)?
    /// The variable names of the template, and those a path expression needs.
    let variableNames: Set<String>
    let requiredUses: [URITemplate.VariableUse]
    /// Whether the template starts with a scheme (`https:`), rather than a path.
    let isAbsolute: Bool
    /// Whether the template's own text has a `.` or `..` path segment.
    let templateHasDotSegment: Bool
    /// The scheme and authority an absolute template's own text writes, and whether that
    /// text ends the authority (see `URITemplate.literalOrigin`).
    let literalOrigin: (prefix: String, isClosed: Bool)?

    /// Creates an endpoint.
    /// - Parameters:
    ///   - method: The request method.
    ///   - template: An RFC 6570 URI template, relative to the client's base URL (`/users/{id}`)
    ///     or absolute (`https://uploads.example.com{/bucket,key}`); parsed now.
    ///   - body: How the request value is sent; ``RequestEncoding/automatic`` by default.
    ///   - response: How the response is read; ``ResponseDecoding/automatic`` by default.
    public init(
        _ method: HTTPMethod, _ template: String, body: RequestEncoding<Request> = .automatic,
        response: ResponseDecoding<Response> = .automatic
    ) {
        self.method = method
        self.templateText = template
        self.body = body
        self.response = response
        self.name = "\(method) \(template)"
        do throws(URITemplateError) {
            let parsed = try URITemplate(template)
            self.parsedTemplate = .success(parsed)
            self.variableNames = Set(parsed.variableNames)
            // A simple `{q}` after the literal `?` is a query value, which may be empty.
            self.requiredUses = parsed.variableUses.filter { $0.operator.requiresValue && !$0.afterLiteralQuery }
            self.isAbsolute = parsed.startsWithScheme
            self.templateHasDotSegment = parsed.literalPathHasDotSegment
            self.literalOrigin = parsed.literalOrigin
        } catch {
            self.parsedTemplate = .failure(error)
            self.variableNames = []
            self.requiredUses = []
            self.isAbsolute = false
            self.templateHasDotSegment = false
            self.literalOrigin = nil
        }
    }

    /// The parsed template, or `nil` when it does not parse.
    public var template: URITemplate? { try? parsedTemplate.get() }

    /// Checks the declaration: the template parses and the header fields are valid.
    ///
    /// Calls make the same checks; this lets a unit test check every endpoint of an API.
    /// - Throws: ``EndpointError`` with code ``EndpointError/Code/invalidTemplate`` or
    ///   ``EndpointError/Code/invalidHeaderField``.
    public func validate() throws(EndpointError) {
        _ = try validTemplate()
    }

    /// The parsed template, once the declaration is checked as ``validate()`` does.
    func validTemplate() throws(EndpointError) -> URITemplate {
        let template: URITemplate
        switch parsedTemplate {
        case .success(let parsed): template = parsed
        case .failure(let error):
            throw EndpointError(
                .invalidTemplate, endpoint: name, "the URI template does not parse: \(error)", underlying: error)
        }
        if let headerFailure {
            throw EndpointError(
                .invalidHeaderField, endpoint: name, "a declared header field is invalid: \(headerFailure)",
                underlying: headerFailure)
        }
        return template
    }

    // MARK: Modifiers

    /// This endpoint with another name for errors and logs.
    /// - Parameter name: The name, such as `getUser`.
    /// - Returns: The renamed endpoint.
    public func named(_ name: String) -> Endpoint {
        var copy = self
        copy.name = name
        return copy
    }

    /// This endpoint with a header field set (replacing fields of that name).
    ///
    /// An invalid value (CR, LF or NUL in it) is not sent: every call of the endpoint fails
    /// with ``EndpointError/Code/invalidHeaderField``, and ``validate()`` reports it.
    /// - Parameters:
    ///   - name: The field name.
    ///   - value: The field value.
    /// - Returns: The endpoint with the field.
    public func header(_ name: HTTPFieldName, _ value: String) -> Endpoint {
        var copy = self
        do throws(HTTPCoreError) {
            try copy.headerFields.set(name, value)
        } catch {
            copy.headerFailure = copy.headerFailure ?? error
        }
        return copy
    }

    /// This endpoint with a header field set by its name as a string, such as `X-Api-Version`.
    /// - Parameters:
    ///   - name: The field name; an invalid one fails every call, as an invalid value does.
    ///   - value: The field value.
    /// - Returns: The endpoint with the field.
    public func header(_ name: String, _ value: String) -> Endpoint {
        do throws(HTTPCoreError) {
            return header(try HTTPFieldName(name), value)
        } catch {
            var copy = self
            copy.headerFailure = copy.headerFailure ?? error
            return copy
        }
    }

    /// This endpoint with interceptors added after the ones it has.
    /// - Parameter interceptors: Interceptors for this endpoint's calls.
    /// - Returns: The endpoint with the interceptors.
    public func intercepted(by interceptors: any Interceptor...) -> Endpoint {
        var copy = self
        copy.interceptors += interceptors
        return copy
    }

    /// This endpoint with its own timeout: the longest each attempt waits for the response
    /// head, and then for each chunk of the body.
    /// - Parameter timeout: The longest wait for the head, and between body chunks.
    /// - Returns: The endpoint with the timeout.
    public func timeout(_ timeout: Duration) -> Endpoint {
        var copy = self
        copy.timeout = timeout
        return copy
    }

    /// This endpoint opted in to (or out of) retries although its method is not idempotent.
    /// - Parameter retries: Whether the retry policies may re-send its requests.
    /// - Returns: The endpoint with the setting.
    public func retriesNonIdempotent(_ retries: Bool = true) -> Endpoint {
        var copy = self
        copy.retriesNonIdempotent = retries
        return copy
    }

    /// This endpoint with a limit on the response bytes buffered.
    /// - Parameter limit: The most bytes; a larger response fails the call.
    /// - Returns: The endpoint with the limit.
    public func responseBodyLimit(_ limit: Int) -> Endpoint {
        var copy = self
        copy.responseBodyLimit = limit
        return copy
    }

    /// This endpoint accepting other statuses as success, such as `[200...299, 304...304]`.
    /// - Parameter statuses: The accepted status ranges.
    /// - Returns: The endpoint with the statuses.
    public func accepting(statuses: [ClosedRange<Int>]) -> Endpoint {
        var copy = self
        copy.acceptableStatuses = statuses
        return copy
    }

    /// This endpoint reading the body of a response it does not accept as `type`, so that
    /// the call throws an ``EndpointError`` with code ``EndpointError/Code/errorResponse``
    /// carrying the value (``EndpointError/body(as:decoder:)``), the status and the response.
    ///
    /// A body that does not decode as `type` gives ``EndpointError/Code/unacceptableStatus``
    /// with the body's first bytes instead.
    /// - Parameters:
    ///   - type: The error body type, such as ``ProblemDetails``.
    ///   - decoder: Its JSON decoder, or `nil` for the client's.
    /// - Returns: The endpoint with the error body.
    public func errorBody<ErrorBody: Decodable & Sendable>(
        _ type: ErrorBody.Type, decoder: JSONResponseDecoder? = nil
    ) -> Endpoint {
        var copy = self
        copy.errorBodyReader = { data, head, defaults in
            guard !data.isEmpty else { return nil }
            return try? (decoder ?? defaults.jsonDecoder).decode(ErrorBody.self, from: data, response: head)
        }
        return copy
    }

    /// Whether `status` is one this endpoint reads as ``Response``.
    func accepts(_ status: HTTPStatus) -> Bool {
        acceptableStatuses.contains { $0.contains(status.code) }
    }
}

extension URITemplate.Operator {
    /// Whether a variable of this operator must have a value in an endpoint: those that
    /// build the path (`{id}`, `{+path}`, `{.ext}`, `{/segments}`) must, query, fragment and
    /// path-parameter expressions may be left out.
    var requiresValue: Bool {
        switch self {
        case .simple, .reserved, .label, .pathSegment: return true
        case .fragment, .pathParameter, .query, .queryContinuation: return false
        }
    }
}
