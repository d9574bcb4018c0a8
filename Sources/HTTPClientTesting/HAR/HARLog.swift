import Foundation
import HTTPClient

/// The `log` of an HTTP Archive (HAR 1.2), the format browsers' developer tools export:
/// what ``HARRecorder`` writes and ``HARReplayTransport`` reads.
///
/// The model holds the fields of the HAR 1.2 specification that recording and replaying use.
/// Reading is lenient, as browser exports vary: unknown and `_`-prefixed custom fields are
/// ignored, and a missing optional field (or a missing field a browser sometimes leaves out,
/// such as `cookies` or `headersSize`) takes its empty or `-1` value. Pages and the browser
/// object are not kept.
///
/// ```swift
/// let har = #"{"log":{"version":"1.2","creator":{"name":"Firefox","version":"128"},"entries":[]}}"#
/// let log = try HARLog(data: Data(har.utf8))
/// print(log.creator.name, log.entries.count)  // Firefox 0
/// ```
public struct HARLog: Codable, Sendable {
    /// The format version, `1.2`.
    public var version: String
    /// The program that wrote the log.
    public var creator: Creator
    /// The exchanges, in the order they started.
    public var entries: [Entry]
    /// A note, if any.
    public var comment: String?
    /// Whether the secret values' fingerprints are keyed by a key the file does not hold
    /// (see ``HARFingerprintKey``): written as the custom field `_fingerprints: "keyed"`.
    /// Replay without the key then matches such values by their redacted form only.
    var keyedFingerprints = false

    enum CodingKeys: String, CodingKey {
        case version, creator, entries, comment
        case keyedFingerprints = "_fingerprints"
    }

    init(version: String = "1.2", creator: Creator, entries: [Entry], comment: String? = nil) {
        self.version = version
        self.creator = creator
        self.entries = entries
        self.comment = comment
    }

    /// Reads a log, an absent `version` taken as `1.2` and absent `entries` as none.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` when `creator` is missing or a field is mistyped.
    public init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        version = try values.decodeIfPresent(String.self, forKey: .version) ?? "1.2"
        creator = try values.decode(Creator.self, forKey: .creator)
        entries = try values.decodeIfPresent([Entry].self, forKey: .entries) ?? []
        comment = try values.decodeIfPresent(String.self, forKey: .comment)
        keyedFingerprints = try values.decodeIfPresent(String.self, forKey: .keyedFingerprints) == "keyed"
    }

    /// Writes the log; keyed fingerprints are noted as `_fingerprints: "keyed"`.
    /// - Parameter encoder: The encoder.
    /// - Throws: `EncodingError` from the encoder.
    public func encode(to encoder: any Encoder) throws {
        var values = encoder.container(keyedBy: CodingKeys.self)
        try values.encode(version, forKey: .version)
        try values.encode(creator, forKey: .creator)
        try values.encode(entries, forKey: .entries)
        try values.encodeIfPresent(comment, forKey: .comment)
        if keyedFingerprints { try values.encode("keyed", forKey: .keyedFingerprints) }
    }

    /// Reads the `log` of a HAR file.
    /// - Parameter data: The file's JSON, an object with a `log` member.
    /// - Throws: `DecodingError` when it is not JSON of that shape.
    public init(data: Data) throws {
        self = try JSONDecoder().decode(File.self, from: data).log
    }

    /// The HAR file's JSON: the log in an object's `log` member, with sorted keys, pretty
    /// printed.
    /// - Returns: The bytes of the file.
    /// - Throws: `EncodingError` when a number cannot be written (a `NaN` timing).
    public func fileData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(File(log: self))
    }

    /// The top-level object of a HAR file.
    struct File: Codable {
        var log: HARLog
    }

    /// The program that wrote a log (`creator`), or the browser it recorded (`browser`).
    public struct Creator: Codable, Sendable {
        /// The program's name, such as `Heron` or `WebInspector`.
        public var name: String
        /// The program's version.
        public var version: String
        /// A note, if any.
        public var comment: String?

        init(name: String, version: String, comment: String? = nil) {
            self.name = name
            self.version = version
            self.comment = comment
        }

        /// Reads a creator, an absent `version` taken as empty.
        /// - Parameter decoder: The decoder.
        /// - Throws: `DecodingError` when `name` is missing or a field is mistyped.
        public init(from decoder: any Decoder) throws {
            let values = try decoder.container(keyedBy: CodingKeys.self)
            name = try values.decode(String.self, forKey: .name)
            version = try values.decodeIfPresent(String.self, forKey: .version) ?? ""
            comment = try values.decodeIfPresent(String.self, forKey: .comment)
        }
    }

    /// One exchange: a request, its response, and when and how long.
    public struct Entry: Codable, Sendable {
        /// The page the request belongs to, in a browser export.
        public var pageref: String?
        /// When the request started, ISO 8601 with milliseconds (`2026-05-01T09:30:00.125Z`).
        public var startedDateTime: String
        /// The whole exchange's duration in milliseconds: the sum of the ``timings``.
        public var time: Double
        /// The request.
        public var request: Request
        /// The response.
        public var response: Response
        /// Cache details, always empty here (`{}`).
        var cache: Cache
        /// How long each phase took.
        public var timings: Timings
        /// The server's IP address, in a browser export.
        public var serverIPAddress: String?
        /// The connection's identifier, in a browser export.
        public var connection: String?
        /// A note, if any.
        public var comment: String?

        init(startedDateTime: String, time: Double, request: Request, response: Response, timings: Timings) {
            self.startedDateTime = startedDateTime
            self.time = time
            self.request = request
            self.response = response
            self.cache = Cache()
            self.timings = timings
        }

        /// Reads an entry, an absent `cache` or `time` taken as empty or zero.
        /// - Parameter decoder: The decoder.
        /// - Throws: `DecodingError` when a required field is missing or mistyped.
        public init(from decoder: any Decoder) throws {
            let values = try decoder.container(keyedBy: CodingKeys.self)
            pageref = try values.decodeIfPresent(String.self, forKey: .pageref)
            startedDateTime = try values.decodeIfPresent(String.self, forKey: .startedDateTime) ?? ""
            time = try values.decodeIfPresent(Double.self, forKey: .time) ?? 0
            request = try values.decode(Request.self, forKey: .request)
            response = try values.decode(Response.self, forKey: .response)
            cache = try values.decodeIfPresent(Cache.self, forKey: .cache) ?? Cache()
            timings =
                try values.decodeIfPresent(Timings.self, forKey: .timings) ?? Timings(send: 0, wait: 0, receive: 0)
            serverIPAddress = try values.decodeIfPresent(String.self, forKey: .serverIPAddress)
            connection = try values.decodeIfPresent(String.self, forKey: .connection)
            comment = try values.decodeIfPresent(String.self, forKey: .comment)
        }
    }

    /// A request as recorded.
    public struct Request: Codable, Sendable {
        /// The method, such as `GET`.
        public var method: String
        /// The absolute URL, without a fragment.
        public var url: String
        /// The protocol version, such as `HTTP/1.1`.
        public var httpVersion: String
        /// The cookies the request sent.
        public var cookies: [Cookie]
        /// The header fields, in order.
        public var headers: [NameValue]
        /// The query parameters, from the URL.
        public var queryString: [NameValue]
        /// The body, when the request had one.
        public var postData: PostData?
        /// The bytes of the head, or `-1` when not known.
        public var headersSize: Int
        /// The bytes of the body, or `-1` when not known.
        public var bodySize: Int
        /// A note, if any.
        public var comment: String?

        init(
            method: String, url: String, httpVersion: String, cookies: [Cookie], headers: [NameValue],
            queryString: [NameValue], postData: PostData?, bodySize: Int
        ) {
            self.method = method
            self.url = url
            self.httpVersion = httpVersion
            self.cookies = cookies
            self.headers = headers
            self.queryString = queryString
            self.postData = postData
            self.headersSize = -1
            self.bodySize = bodySize
        }

        /// Reads a request, absent lists taken as empty and absent sizes as `-1`.
        /// - Parameter decoder: The decoder.
        /// - Throws: `DecodingError` when `method` or `url` is missing or a field is mistyped.
        public init(from decoder: any Decoder) throws {
            let values = try decoder.container(keyedBy: CodingKeys.self)
            method = try values.decode(String.self, forKey: .method)
            url = try values.decode(String.self, forKey: .url)
            httpVersion = try values.decodeIfPresent(String.self, forKey: .httpVersion) ?? ""
            cookies = try values.decodeIfPresent([Cookie].self, forKey: .cookies) ?? []
            headers = try values.decodeIfPresent([NameValue].self, forKey: .headers) ?? []
            queryString = try values.decodeIfPresent([NameValue].self, forKey: .queryString) ?? []
            postData = try values.decodeIfPresent(PostData.self, forKey: .postData)
            headersSize = try values.decodeIfPresent(Int.self, forKey: .headersSize) ?? -1
            bodySize = try values.decodeIfPresent(Int.self, forKey: .bodySize) ?? -1
            comment = try values.decodeIfPresent(String.self, forKey: .comment)
        }
    }

    /// A response as recorded.
    public struct Response: Codable, Sendable {
        /// The status code, such as `200`.
        public var status: Int
        /// The reason phrase, such as `OK`.
        public var statusText: String
        /// The protocol version, such as `HTTP/1.1`.
        public var httpVersion: String
        /// The cookies the response set.
        public var cookies: [Cookie]
        /// The header fields, in order.
        public var headers: [NameValue]
        /// The body.
        public var content: Content
        /// The `Location` a redirect points to, or empty.
        public var redirectURL: String
        /// The bytes of the head, or `-1` when not known.
        public var headersSize: Int
        /// The bytes of the body as received, or `-1` when not known.
        public var bodySize: Int
        /// A note, if any.
        public var comment: String?

        init(
            status: Int, statusText: String, httpVersion: String, cookies: [Cookie], headers: [NameValue],
            content: Content, redirectURL: String, bodySize: Int
        ) {
            self.status = status
            self.statusText = statusText
            self.httpVersion = httpVersion
            self.cookies = cookies
            self.headers = headers
            self.content = content
            self.redirectURL = redirectURL
            self.headersSize = -1
            self.bodySize = bodySize
        }

        /// Reads a response, absent lists taken as empty and absent sizes as `-1`.
        /// - Parameter decoder: The decoder.
        /// - Throws: `DecodingError` when `status` is missing or a field is mistyped.
        public init(from decoder: any Decoder) throws {
            let values = try decoder.container(keyedBy: CodingKeys.self)
            status = try values.decode(Int.self, forKey: .status)
            statusText = try values.decodeIfPresent(String.self, forKey: .statusText) ?? ""
            httpVersion = try values.decodeIfPresent(String.self, forKey: .httpVersion) ?? ""
            cookies = try values.decodeIfPresent([Cookie].self, forKey: .cookies) ?? []
            headers = try values.decodeIfPresent([NameValue].self, forKey: .headers) ?? []
            content = try values.decodeIfPresent(Content.self, forKey: .content) ?? Content(size: 0, mimeType: "")
            redirectURL = try values.decodeIfPresent(String.self, forKey: .redirectURL) ?? ""
            headersSize = try values.decodeIfPresent(Int.self, forKey: .headersSize) ?? -1
            bodySize = try values.decodeIfPresent(Int.self, forKey: .bodySize) ?? -1
            comment = try values.decodeIfPresent(String.self, forKey: .comment)
        }
    }

    /// A header field or query parameter.
    public struct NameValue: Codable, Sendable, Hashable {
        /// The name, as sent.
        public var name: String
        /// The value, as sent or redacted.
        public var value: String
        /// A note, if any.
        public var comment: String?

        init(name: String, value: String) {
            self.name = name
            self.value = value
        }

        /// Reads a field or parameter, an absent `value` taken as empty.
        /// - Parameter decoder: The decoder.
        /// - Throws: `DecodingError` when `name` is missing or a field is mistyped.
        public init(from decoder: any Decoder) throws {
            let values = try decoder.container(keyedBy: CodingKeys.self)
            name = try values.decode(String.self, forKey: .name)
            value = try values.decodeIfPresent(String.self, forKey: .value) ?? ""
            comment = try values.decodeIfPresent(String.self, forKey: .comment)
        }
    }

    /// A cookie a request sent or a response set.
    public struct Cookie: Codable, Sendable, Hashable {
        /// The cookie's name.
        public var name: String
        /// The cookie's value, redacted when Heron records it.
        public var value: String
        /// The path it applies to, if set.
        public var path: String?
        /// The domain it applies to, if set.
        public var domain: String?
        /// When it expires, ISO 8601, if set.
        public var expires: String?
        /// Whether scripts cannot read it, if set.
        public var httpOnly: Bool?
        /// Whether it is sent over secure connections only, if set.
        public var secure: Bool?
        /// A note, if any.
        public var comment: String?

        init(name: String, value: String) {
            self.name = name
            self.value = value
        }

        /// Reads a cookie, an absent `value` taken as empty.
        /// - Parameter decoder: The decoder.
        /// - Throws: `DecodingError` when `name` is missing or a field is mistyped.
        public init(from decoder: any Decoder) throws {
            let values = try decoder.container(keyedBy: CodingKeys.self)
            name = try values.decode(String.self, forKey: .name)
            value = try values.decodeIfPresent(String.self, forKey: .value) ?? ""
            path = try values.decodeIfPresent(String.self, forKey: .path)
            domain = try values.decodeIfPresent(String.self, forKey: .domain)
            expires = try values.decodeIfPresent(String.self, forKey: .expires)
            httpOnly = try values.decodeIfPresent(Bool.self, forKey: .httpOnly)
            secure = try values.decodeIfPresent(Bool.self, forKey: .secure)
            comment = try values.decodeIfPresent(String.self, forKey: .comment)
        }
    }

    /// A request body: its media type and text.
    ///
    /// HAR 1.2 has no encoding for a request body; Heron writes a body that is not UTF-8 text
    /// as base64 with the custom field `_encoding` set to `base64`, and reads `encoding` or
    /// `_encoding` alike.
    public struct PostData: Codable, Sendable {
        /// The body's media type.
        public var mimeType: String
        /// The body as text (base64 when ``encoding`` is `base64`); empty when it was not kept.
        public var text: String
        /// `base64` when ``text`` is base64, otherwise `nil`.
        public var encoding: String?
        /// A note, such as why the body was not kept.
        public var comment: String?

        init(mimeType: String, text: String, encoding: String? = nil, comment: String? = nil) {
            self.mimeType = mimeType
            self.text = text
            self.encoding = encoding
            self.comment = comment
        }

        enum CodingKeys: String, CodingKey {
            case mimeType, text, comment
            case encoding = "_encoding"
            case standardEncoding = "encoding"
        }

        /// Reads a body, an absent `text` taken as empty.
        /// - Parameter decoder: The decoder.
        /// - Throws: `DecodingError` when a field is mistyped.
        public init(from decoder: any Decoder) throws {
            let values = try decoder.container(keyedBy: CodingKeys.self)
            mimeType = try values.decodeIfPresent(String.self, forKey: .mimeType) ?? ""
            text = try values.decodeIfPresent(String.self, forKey: .text) ?? ""
            encoding =
                try values.decodeIfPresent(String.self, forKey: .encoding)
                ?? values.decodeIfPresent(String.self, forKey: .standardEncoding)
            comment = try values.decodeIfPresent(String.self, forKey: .comment)
        }

        /// Writes the body, its encoding as `_encoding`.
        /// - Parameter encoder: The encoder.
        /// - Throws: `EncodingError` from the encoder.
        public func encode(to encoder: any Encoder) throws {
            var values = encoder.container(keyedBy: CodingKeys.self)
            try values.encode(mimeType, forKey: .mimeType)
            try values.encode(text, forKey: .text)
            try values.encodeIfPresent(encoding, forKey: .encoding)
            try values.encodeIfPresent(comment, forKey: .comment)
        }

        /// The body's bytes: ``text`` decoded from base64 or as UTF-8.
        public var bytes: Data { HARLog.bytes(of: text, encoding: encoding) }
    }

    /// A response body: its size, media type and, when kept, its text.
    public struct Content: Codable, Sendable {
        /// The body's length in bytes, as delivered (decoded).
        public var size: Int
        /// The bytes saved by compression, if known.
        public var compression: Int?
        /// The body's media type, with its parameters.
        public var mimeType: String
        /// The body as text (base64 when ``encoding`` is `base64`), or `nil` when it was not kept.
        public var text: String?
        /// `base64` when ``text`` is base64, otherwise `nil`.
        public var encoding: String?
        /// A note, such as why the body was not kept.
        public var comment: String?

        init(size: Int, mimeType: String, text: String? = nil, encoding: String? = nil, comment: String? = nil) {
            self.size = size
            self.mimeType = mimeType
            self.text = text
            self.encoding = encoding
            self.comment = comment
        }

        /// Reads a body, an absent `size` taken as zero and an absent `mimeType` as empty.
        /// - Parameter decoder: The decoder.
        /// - Throws: `DecodingError` when a field is mistyped.
        public init(from decoder: any Decoder) throws {
            let values = try decoder.container(keyedBy: CodingKeys.self)
            size = try values.decodeIfPresent(Int.self, forKey: .size) ?? 0
            compression = try values.decodeIfPresent(Int.self, forKey: .compression)
            mimeType = try values.decodeIfPresent(String.self, forKey: .mimeType) ?? ""
            text = try values.decodeIfPresent(String.self, forKey: .text)
            encoding = try values.decodeIfPresent(String.self, forKey: .encoding)
            comment = try values.decodeIfPresent(String.self, forKey: .comment)
        }

        /// The body's bytes: ``text`` decoded from base64 or as UTF-8; empty when not kept.
        public var bytes: Data { text.map { HARLog.bytes(of: $0, encoding: encoding) } ?? Data() }
    }

    /// How long each phase of an exchange took, in milliseconds; `-1` for a phase that did
    /// not apply (only `blocked`, `dns`, `connect` and `ssl` may be `-1`).
    public struct Timings: Codable, Sendable {
        /// Waiting for a connection.
        public var blocked: Double?
        /// Resolving the host name.
        public var dns: Double?
        /// Opening the connection.
        public var connect: Double?
        /// Sending the request.
        public var send: Double
        /// Waiting for the response head.
        public var wait: Double
        /// Receiving the response body.
        public var receive: Double
        /// The TLS handshake (included in ``connect``).
        public var ssl: Double?
        /// A note, if any.
        public var comment: String?

        init(send: Double, wait: Double, receive: Double) {
            self.send = send
            self.wait = wait
            self.receive = receive
        }

        /// Reads timings, an absent `send`, `wait` or `receive` taken as 0.
        /// - Parameter decoder: The decoder.
        /// - Throws: `DecodingError` when a field is mistyped.
        public init(from decoder: any Decoder) throws {
            let values = try decoder.container(keyedBy: CodingKeys.self)
            blocked = try values.decodeIfPresent(Double.self, forKey: .blocked)
            dns = try values.decodeIfPresent(Double.self, forKey: .dns)
            connect = try values.decodeIfPresent(Double.self, forKey: .connect)
            send = try values.decodeIfPresent(Double.self, forKey: .send) ?? 0
            wait = try values.decodeIfPresent(Double.self, forKey: .wait) ?? 0
            receive = try values.decodeIfPresent(Double.self, forKey: .receive) ?? 0
            ssl = try values.decodeIfPresent(Double.self, forKey: .ssl)
            comment = try values.decodeIfPresent(String.self, forKey: .comment)
        }
    }

    /// Cache details: Heron records none and ignores a browser's.
    struct Cache: Codable, Sendable {}

    /// The bytes of a body's `text`: base64-decoded for `base64`, else its UTF-8.
    static func bytes(of text: String, encoding: String?) -> Data {
        if encoding?.lowercased() == "base64" {
            return Data(base64Encoded: text, options: .ignoreUnknownCharacters) ?? Data()
        }
        return Data(text.utf8)
    }
}
