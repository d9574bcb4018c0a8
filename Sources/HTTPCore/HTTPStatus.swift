/// An HTTP response status (RFC 9110 §15): a three-digit code and a reason phrase.
///
/// Any code from 100 to 599 can be represented; the registered ones are constants.
/// Two statuses are equal when their codes are; the reason phrase is informative only
/// (RFC 9110 §15: clients must not depend on it).
///
/// ```swift
/// let status = try HTTPStatus(code: 429)
/// print(status, status.kind)  // 429 Too Many Requests clientError
/// print(status == .tooManyRequests)  // true
/// ```
public struct HTTPStatus: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The class of a status, given by its first digit (RFC 9110 §15).
    public enum Kind: Hashable, Sendable, CaseIterable {
        /// 1xx: the request was received and is being processed.
        case informational
        /// 2xx: the request was received, understood and accepted.
        case successful
        /// 3xx: further action is needed to complete the request.
        case redirection
        /// 4xx: the request is wrong or cannot be fulfilled.
        case clientError
        /// 5xx: the server failed to fulfil a valid request.
        case serverError
    }

    /// The three-digit status code, 100...599.
    public let code: Int
    /// The reason phrase: the server's when given, else the registered one, else empty.
    public let reasonPhrase: String

    /// Creates a status from a code.
    /// - Parameters:
    ///   - code: A code from 100 to 599.
    ///   - reasonPhrase: The phrase to keep; `nil` picks the registered phrase, if any.
    /// - Throws: ``HTTPCoreError`` with code ``HTTPCoreError/Code/invalidStatus`` when `code` is
    ///   outside 100...599.
    public init(code: Int, reasonPhrase: String? = nil) throws(HTTPCoreError) {
        guard (100...599).contains(code) else {
            throw HTTPCoreError(
                .invalidStatus, value: String(code), reason: "status codes range from 100 to 599 (RFC 9110 §15)")
        }
        self.code = code
        self.reasonPhrase = reasonPhrase ?? Self.registeredPhrases[code] ?? ""
    }

    private init(known code: Int, _ phrase: String) {
        self.code = code
        self.reasonPhrase = phrase
    }

    /// The class of the status, from its first digit.
    public var kind: Kind {
        switch code {
        case ..<200: return .informational
        case ..<300: return .successful
        case ..<400: return .redirection
        case ..<500: return .clientError
        default: return .serverError
        }
    }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { kind == .successful }

    /// Equal when the codes are equal.
    public static func == (lhs: HTTPStatus, rhs: HTTPStatus) -> Bool { lhs.code == rhs.code }

    /// Hashes the code.
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// Orders statuses by code.
    public static func < (lhs: HTTPStatus, rhs: HTTPStatus) -> Bool { lhs.code < rhs.code }

    /// The code and the reason phrase, such as `404 Not Found`.
    public var description: String { reasonPhrase.isEmpty ? String(code) : "\(code) \(reasonPhrase)" }

    /// Reason phrases of the IANA HTTP Status Code Registry: RFC 9110 §15, plus 102 (RFC 2518),
    /// 103 (RFC 8297), 207 and 423/424/507 (RFC 4918), 208/508 (RFC 5842), 226 (RFC 3229),
    /// 429/428/431/511 (RFC 6585), 425 (RFC 8470), 451 (RFC 7725) and 506 (RFC 2295).
    private static let registeredPhrases: [Int: String] = [
        100: "Continue",
        101: "Switching Protocols",
        102: "Processing",
        103: "Early Hints",
        200: "OK",
        201: "Created",
        202: "Accepted",
        203: "Non-Authoritative Information",
        204: "No Content",
        205: "Reset Content",
        206: "Partial Content",
        207: "Multi-Status",
        208: "Already Reported",
        226: "IM Used",
        300: "Multiple Choices",
        301: "Moved Permanently",
        302: "Found",
        303: "See Other",
        304: "Not Modified",
        307: "Temporary Redirect",
        308: "Permanent Redirect",
        400: "Bad Request",
        401: "Unauthorized",
        402: "Payment Required",
        403: "Forbidden",
        404: "Not Found",
        405: "Method Not Allowed",
        406: "Not Acceptable",
        407: "Proxy Authentication Required",
        408: "Request Timeout",
        409: "Conflict",
        410: "Gone",
        411: "Length Required",
        412: "Precondition Failed",
        413: "Content Too Large",
        414: "URI Too Long",
        415: "Unsupported Media Type",
        416: "Range Not Satisfiable",
        417: "Expectation Failed",
        421: "Misdirected Request",
        422: "Unprocessable Content",
        423: "Locked",
        424: "Failed Dependency",
        425: "Too Early",
        426: "Upgrade Required",
        428: "Precondition Required",
        429: "Too Many Requests",
        431: "Request Header Fields Too Large",
        451: "Unavailable For Legal Reasons",
        500: "Internal Server Error",
        501: "Not Implemented",
        502: "Bad Gateway",
        503: "Service Unavailable",
        504: "Gateway Timeout",
        505: "HTTP Version Not Supported",
        506: "Variant Also Negotiates",
        507: "Insufficient Storage",
        508: "Loop Detected",
        511: "Network Authentication Required",
    ]

    /// 100 Continue.
    public static let `continue` = HTTPStatus(known: 100, "Continue")
    /// 101 Switching Protocols.
    public static let switchingProtocols = HTTPStatus(known: 101, "Switching Protocols")
    /// 103 Early Hints.
    public static let earlyHints = HTTPStatus(known: 103, "Early Hints")
    /// 200 OK.
    public static let ok = HTTPStatus(known: 200, "OK")
    /// 201 Created.
    public static let created = HTTPStatus(known: 201, "Created")
    /// 202 Accepted.
    public static let accepted = HTTPStatus(known: 202, "Accepted")
    /// 203 Non-Authoritative Information.
    public static let nonAuthoritativeInformation = HTTPStatus(known: 203, "Non-Authoritative Information")
    /// 204 No Content.
    public static let noContent = HTTPStatus(known: 204, "No Content")
    /// 205 Reset Content.
    public static let resetContent = HTTPStatus(known: 205, "Reset Content")
    /// 206 Partial Content.
    public static let partialContent = HTTPStatus(known: 206, "Partial Content")
    /// 300 Multiple Choices.
    public static let multipleChoices = HTTPStatus(known: 300, "Multiple Choices")
    /// 301 Moved Permanently.
    public static let movedPermanently = HTTPStatus(known: 301, "Moved Permanently")
    /// 302 Found.
    public static let found = HTTPStatus(known: 302, "Found")
    /// 303 See Other.
    public static let seeOther = HTTPStatus(known: 303, "See Other")
    /// 304 Not Modified.
    public static let notModified = HTTPStatus(known: 304, "Not Modified")
    /// 307 Temporary Redirect.
    public static let temporaryRedirect = HTTPStatus(known: 307, "Temporary Redirect")
    /// 308 Permanent Redirect.
    public static let permanentRedirect = HTTPStatus(known: 308, "Permanent Redirect")
    /// 400 Bad Request.
    public static let badRequest = HTTPStatus(known: 400, "Bad Request")
    /// 401 Unauthorized.
    public static let unauthorized = HTTPStatus(known: 401, "Unauthorized")
    /// 402 Payment Required.
    public static let paymentRequired = HTTPStatus(known: 402, "Payment Required")
    /// 403 Forbidden.
    public static let forbidden = HTTPStatus(known: 403, "Forbidden")
    /// 404 Not Found.
    public static let notFound = HTTPStatus(known: 404, "Not Found")
    /// 405 Method Not Allowed.
    public static let methodNotAllowed = HTTPStatus(known: 405, "Method Not Allowed")
    /// 406 Not Acceptable.
    public static let notAcceptable = HTTPStatus(known: 406, "Not Acceptable")
    /// 407 Proxy Authentication Required.
    public static let proxyAuthenticationRequired = HTTPStatus(known: 407, "Proxy Authentication Required")
    /// 408 Request Timeout.
    public static let requestTimeout = HTTPStatus(known: 408, "Request Timeout")
    /// 409 Conflict.
    public static let conflict = HTTPStatus(known: 409, "Conflict")
    /// 410 Gone.
    public static let gone = HTTPStatus(known: 410, "Gone")
    /// 411 Length Required.
    public static let lengthRequired = HTTPStatus(known: 411, "Length Required")
    /// 412 Precondition Failed.
    public static let preconditionFailed = HTTPStatus(known: 412, "Precondition Failed")
    /// 413 Content Too Large.
    public static let contentTooLarge = HTTPStatus(known: 413, "Content Too Large")
    /// 414 URI Too Long.
    public static let uriTooLong = HTTPStatus(known: 414, "URI Too Long")
    /// 415 Unsupported Media Type.
    public static let unsupportedMediaType = HTTPStatus(known: 415, "Unsupported Media Type")
    /// 416 Range Not Satisfiable.
    public static let rangeNotSatisfiable = HTTPStatus(known: 416, "Range Not Satisfiable")
    /// 417 Expectation Failed.
    public static let expectationFailed = HTTPStatus(known: 417, "Expectation Failed")
    /// 421 Misdirected Request.
    public static let misdirectedRequest = HTTPStatus(known: 421, "Misdirected Request")
    /// 422 Unprocessable Content.
    public static let unprocessableContent = HTTPStatus(known: 422, "Unprocessable Content")
    /// 425 Too Early.
    public static let tooEarly = HTTPStatus(known: 425, "Too Early")
    /// 426 Upgrade Required.
    public static let upgradeRequired = HTTPStatus(known: 426, "Upgrade Required")
    /// 428 Precondition Required.
    public static let preconditionRequired = HTTPStatus(known: 428, "Precondition Required")
    /// 429 Too Many Requests.
    public static let tooManyRequests = HTTPStatus(known: 429, "Too Many Requests")
    /// 431 Request Header Fields Too Large.
    public static let requestHeaderFieldsTooLarge = HTTPStatus(known: 431, "Request Header Fields Too Large")
    /// 451 Unavailable For Legal Reasons.
    public static let unavailableForLegalReasons = HTTPStatus(known: 451, "Unavailable For Legal Reasons")
    /// 500 Internal Server Error.
    public static let internalServerError = HTTPStatus(known: 500, "Internal Server Error")
    /// 501 Not Implemented.
    public static let notImplemented = HTTPStatus(known: 501, "Not Implemented")
    /// 502 Bad Gateway.
    public static let badGateway = HTTPStatus(known: 502, "Bad Gateway")
    /// 503 Service Unavailable.
    public static let serviceUnavailable = HTTPStatus(known: 503, "Service Unavailable")
    /// 504 Gateway Timeout.
    public static let gatewayTimeout = HTTPStatus(known: 504, "Gateway Timeout")
    /// 505 HTTP Version Not Supported.
    public static let httpVersionNotSupported = HTTPStatus(known: 505, "HTTP Version Not Supported")
    /// 511 Network Authentication Required.
    public static let networkAuthenticationRequired = HTTPStatus(known: 511, "Network Authentication Required")
}
