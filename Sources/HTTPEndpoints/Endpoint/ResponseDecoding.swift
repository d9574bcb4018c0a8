import Foundation
import HTTPClient
import HTTPCore
import HTTPEncoding

/// How an endpoint reads its response: JSON into a `Decodable` (whole or at a key path),
/// text, bytes, nothing, a file, or a stream.
///
/// Only a response whose status the endpoint accepts (2xx by default) is read this way;
/// any other fails the call with an ``EndpointError`` first, so an error page never
/// reaches the decoder.
///
/// ```swift
/// static let user = Endpoint<Empty, User>(.get, "/users/{id}")  // JSON, chosen for Decodable
/// static let items = Endpoint<Empty, [Item]>(.get, "/items", response: .json(at: "data.items"))
/// static let avatar = Endpoint<Empty, URL>(.get, "/users/{id}/avatar")  // a file, chosen for URL
/// ```
public struct ResponseDecoding<Response: Sendable>: Sendable {
    enum Kind: Sendable {
        /// Buffered in memory, then read.
        case buffered(@Sendable (Data, HTTPResponse, EndpointDefaults) throws -> Response)
        /// Downloaded to a file.
        case file(@Sendable (URL) -> Response)
        /// Streamed as it arrives.
        case stream(@Sendable (ResponseStream) -> Response)
        /// Opened as a stream of values that reads its own body and may open itself again
        /// (event streams, JSON Lines), given how to open it.
        case opened(@Sendable (EventConnection, EndpointDefaults) async throws -> ClientResponse<Response>)
    }

    let kind: Kind
    /// The media type to ask for with `Accept`, when the endpoint does not set one.
    let accept: MediaType?

    /// Whether the body goes to a file.
    var isFile: Bool {
        if case .file = kind { return true }
        return false
    }

    init(kind: Kind, accept: MediaType? = nil) {
        self.kind = kind
        self.accept = accept
    }

    /// Chosen by the response type: ``Empty`` reads nothing, `Data` the bytes, `String` the
    /// text (``string``), `ResponseStream` a stream (``stream``), ``EventStream`` server-sent
    /// events without reconnection (``events(where:reconnection:lastEventID:maximumEventSize:)``),
    /// ``JSONStream`` JSON Lines or a JSON text sequence (``jsonStream(maximumSize:)``), `URL`
    /// a download to a file (``file``), and any other `Decodable` JSON with the client's
    /// decoder at its envelope key path (``json``), an `Optional` being `nil` for a `204` or
    /// an empty body.
    public static var automatic: ResponseDecoding { automatic(downloadingURL: true) }

    /// ``automatic``, or with a `URL` read as JSON rather than downloaded.
    static func automatic(downloadingURL: Bool) -> ResponseDecoding {
        if downloadingURL && Response.self == URL.self { return ResponseDecoding(kind: .file { $0 as! Response }) }
        if Response.self == Empty.self { return ResponseDecoding(kind: .buffered { _, _, _ in Empty() as! Response }) }
        if Response.self == Data.self { return ResponseDecoding(kind: .buffered { data, _, _ in data as! Response }) }
        if Response.self == String.self {
            return ResponseDecoding(
                kind: .buffered { data, head, _ in try head.text(of: data) as! Response })
        }
        if Response.self == ResponseStream.self { return ResponseDecoding(kind: .stream { $0 as! Response }) }
        if let streamed = Response.self as? any StreamedValues.Type,
            let decoding = streamed.automaticDecoding as? ResponseDecoding<Response>
        {
            return decoding
        }
        if Response.self is any Decodable.Type {
            return ResponseDecoding(
                kind: .buffered { data, head, defaults in
                    // Checked above; a metatype is not Sendable, so it is cast again here.
                    let decodable = Response.self as! any Decodable.Type
                    return try decodeJSON(
                        decodable, data: data, response: head, decoder: defaults.jsonDecoder,
                        keyPath: defaults.envelopeKeyPath ?? "") as! Response
                }, accept: .json)
        }
        return ResponseDecoding(
            kind: .buffered { _, _, _ in
                throw EncodingRefusal("\(Response.self) is not Decodable; name how to read it with response:")
            })
    }

    /// Reads the body with `read`, given the bytes and the response head.
    /// - Parameter read: Makes the value; what it throws fails the call as
    ///   ``EndpointError/Code/decodingFailed``.
    /// - Returns: The decoding.
    public static func custom(_ read: @escaping @Sendable (Data, HTTPResponse) throws -> Response) -> ResponseDecoding {
        ResponseDecoding(kind: .buffered { data, head, _ in try read(data, head) })
    }
}

extension ResponseDecoding where Response: Decodable {
    /// JSON, with the client's decoder (``EndpointDefaults/jsonDecoder``), at the client's
    /// envelope key path (``EndpointDefaults/envelopeKeyPath``) when it sets one. An
    /// `Optional` response is `nil`, and an ``Empty`` one empty, for a `204`, `205` or an
    /// empty body.
    public static var json: ResponseDecoding {
        ResponseDecoding(
            kind: .buffered { data, head, defaults in
                try decodeJSON(
                    Response.self, data: data, response: head, decoder: defaults.jsonDecoder,
                    keyPath: defaults.envelopeKeyPath ?? "")
            }, accept: .json)
    }

    /// JSON, with `decoder` and its options (keys, dates), at the client's envelope key path
    /// (``EndpointDefaults/envelopeKeyPath``) when it sets one.
    /// - Parameter decoder: The JSON decoder.
    /// - Returns: The decoding.
    public static func json(_ decoder: JSONResponseDecoder) -> ResponseDecoding {
        ResponseDecoding(
            kind: .buffered { data, head, defaults in
                try decodeJSON(
                    Response.self, data: data, response: head, decoder: decoder,
                    keyPath: defaults.envelopeKeyPath ?? "")
            },
            accept: .json)
    }

    /// The value at a key path inside a JSON body, such as `data.items`, without a type for
    /// the envelope around it; it replaces the client's ``EndpointDefaults/envelopeKeyPath``.
    /// - Parameters:
    ///   - keyPath: Object keys separated by dots, as the decoder sees them; `""` for the
    ///     whole body, whatever the client's envelope.
    ///   - decoder: The JSON decoder, or `nil` for the client's.
    /// - Returns: The decoding.
    public static func json(at keyPath: String, decoder: JSONResponseDecoder? = nil) -> ResponseDecoding {
        ResponseDecoding(
            kind: .buffered { data, head, defaults in
                try decodeJSON(
                    Response.self, data: data, response: head, decoder: decoder ?? defaults.jsonDecoder,
                    keyPath: keyPath)
            }, accept: .json)
    }

    /// A body read by any `ResponseDecoder`, such as one for XML or an envelope format.
    /// - Parameter decoder: The response decoder.
    /// - Returns: The decoding.
    public static func decoder(_ decoder: some ResponseDecoder) -> ResponseDecoding {
        ResponseDecoding(
            kind: .buffered { data, head, _ in
                if let empty = emptyValue(Response.self, data: data, response: head) { return empty }
                return try decoder.decode(Response.self, from: data, response: head)
            })
    }
}

extension ResponseDecoding where Response == String {
    /// The body as text, in the `charset` of its `Content-Type` (UTF-8 when absent); a
    /// charset Foundation does not know, or bytes that are not valid in it, fail the call.
    public static var string: ResponseDecoding {
        ResponseDecoding(kind: .buffered { data, head, _ in try head.text(of: data) })
    }
}

extension ResponseDecoding where Response == Data {
    /// The body's bytes as they came.
    public static var data: ResponseDecoding { ResponseDecoding(kind: .buffered { data, _, _ in data }) }
}

extension ResponseDecoding where Response == URL {
    /// The body downloaded to a file, never held in memory: the call returns the file's URL.
    /// ``automatic`` chooses it for a `URL` response, so `response: .file` may be left out.
    ///
    /// The file goes where the call says (`client.call(endpoint, to: destination)`), or to a
    /// new file in the temporary directory that the caller then owns. It is written beside
    /// its destination and moved into place only when complete and accepted, so a failed
    /// call leaves no partial file and never replaces an existing one.
    public static var file: ResponseDecoding { ResponseDecoding(kind: .file { $0 }) }
}

extension ResponseDecoding where Response == ResponseStream {
    /// The body as it arrives, in chunks; the call returns once the head is in.
    public static var stream: ResponseDecoding { ResponseDecoding(kind: .stream { $0 }) }
}

/// The empty value of `type` for a response without content, if `type` has one.
func emptyValue<Value>(_ type: Value.Type, data: Data, response: HTTPResponse) -> Value? {
    guard data.isEmpty || response.status.code == 204 || response.status.code == 205 else { return nil }
    return (type as? any EmptyResponseRepresentable.Type)?.emptyResponse as? Value
}

/// JSON decoding with the empty rule: `Empty` and `Optional` for no content, and a clear
/// error for an empty body any other type cannot be.
func decodeJSON<Value: Decodable>(
    _ type: Value.Type, data: Data, response: HTTPResponse, decoder: JSONResponseDecoder, keyPath: String = ""
) throws -> Value {
    if let empty = emptyValue(type, data: data, response: response) { return empty }
    if data.isEmpty {
        throw EncodingRefusal(
            "the response body is empty; declare the response as Optional<\(Value.self)> or Empty to accept that")
    }
    return try decoder.decode(type, from: data, response: response, atKeyPath: keyPath)
}

/// Response types that have a value for a response without content.
protocol EmptyResponseRepresentable {
    static var emptyResponse: Self { get }
}

extension Empty: EmptyResponseRepresentable {
    static var emptyResponse: Empty { Empty() }
}

extension Optional: EmptyResponseRepresentable {
    static var emptyResponse: Wrapped? { nil }
}
