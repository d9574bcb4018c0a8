import Foundation

/// The head of an HTTP response: status, header fields and the URL it came from.
///
/// The body is delivered separately (in memory, in a file or as a stream) by the client.
///
/// ```swift
/// let response = HTTPResponse(status: .ok, headerFields: try HTTPFields(["Content-Type": "application/json"]))
/// print(response.status.isSuccess, response.contentType == .json)  // true true
/// ```
public struct HTTPResponse: Hashable, Sendable, CustomStringConvertible {
    /// The status.
    public var status: HTTPStatus
    /// The header fields, in order.
    public var headerFields: HTTPFields
    /// The URL that produced the response, after any redirects.
    public var url: URL?

    /// Creates a response head.
    /// - Parameters:
    ///   - status: The status.
    ///   - headerFields: The header fields.
    ///   - url: The final URL, after redirects.
    public init(status: HTTPStatus, headerFields: HTTPFields = [], url: URL? = nil) {
        self.status = status
        self.headerFields = headerFields
        self.url = url
    }

    /// The parsed `Content-Type`, or `nil` when absent or malformed.
    public var contentType: MediaType? {
        headerFields[.contentType].flatMap { try? MediaType(parsing: $0) }
    }

    /// The `Content-Length`, or `nil` when absent or invalid.
    ///
    /// The value must be digits only (RFC 9110 §8.6: no sign, no spaces inside). Repeated
    /// fields, or a comma-separated list, are accepted only when every value is the same.
    public var contentLength: Int64? {
        var result: Int64?
        for field in headerFields[values: .contentLength] {
            for element in field.split(separator: ",", omittingEmptySubsequences: false) {
                let digits = element.trimmingCharacters(in: [" ", "\t"])
                guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                    let value = Int64(digits), result == nil || result == value
                else { return nil }
                result = value
            }
        }
        return result
    }

    /// The status, such as `200 OK`.
    public var description: String { status.description }
}
