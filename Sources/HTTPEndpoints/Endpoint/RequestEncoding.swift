import Foundation
import HTTPCore
import HTTPEncoding
import HTTPMultipart

/// How an endpoint sends its request value: as JSON, a form, a query, a multipart body, a
/// raw body, or not at all.
///
/// Before the value is encoded, the endpoint's URI template takes the properties it names
/// (`{id}` takes `id`); those are not sent again in the body or query. A property that no
/// template names goes into the body (or query) as the encoder writes it.
///
/// ```swift
/// struct NewPost: Encodable {
///     var blog: String
///     var title: String
/// }
/// // POST /blogs/heron/posts with the body {"title":"Hi"}
/// static let create = Endpoint<NewPost, Post>(.post, "/blogs/{blog}/posts", body: .json)
/// ```
public struct RequestEncoding<Request: Sendable>: Sendable {
    /// What an encoding produced for one request.
    enum Output {
        case nothing
        case body(EncodedBody)
        case raw(HTTPBody, contentType: MediaType?)
        case query(String)
    }

    /// Encodes `request` without the properties in `excluded`.
    let encode: @Sendable (Request, _ method: HTTPMethod, _ excluded: Set<String>, EndpointDefaults) throws -> Output
    /// The properties of `request` named in the set, as template values; `nil` when the
    /// request value has no properties to offer.
    let properties: (@Sendable (Request, Set<String>) throws(VariableShapeError) -> [String: URITemplate.Value])?

    init(
        properties: (@Sendable (Request, Set<String>) throws(VariableShapeError) -> [String: URITemplate.Value])?,
        encode: @escaping @Sendable (Request, HTTPMethod, Set<String>, EndpointDefaults) throws -> Output
    ) {
        self.properties = properties
        self.encode = encode
    }

    /// Chosen by the request type and the method, so most endpoints need not say:
    /// - ``Empty``: nothing is sent.
    /// - `HTTPBody` or `Data`: sent as it is, with the endpoint's `Content-Type` field if it
    ///   declares one (`application/octet-stream` for `Data` otherwise).
    /// - any other `Encodable`: a query (``query``) for `GET`, `HEAD` and `DELETE`, JSON
    ///   (``json``) for every other method.
    public static var automatic: RequestEncoding {
        if Request.self == Empty.self { return RequestEncoding(properties: nil) { _, _, _, _ in .nothing } }
        return RequestEncoding(
            properties: { request, names throws(VariableShapeError) in
                guard let encodable = request as? any Encodable else { return [:] }
                return try TemplateVariableEncoder.properties(of: encodable, named: names)
            },
            encode: { request, method, excluded, defaults in
                switch request {
                case let body as HTTPBody: return .raw(body, contentType: nil)
                case let data as Data: return .raw(HTTPBody(data), contentType: .octetStream)
                case let encodable as any Encodable:
                    if method == .get || method == .head || method == .delete {
                        return .query(try defaults.queryEncoder.encodeQuery(excluding(excluded, from: encodable)))
                    }
                    return .body(try defaults.jsonEncoder.encodeBody(excluding(excluded, from: encodable)))
                default:
                    throw EncodingRefusal(
                        "\(Request.self) is neither Encodable nor a body; name how to send it with body:")
                }
            })
    }
}

extension RequestEncoding where Request: Encodable {
    /// JSON, with the client's JSON encoder (``EndpointDefaults/jsonEncoder``), as `application/json`.
    public static var json: RequestEncoding {
        encoded { value, defaults in .body(try defaults.jsonEncoder.encodeBody(value)) }
    }

    /// JSON made by `encoder`, as `application/json`.
    /// - Parameter encoder: The JSON encoder, with its options (keys, dates, formatting).
    /// - Returns: The encoding.
    public static func json(_ encoder: JSONBodyEncoder) -> RequestEncoding {
        encoded { value, _ in .body(try encoder.encodeBody(value)) }
    }

    /// A form body (`application/x-www-form-urlencoded`) in the client's form style
    /// (``EndpointDefaults/formEncoder``).
    public static var form: RequestEncoding {
        encoded { value, defaults in .body(try defaults.formEncoder.encodeBody(value)) }
    }

    /// A form body made by `encoder`, with its style (arrays, bools, dates, keys).
    /// - Parameter encoder: The form encoder.
    /// - Returns: The encoding.
    public static func form(_ encoder: FormEncoder) -> RequestEncoding {
        encoded { value, _ in .body(try encoder.encodeBody(value)) }
    }

    /// The query string, appended to whatever query the template wrote, in the client's
    /// query style (``EndpointDefaults/queryEncoder``); no body.
    public static var query: RequestEncoding {
        encoded { value, defaults in .query(try defaults.queryEncoder.encodeQuery(value)) }
    }

    /// The query string made by `encoder`, with its style (brackets, bools, dates, keys).
    /// - Parameter encoder: The form encoder that writes the query.
    /// - Returns: The encoding.
    public static func query(_ encoder: FormEncoder) -> RequestEncoding {
        encoded { value, _ in .query(try encoder.encodeQuery(value)) }
    }

    /// A `multipart/form-data` body from the client's multipart encoder
    /// (``EndpointDefaults/multipartEncoder``): `MultipartFile` properties are streamed
    /// from disk when sent, never loaded whole.
    public static var multipart: RequestEncoding {
        encoded { value, defaults in .body(try defaults.multipartEncoder.encodeBody(value)) }
    }

    /// Nothing sent: the value's properties only fill the template's variables (a `GET`
    /// whose value names the resource, with properties the server must not see).
    public static var variablesOnly: RequestEncoding { encoded { _, _ in .nothing } }

    /// A `multipart/form-data` body made by `encoder`.
    /// - Parameter encoder: The multipart encoder, with its options.
    /// - Returns: The encoding.
    public static func multipart(_ encoder: MultipartFormEncoder) -> RequestEncoding {
        encoded { value, _ in .body(try encoder.encodeBody(value)) }
    }

    /// A body made by any `BodyEncoder`, with the content type it reports.
    /// - Parameter encoder: The body encoder.
    /// - Returns: The encoding.
    public static func encoder(_ encoder: some BodyEncoder) -> RequestEncoding {
        encoded { value, _ in .body(try encoder.encodeBody(value)) }
    }

    /// An encoding that takes template variables from the value's properties and encodes
    /// the rest with `write`.
    private static func encoded(
        _ write: @escaping @Sendable (any Encodable, EndpointDefaults) throws -> Output
    ) -> RequestEncoding {
        RequestEncoding(
            properties: { request, names throws(VariableShapeError) in
                try TemplateVariableEncoder.properties(of: request, named: names)
            },
            encode: { request, _, excluded, defaults in
                if Request.self == Empty.self { return .nothing }
                return try write(excluding(excluded, from: request), defaults)
            })
    }
}

extension RequestEncoding where Request == HTTPBody {
    /// The body as it is, with `contentType` as its `Content-Type` (or the field the
    /// endpoint declares, when `nil`).
    /// - Parameter contentType: The body's media type, if the endpoint does not declare one.
    /// - Returns: The encoding.
    public static func raw(contentType: MediaType? = nil) -> RequestEncoding {
        RequestEncoding(properties: nil) { body, _, _, _ in .raw(body, contentType: contentType) }
    }
}

/// `value` without the top-level properties in `excluded`, or `value` itself when none are.
private func excluding(_ excluded: Set<String>, from value: any Encodable) -> any Encodable {
    excluded.isEmpty ? value : ExcludingKeys(value: value, excluded: excluded)
}

/// A request value that an encoding cannot send.
struct EncodingRefusal: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}
