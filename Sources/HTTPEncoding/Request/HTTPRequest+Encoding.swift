import Foundation
import HTTPCore

extension HTTPRequest {
    /// This request with an encoded body and its `Content-Type`.
    ///
    /// The body and the content type always travel together, so there is no step to forget.
    /// - Parameter encoded: A body from a ``BodyEncoder``.
    /// - Returns: The request with the body.
    public func body(_ encoded: EncodedBody) -> HTTPRequest {
        body(encoded.body, contentType: encoded.contentType)
    }

    /// This request with `value` as a JSON body (`application/json`).
    ///
    /// ```swift
    /// let request = HTTPRequest.post("users").json(NewUser(name: "Ada"))
    /// ```
    /// - Parameters:
    ///   - value: The value to encode.
    ///   - encoder: The JSON encoder; sorted keys by default.
    /// - Returns: The request with the body, or this one with the ``HTTPEncodingError`` as
    ///   its `pendingError`.
    public func json(_ value: some Encodable, encoder: JSONBodyEncoder = JSONBodyEncoder()) -> HTTPRequest {
        modified { request throws(HTTPEncodingError) in request = request.body(try encoder.encodeBody(value)) }
    }

    /// This request with an untyped JSON body (dictionaries, arrays, strings, numbers, bools
    /// and `NSNull`, as `JSONSerialization` takes them).
    /// - Parameter object: The top-level dictionary or array.
    /// - Returns: The request with the body, or this one with the error kept.
    public func json(object: Any) -> HTTPRequest {
        modified { request throws(HTTPEncodingError) in
            request = request.body(try JSONBodyEncoder().encodeBody(jsonObject: object))
        }
    }

    /// This request with `value` as a form body (`application/x-www-form-urlencoded`).
    /// - Parameters:
    ///   - value: A value that encodes a keyed container.
    ///   - encoder: The form encoder, with its style.
    /// - Returns: The request with the body, or this one with the error kept.
    public func form(_ value: some Encodable, encoder: FormEncoder = FormEncoder()) -> HTTPRequest {
        modified { request throws(HTTPEncodingError) in request = request.body(try encoder.encodeBody(value)) }
    }

    /// This request with untyped parameters as a form body.
    /// - Parameters:
    ///   - parameters: The parameters, as ``FormEncoder/encodeBody(parameters:)`` takes them.
    ///   - encoder: The form encoder, with its style.
    /// - Returns: The request with the body, or this one with the error kept.
    public func form(_ parameters: [String: Any], encoder: FormEncoder = FormEncoder()) -> HTTPRequest {
        modified { request throws(HTTPEncodingError) in
            request = request.body(try encoder.encodeBody(parameters: parameters))
        }
    }

    /// This request with `value` appended to its URL's query.
    ///
    /// ```swift
    /// let request = HTTPRequest.get("search").query(["q": "swift", "tags": ["http", "nio"]])
    /// ```
    /// - Parameters:
    ///   - value: A value that encodes a keyed container.
    ///   - encoder: The form encoder, with its style (brackets, bools, dates, keys).
    /// - Returns: The request with the query, or this one with the error kept.
    public func query(_ value: some Encodable, encoder: FormEncoder = FormEncoder()) -> HTTPRequest {
        modified { request throws(HTTPEncodingError) in request.url = try encoder.appendQuery(value, to: request.url) }
    }

    /// This request with untyped parameters appended to its URL's query.
    /// - Parameters:
    ///   - parameters: The parameters, as ``FormEncoder/encodeQuery(parameters:)`` takes them.
    ///   - encoder: The form encoder, with its style.
    /// - Returns: The request with the query, or this one with the error kept.
    public func query(_ parameters: [String: Any], encoder: FormEncoder = FormEncoder()) -> HTTPRequest {
        modified { request throws(HTTPEncodingError) in
            request.url = try encoder.appendQuery(parameters: parameters, to: request.url)
        }
    }
}
