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
    /// The HTTP version the response came over, when the transport reports it (the
    /// AsyncHTTPClient transport does; URLSession on Linux does not), else `nil`.
    public var version: HTTPVersion?

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
            for element in field.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
                guard let value = Self.decimal(element), result == nil || result == value else { return nil }
                result = value
            }
        }
        return result
    }

    /// The value of 1*DIGIT between optional spaces and tabs, or `nil` (empty, another
    /// character, or past `Int64.max`).
    private static func decimal(_ text: Substring.UTF8View.SubSequence) -> Int64? {
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var digits = text.drop(while: isBlank)
        while let last = digits.last, isBlank(last) { digits = digits.dropLast() }
        guard !digits.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times10, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowB) = times10.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflowA, !overflowB else { return nil }
            value = sum
        }
        return value
    }

    /// The status, such as `200 OK`.
    public var description: String { status.description }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { status.isSuccess }

    /// `body` as text in the `charset` of this response's `Content-Type`, UTF-8 when it
    /// names none (RFC 9110 §8.3.1).
    /// - Parameter body: The response body.
    /// - Returns: The text.
    /// - Throws: ``HTTPCoreError`` with code ``HTTPCoreError/Code/undecodableText`` when the
    ///   charset is one Foundation cannot decode, or the bytes are not valid in it.
    public func text(of body: Data) throws(HTTPCoreError) -> String {
        let type = contentType
        guard let encoding = type?.charset == nil ? .utf8 : type?.stringEncoding else {
            throw HTTPCoreError(
                .undecodableText, value: type?.description ?? "",
                reason: "the charset \(type?.charset ?? "") is not one Foundation can decode")
        }
        guard let text = String(data: body, encoding: encoding) else {
            throw HTTPCoreError(
                .undecodableText, value: String(decoding: body.prefix(100), as: UTF8.self),
                reason: "the body is not valid \(type?.charset ?? "UTF-8")")
        }
        return text
    }
}
