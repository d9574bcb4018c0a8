import Foundation
import HTTPClient
import HTTPCore
import HTTPEncoding

extension Client {
    /// Sends a request and reads its response as `type`: JSON with the client's decoder
    /// (``EndpointDefaults/jsonDecoder``), or text, bytes or nothing as
    /// ``ResponseDecoding/automatic`` says; an `Optional` is `nil` for a `204` or an empty body.
    ///
    /// A status outside 2xx never reaches the decoder: it throws an ``EndpointError`` with
    /// code ``EndpointError/Code/unacceptableStatus`` and the body (up to
    /// ``EndpointError/bodyLimit`` bytes). The same path serves endpoint calls.
    ///
    /// ```swift
    /// let user = try await client.send(.get("users/42"), decoding: User.self)
    /// ```
    /// - Parameters:
    ///   - request: The request.
    ///   - type: The type to read.
    ///   - keyPath: Where the value sits inside a JSON envelope (`data.items`); `nil` for the
    ///     client's ``EndpointDefaults/envelopeKeyPath``, `""` for the whole body.
    ///   - options: Per-call settings.
    /// - Returns: The value.
    /// - Throws: ``EndpointError`` for the status or the body; `ClientError` for the client's failures.
    @discardableResult
    public func send<Value: Sendable>(
        _ request: HTTPRequest, decoding type: Value.Type, at keyPath: String? = nil,
        options: RequestOptions = RequestOptions()
    ) async throws -> Value {
        try await response(request, decoding: type, at: keyPath, options: options).body
    }

    /// Sends a request and returns its response read as `type`, with the head, the request
    /// as sent and the metrics.
    /// - Parameters:
    ///   - request: The request.
    ///   - type: The type to read.
    ///   - keyPath: Where the value sits inside a JSON envelope; `nil` for the client's
    ///     ``EndpointDefaults/envelopeKeyPath``, `""` for the whole body.
    ///   - options: Per-call settings.
    /// - Returns: The response, its body the value.
    /// - Throws: ``EndpointError`` or `ClientError`, as ``send(_:decoding:at:options:)``.
    @discardableResult
    public func response<Value: Sendable>(
        _ request: HTTPRequest, decoding type: Value.Type, at keyPath: String? = nil,
        options: RequestOptions = RequestOptions()
    ) async throws -> ClientResponse<Value> {
        // A URL is read as JSON here: only an endpoint downloads to a file.
        let decoding: ResponseDecoding<Value> =
            keyPath.map { ResponseDecoding.envelope(at: $0) } ?? .automatic(downloadingURL: false)
        guard case .buffered(let read) = decoding.kind else {
            // A stream or a file is not read from a buffered send.
            throw EndpointError(
                .invalidCall, endpoint: "\(request.method) \(URLRedaction.display(request.url))",
                "\(Value.self) is read as a stream or a file: use stream(_:) or download(_:to:)")
        }
        let endpoint = Endpoint<Empty, Value>(request.method, "", response: decoding)
            .named("\(request.method) \(URLRedaction.display(request.url))")
        let defaults = values.merging(options.values).endpointDefaults
        return try await sendReading(request, options: options, endpoint: endpoint, defaults: defaults, read: read)
    }

    /// `GET`s `url` and reads the response as `type`, which Swift infers from the context
    /// when `as:` is left out.
    ///
    /// Unlike the other shortcuts, `get` is not `@discardableResult`: a `GET` is sent for
    /// its answer, so an unused result is a mistake.
    ///
    /// ```swift
    /// let user = try await client.get("users/42", as: User.self)
    /// let products: [Product] = try await client.get("products")
    /// ```
    /// - Parameters:
    ///   - url: The target, relative to the base URL or absolute.
    ///   - type: The type to read; inferred when left out.
    ///   - options: Per-call settings.
    /// - Returns: The value.
    /// - Throws: ``EndpointError`` or `ClientError`, as ``send(_:decoding:at:options:)``.
    public func get<Value: Sendable>(
        _ url: String, as type: Value.Type = Value.self, options: RequestOptions = RequestOptions()
    ) async throws -> Value {
        try await send(.get(url), decoding: type, options: options)
    }

    /// `GET`s `url` with `query` appended to its query string, encoded with the client's
    /// query encoder (``EndpointDefaults/queryEncoder``), and reads the response as `type`.
    ///
    /// - Parameters:
    ///   - url: The target, relative to the base URL or absolute.
    ///   - query: A value that encodes a keyed container, such as a struct.
    ///   - type: The type to read; inferred when left out.
    ///   - options: Per-call settings.
    /// - Returns: The value.
    /// - Throws: ``EndpointError`` or `ClientError`, as ``send(_:decoding:at:options:)``; a
    ///   query that cannot be encoded fails the call as `ClientError.Code.invalidRequest`,
    ///   before anything is sent.
    public func get<Value: Sendable>(
        _ url: String, query: some Encodable, as type: Value.Type = Value.self,
        options: RequestOptions = RequestOptions()
    ) async throws -> Value {
        let encoder = values.merging(options.values).endpointDefaults.queryEncoder
        return try await send(.get(url).query(query, encoder: encoder), decoding: type, options: options)
    }

    /// `GET`s `url` with untyped parameters appended to its query string, encoded with the
    /// client's query encoder (``EndpointDefaults/queryEncoder``), and reads the response as `type`.
    ///
    /// - Parameters:
    ///   - url: The target, relative to the base URL or absolute.
    ///   - query: The parameters: strings, numbers, bools, dates, arrays and nested dictionaries.
    ///   - type: The type to read; inferred when left out.
    ///   - options: Per-call settings.
    /// - Returns: The value.
    /// - Throws: ``EndpointError`` or `ClientError`, as ``send(_:decoding:at:options:)``.
    public func get<Value: Sendable>(
        _ url: String, query: [String: Any], as type: Value.Type = Value.self,
        options: RequestOptions = RequestOptions()
    ) async throws -> Value {
        let encoder = values.merging(options.values).endpointDefaults.queryEncoder
        return try await send(.get(url).query(query, encoder: encoder), decoding: type, options: options)
    }

    /// `POST`s `body` as JSON (with the client's encoder) to `url` and reads the response as `type`.
    ///
    /// ```swift
    /// let made = try await client.post("users", json: NewUser(name: "Ada"), as: User.self)
    /// ```
    /// - Parameters:
    ///   - url: The target.
    ///   - body: The value to send as JSON.
    ///   - type: The type to read; ``Empty`` to ignore the response body.
    ///   - options: Per-call settings.
    /// - Returns: The value.
    /// - Throws: ``EndpointError`` or `ClientError`, as ``send(_:decoding:at:options:)``.
    @discardableResult
    public func post<Value: Sendable>(
        _ url: String, json body: some Encodable, as type: Value.Type = Empty.self,
        options: RequestOptions = RequestOptions()
    ) async throws -> Value {
        try await send(withJSON: .post(url), body, decoding: type, options: options)
    }

    /// `PUT`s `body` as JSON to `url` and reads the response as `type`.
    /// - Parameters:
    ///   - url: The target.
    ///   - body: The value to send as JSON.
    ///   - type: The type to read; ``Empty`` to ignore the response body.
    ///   - options: Per-call settings.
    /// - Returns: The value.
    /// - Throws: ``EndpointError`` or `ClientError`, as ``send(_:decoding:at:options:)``.
    @discardableResult
    public func put<Value: Sendable>(
        _ url: String, json body: some Encodable, as type: Value.Type = Empty.self,
        options: RequestOptions = RequestOptions()
    ) async throws -> Value {
        try await send(withJSON: .put(url), body, decoding: type, options: options)
    }

    /// `PATCH`es `url` with `body` as JSON and reads the response as `type`.
    /// - Parameters:
    ///   - url: The target.
    ///   - body: The value to send as JSON.
    ///   - type: The type to read; ``Empty`` to ignore the response body.
    ///   - options: Per-call settings.
    /// - Returns: The value.
    /// - Throws: ``EndpointError`` or `ClientError`, as ``send(_:decoding:at:options:)``.
    @discardableResult
    public func patch<Value: Sendable>(
        _ url: String, json body: some Encodable, as type: Value.Type = Empty.self,
        options: RequestOptions = RequestOptions()
    ) async throws -> Value {
        try await send(withJSON: .patch(url), body, decoding: type, options: options)
    }

    /// `DELETE`s `url` and reads the response as `type`.
    /// - Parameters:
    ///   - url: The target.
    ///   - type: The type to read; ``Empty`` to ignore the response body.
    ///   - options: Per-call settings.
    /// - Returns: The value.
    /// - Throws: ``EndpointError`` or `ClientError`, as ``send(_:decoding:at:options:)``.
    @discardableResult
    public func delete<Value: Sendable>(
        _ url: String, as type: Value.Type = Empty.self, options: RequestOptions = RequestOptions()
    ) async throws -> Value {
        try await send(.delete(url), decoding: type, options: options)
    }

    private func send<Value: Sendable>(
        withJSON request: HTTPRequest, _ body: some Encodable, decoding type: Value.Type, options: RequestOptions
    ) async throws -> Value {
        let encoder = values.merging(options.values).endpointDefaults.jsonEncoder
        return try await send(request.json(body, encoder: encoder), decoding: type, options: options)
    }
}

extension ResponseDecoding {
    /// JSON at `keyPath` for a `Decodable` response; a clear failure for any other type.
    static func envelope(at keyPath: String) -> ResponseDecoding {
        ResponseDecoding(
            kind: .buffered { data, head, defaults in
                guard let decodable = Response.self as? any Decodable.Type else {
                    throw EncodingRefusal("\(Response.self) is not Decodable, so it cannot be read at a key path")
                }
                return try decodeJSON(
                    decodable, data: data, response: head, decoder: defaults.jsonDecoder, keyPath: keyPath)
                    as! Response
            }, accept: .json)
    }
}
