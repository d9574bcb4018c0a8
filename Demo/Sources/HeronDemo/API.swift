import Foundation
import HTTPEndpoints

// The API, declared once as static endpoints, the way an application declares its own.
// httpbin's `/anything` echoes what it received, so each reply shows what went over the wire.

/// What httpbin's `/anything` echoes back.
struct Echo: Decodable, Sendable {
    var method: String
    var url: String
    var args: [String: JSONValue]
    var form: [String: JSONValue]
    var headers: [String: String]
}

/// A new blog post, sent as JSON.
struct NewPost: Codable, Sendable, Equatable {
    var title: String
    var tags: [String]
    var draft: Bool
}

/// Search filters, sent as a query with bracketed arrays and literal bools.
struct Search: Encodable, Sendable {
    var q: String
    var tags: [String]
    var open: Bool
    var page: Int
}

/// A sign-in form, sent as `application/x-www-form-urlencoded`.
struct SignIn: Encodable, Sendable {
    var user: String
    var password: String
    var remember: Bool
}

/// A large file and its caption, sent as `multipart/form-data`, the file streamed from disk.
struct Upload: Encodable, Sendable {
    var caption: String
    var file: MultipartFile
}

/// The fault server's digest of a request body it read.
struct BodyDigest: Decodable, Sendable {
    var bytes: Int64
    var sha256: String
    var chunked: Bool
}

/// The fault server's reply to a valid bearer token.
struct Authenticated: Decodable, Sendable {
    var authenticated: Bool
    var token: String
}

/// The fault server's reply once a flaky endpoint recovers.
struct Attempt: Decodable, Sendable {
    var attempt: Int
}

/// The endpoints on httpbin.
enum Httpbin {
    static let user = Endpoint<Empty, Echo>(.get, "/anything/users/{id}")
    static let createPost = Endpoint<NewPost, NewPost>(
        .post, "/anything/posts", body: .json, response: .json(at: "json"))
    static let search = Endpoint<Search, Echo>(
        .get, "/anything/search",
        body: .query(FormEncoder(style: FormStyle(arrays: .brackets, bools: .literal))))
    static let signIn = Endpoint<SignIn, Echo>(.post, "/anything/session", body: .form)
    static let status = Endpoint<Empty, Empty>(.get, "/status/{code}").named("status")
    static let smallFile = Endpoint<Empty, URL>(.get, "/bytes/{n}", response: .file)
}

/// The endpoints on Heron's fault server, which can do what httpbin cannot.
enum FaultServer {
    /// Reads the whole body, streaming, and answers its length and SHA-256.
    static let upload = Endpoint<Upload, BodyDigest>(.post, "/hash", body: .multipart)
        .timeout(.seconds(600))
    /// `n` bytes with a `Content-Length`, byte `i` being `i % 256` (httpbin caps `/bytes` at 100 KiB).
    static let download = Endpoint<Empty, URL>(.get, "/bytes{?n}", response: .file)
        .timeout(.seconds(600))
    /// 200 for `Bearer fresh-…`, 401 for any other token.
    static let protected = Endpoint<Empty, Authenticated>(.get, "/token-protected")
    /// 503 for the first `fail` requests with the same `key`, then 200.
    static let flaky = Endpoint<Empty, Attempt>(.get, "/flaky{?key,fail}")
}

/// Any JSON value, for the parts of httpbin's echo whose shape varies.
enum JSONValue: Decodable, Sendable, CustomStringConvertible {
    case string(String)
    case number(Double)
    case bool(Bool)
    case array([JSONValue])
    case object([String: JSONValue])
    case null

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    var description: String {
        switch self {
        case .string(let value): return value
        case .number(let value): return String(format: "%g", value)
        case .bool(let value): return String(value)
        case .array(let values): return "[" + values.map(\.description).joined(separator: ", ") + "]"
        case .object(let members):
            return "{" + members.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
                + "}"
        case .null: return "null"
        }
    }
}

extension [String: JSONValue] {
    /// `a=1 b=[x, y]`, keys sorted.
    var listed: String { sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") }
}
