/// An RFC 9457 problem details object (`application/problem+json`): the error body many
/// HTTP APIs send with a 4xx or 5xx status.
///
/// Declare it as an endpoint's error body, and a failed call throws an ``EndpointError``
/// with code ``EndpointError/Code/errorResponse`` carrying it:
///
/// ```swift
/// static let user = Endpoint<Empty, User>(.get, "/users/{id}").errorBody(ProblemDetails.self)
/// ```
///
/// The members RFC 9457 §3.1 defines are decoded; extension members are in ``extensions``.
public struct ProblemDetails: Codable, Hashable, Sendable, CustomStringConvertible {
    /// A URI reference naming the problem type; `about:blank` when absent (RFC 9457 §3.1.1).
    public var type: String
    /// A short summary of the problem type.
    public var title: String?
    /// The HTTP status code the origin server generated.
    public var status: Int?
    /// An explanation specific to this occurrence.
    public var detail: String?
    /// A URI reference identifying this occurrence.
    public var instance: String?
    /// Members beyond the five above whose values are strings, numbers or bools, as text.
    public var extensions: [String: String]

    /// Creates problem details.
    /// - Parameters:
    ///   - type: The problem type URI; `about:blank` by default.
    ///   - title: A short summary.
    ///   - status: The status code.
    ///   - detail: An explanation of this occurrence.
    ///   - instance: A URI for this occurrence.
    ///   - extensions: Extension members, as text.
    public init(
        type: String = "about:blank", title: String? = nil, status: Int? = nil, detail: String? = nil,
        instance: String? = nil, extensions: [String: String] = [:]
    ) {
        self.type = type
        self.title = title
        self.status = status
        self.detail = detail
        self.instance = instance
        self.extensions = extensions
    }

    /// Decodes the members RFC 9457 §3.1 defines, ignoring a member of the wrong type as
    /// §3.1 asks, and keeps scalar extension members as text.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` when the body is not a JSON object.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: PairKey.self)
        func string(_ name: String) -> String? { try? container.decodeIfPresent(String.self, forKey: PairKey(name)) }
        type = string("type") ?? "about:blank"
        title = string("title")
        status = try? container.decodeIfPresent(Int.self, forKey: PairKey("status"))
        detail = string("detail")
        instance = string("instance")
        var extensions: [String: String] = [:]
        for key in container.allKeys where !Self.members.contains(key.stringValue) {
            if let text = try? container.decode(String.self, forKey: key) {
                extensions[key.stringValue] = text
            } else if let number = try? container.decode(Double.self, forKey: key) {
                extensions[key.stringValue] = Int64(exactly: number).map(String.init) ?? String(number)
            } else if let flag = try? container.decode(Bool.self, forKey: key) {
                extensions[key.stringValue] = String(flag)
            }
        }
        self.extensions = extensions
    }

    /// Encodes the members and the extension members as strings.
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: PairKey.self)
        try container.encode(type, forKey: PairKey("type"))
        try container.encodeIfPresent(title, forKey: PairKey("title"))
        try container.encodeIfPresent(status, forKey: PairKey("status"))
        try container.encodeIfPresent(detail, forKey: PairKey("detail"))
        try container.encodeIfPresent(instance, forKey: PairKey("instance"))
        for (key, value) in extensions where !Self.members.contains(key) {
            try container.encode(value, forKey: PairKey(key))
        }
    }

    private static let members: Set<String> = ["type", "title", "status", "detail", "instance"]

    /// `status title: detail`, as much of it as is present.
    public var description: String {
        var text = [status.map(String.init), title].compactMap { $0 }.joined(separator: " ")
        if let detail { text += text.isEmpty ? detail : ": \(detail)" }
        return text.isEmpty ? type : text
    }
}
