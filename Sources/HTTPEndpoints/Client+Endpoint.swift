import Foundation
import HTTPClient
import HTTPCore
import HTTPEncoding

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Client {
    /// Calls an endpoint with a request value and returns its response value.
    ///
    /// The request is built (template, body, header fields), sent through the client's
    /// interceptors, retries and transport, and the response read as the endpoint says
    /// once its status is accepted.
    ///
    /// ```swift
    /// let created = try await client.call(Blog.create, NewPost(title: "Hi"))
    /// ```
    /// - Parameters:
    ///   - endpoint: The endpoint.
    ///   - request: The request value.
    ///   - variables: Template variables, winning over providers and the value's properties.
    ///   - options: Per-call settings (timeout, progress, values); those left at their
    ///     defaults take the endpoint's.
    /// - Returns: The response value.
    /// - Throws: ``EndpointError`` for the endpoint layer's failures (declaration, variables,
    ///   encoding, status, decoding); `ClientError`, unchanged, for the client's.
    @discardableResult
    public func call<Request, Response>(
        _ endpoint: Endpoint<Request, Response>, _ request: Request,
        variables: [String: any Encodable & Sendable] = [:], options: RequestOptions = RequestOptions()
    ) async throws -> Response {
        try await perform(endpoint, request, variables: variables, options: options, destination: nil).body
    }

    /// Calls an endpoint that sends no request value and returns its response value.
    ///
    /// ```swift
    /// let post = try await client.call(Blog.post, variables: ["id": 42])
    /// ```
    /// - Parameters:
    ///   - endpoint: The endpoint.
    ///   - variables: Template variables, winning over providers.
    ///   - options: Per-call settings; those left at their defaults take the endpoint's.
    /// - Returns: The response value.
    /// - Throws: ``EndpointError`` or `ClientError`, as ``call(_:_:variables:options:)``.
    @discardableResult
    public func call<Response>(
        _ endpoint: Endpoint<Empty, Response>, variables: [String: any Encodable & Sendable] = [:],
        options: RequestOptions = RequestOptions()
    ) async throws -> Response {
        try await perform(endpoint, Empty(), variables: variables, options: options, destination: nil).body
    }

    /// Calls a file endpoint (``ResponseDecoding/file``) and puts the body at `destination`.
    ///
    /// The body is written beside `destination` and moved there only when complete and
    /// accepted; an existing file there is replaced then, and left alone on failure.
    /// - Parameters:
    ///   - endpoint: The endpoint.
    ///   - request: The request value.
    ///   - destination: Where the file goes.
    ///   - variables: Template variables.
    ///   - options: Per-call settings, such as progress.
    /// - Returns: `destination`.
    /// - Throws: ``EndpointError`` or `ClientError`, as ``call(_:_:variables:options:)``.
    @discardableResult
    public func call<Request>(
        _ endpoint: Endpoint<Request, URL>, _ request: Request, to destination: URL,
        variables: [String: any Encodable & Sendable] = [:], options: RequestOptions = RequestOptions()
    ) async throws -> URL {
        try await perform(endpoint, request, variables: variables, options: options, destination: destination).body
    }

    /// Calls a file endpoint that sends no request value and puts the body at `destination`.
    /// - Parameters:
    ///   - endpoint: The endpoint.
    ///   - destination: Where the file goes.
    ///   - variables: Template variables.
    ///   - options: Per-call settings, such as progress.
    /// - Returns: `destination`.
    /// - Throws: ``EndpointError`` or `ClientError`, as ``call(_:_:variables:options:)``.
    @discardableResult
    public func call(
        _ endpoint: Endpoint<Empty, URL>, to destination: URL, variables: [String: any Encodable & Sendable] = [:],
        options: RequestOptions = RequestOptions()
    ) async throws -> URL {
        try await perform(endpoint, Empty(), variables: variables, options: options, destination: destination).body
    }

    /// Calls an endpoint and returns its response value with the response head, the request
    /// as sent and the call's metrics.
    ///
    /// ```swift
    /// let response = try await client.response(for: Blog.create, NewPost(title: "Hi"))
    /// print(response.status, response.headerFields[.location] ?? "", response.body.id)
    /// ```
    /// - Parameters:
    ///   - endpoint: The endpoint.
    ///   - request: The request value.
    ///   - variables: Template variables.
    ///   - options: Per-call settings.
    /// - Returns: The response, its body the response value.
    /// - Throws: ``EndpointError`` or `ClientError`, as ``call(_:_:variables:options:)``.
    @discardableResult
    public func response<Request, Response>(
        for endpoint: Endpoint<Request, Response>, _ request: Request,
        variables: [String: any Encodable & Sendable] = [:], options: RequestOptions = RequestOptions()
    ) async throws -> ClientResponse<Response> {
        try await perform(endpoint, request, variables: variables, options: options, destination: nil)
    }

    /// Calls an endpoint that sends no request value and returns its response value with
    /// the response head, the request as sent and the call's metrics.
    /// - Parameters:
    ///   - endpoint: The endpoint.
    ///   - variables: Template variables.
    ///   - options: Per-call settings.
    /// - Returns: The response, its body the response value.
    /// - Throws: ``EndpointError`` or `ClientError`, as ``call(_:_:variables:options:)``.
    @discardableResult
    public func response<Response>(
        for endpoint: Endpoint<Empty, Response>, variables: [String: any Encodable & Sendable] = [:],
        options: RequestOptions = RequestOptions()
    ) async throws -> ClientResponse<Response> {
        try await perform(endpoint, Empty(), variables: variables, options: options, destination: nil)
    }

    // MARK: The call

    func perform<Request, Response>(
        _ endpoint: Endpoint<Request, Response>, _ value: Request, variables: [String: any Encodable & Sendable],
        options: RequestOptions, destination: URL?
    ) async throws -> ClientResponse<Response> {
        if let destination, !endpoint.response.isFile {
            throw EndpointError(
                .invalidCall, endpoint: endpoint.name,
                "a destination (\(destination.path)) was given, but the endpoint's response is not .file")
        }
        let defaults = values.merging(options.values).endpointDefaults
        let explicit = try endpoint.encoded(variables)
        var provided: [String: URITemplate.Value] = [:]
        if !defaults.providers.isEmpty {
            for name in endpoint.variableNames where explicit[name] == nil {
                guard let provider = defaults.providers[name] else { continue }
                do {
                    if let value = try await provider() { provided[name] = value }
                } catch let error as VariableShapeError {
                    throw EndpointError(.invalidVariable, endpoint: endpoint.name, error.reason, variable: name)
                }
            }
        }
        let request = try endpoint.makeRequest(value, explicit: explicit, provided: provided, defaults: defaults)
        let options = endpoint.applied(to: options)

        switch endpoint.response.kind {
        case .buffered(let read):
            return try await sendReading(request, options: options, endpoint: endpoint, defaults: defaults, read: read)
        case .stream(let wrap):
            let response = try await stream(request, options: options)
            if !endpoint.accepts(response.status) {
                let body = try await Self.collect(response.body, limit: EndpointError.bodyLimit)
                try endpoint.check(response.head, body: body, request: response.request, defaults: defaults)
            }
            return response.map(wrap)
        case .opened(let open):
            let connection = EventConnection(
                client: self, request: request, options: options, name: endpoint.name,
                accepts: { endpoint.accepts($0) },
                refusal: { head, body, request in
                    do {
                        try endpoint.check(head, body: body, request: request, defaults: defaults)
                        return EndpointError(.unacceptableStatus, endpoint: endpoint.name, "unreachable")
                    } catch {
                        return error
                    }
                }, mediaTypes: [])
            return try await open(connection, defaults)
        case .file(let wrap):
            let target =
                destination
                ?? FileManager.default.temporaryDirectory
                .appendingPathComponent("heron-download-\(UUID().uuidString)")
            let partial = target.deletingLastPathComponent()
                .appendingPathComponent(".\(target.lastPathComponent).heron-\(UUID().uuidString)")
            let response: ClientResponse<URL>
            do {
                // The client writes every attempt's body (a retried 500's too) to `partial`.
                response = try await download(request, to: partial, options: options)
                if !endpoint.accepts(response.status) {
                    let body = try Self.prefix(of: partial, limit: EndpointError.bodyLimit)
                    try endpoint.check(response.head, body: body, request: response.request, defaults: defaults)
                }
                try Self.moveIntoPlace(partial, at: target, endpoint: endpoint.name, request: response.request)
            } catch {
                try? FileManager.default.removeItem(at: partial)
                throw error
            }
            return response.map { _ in wrap(target) }
        }
    }

    /// Sends `request`, checks the status against `endpoint` and reads the body with `read`:
    /// the one path of endpoint calls and decoding sends.
    func sendReading<Request, Response>(
        _ request: HTTPRequest, options: RequestOptions, endpoint: Endpoint<Request, Response>,
        defaults: EndpointDefaults, read: @Sendable (Data, HTTPResponse, EndpointDefaults) throws -> Response
    ) async throws -> ClientResponse<Response> {
        let response = try await send(request, options: options)
        try endpoint.check(response.head, body: response.body, request: response.request, defaults: defaults)
        do {
            let decoded = try read(response.body, response.head, defaults)
            return response.map { _ in decoded }
        } catch {
            throw endpoint.decodingFailure(error, response: response, defaults: defaults)
        }
    }

    /// The first `limit` bytes of `stream`, for an error's body.
    static func collect(_ stream: ResponseStream, limit: Int) async throws -> Data {
        var data = Data()
        for try await chunk in stream {
            data.append(chunk.prefix(limit - data.count))
            if data.count >= limit { break }
        }
        return data
    }

    private static func prefix(of file: URL, limit: Int) throws -> Data {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        return try handle.read(upToCount: limit) ?? Data()
    }

    private static func moveIntoPlace(_ partial: URL, at target: URL, endpoint: String, request: HTTPRequest) throws {
        // rename(2) replaces an existing file atomically (FileManager.replaceItemAt on Linux
        // removes the original and can then fail, losing both).
        guard rename(partial.path, target.path) == 0 else {
            let reason = String(cString: strerror(errno))
            throw EndpointError(
                .fileWriteFailed, endpoint: endpoint, "cannot move the downloaded file to \(target.path): \(reason)",
                request: request)
        }
    }
}

extension Endpoint {
    /// The call's options with this endpoint's settings where the call left the defaults.
    func applied(to options: RequestOptions) -> RequestOptions {
        var options = options
        if options.timeout == nil { options.timeout = timeout }
        if retriesNonIdempotent { options.retriesNonIdempotent = true }
        if let responseBodyLimit, options.responseBodyLimit == RequestOptions.defaultResponseBodyLimit {
            options.responseBodyLimit = responseBodyLimit
        }
        if !interceptors.isEmpty { options.interceptors = interceptors + options.interceptors }
        return options
    }

    /// Fails for a status this endpoint does not accept, with the declared error body when
    /// the response carries one.
    func check(
        _ head: HTTPResponse, body: Data, request: HTTPRequest, defaults: EndpointDefaults
    ) throws(EndpointError) {
        guard !accepts(head.status) else { return }
        var error: EndpointError
        if let errorBodyReader, let errorBody = errorBodyReader(body, head, defaults) {
            error = EndpointError(
                .errorResponse, endpoint: name, "the server answered \(head.status) with an error body",
                request: request, response: head, body: body, errorBody: errorBody)
        } else {
            error = EndpointError(
                .unacceptableStatus, endpoint: name,
                "the status \(head.status) is not one the endpoint accepts (\(Self.describe(acceptableStatuses)))",
                request: request, response: head, body: body)
        }
        error.jsonDecoder = defaults.jsonDecoder
        throw error
    }

    /// The error for a response body that could not be read as `Response`.
    func decodingFailure(
        _ error: any Error, response: ClientResponse<Data>, defaults: EndpointDefaults
    ) -> EndpointError {
        var codingPath: [String] = []
        var reason = "\(error)"
        if let error = error as? HTTPEncodingError {
            codingPath = error.keyPath
            reason = error.reason
        }
        var failure = EndpointError(
            .decodingFailed, endpoint: name, "the response body is not a \(Response.self): \(reason)",
            request: response.request, response: response.head, body: response.body, codingPath: codingPath,
            underlying: error)
        failure.jsonDecoder = defaults.jsonDecoder
        return failure
    }

    private static func describe(_ ranges: [ClosedRange<Int>]) -> String {
        ranges.map { $0.lowerBound == $0.upperBound ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)" }
            .joined(separator: ", ")
    }
}
