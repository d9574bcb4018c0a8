import HTTPCore
import HTTPTypes

extension HTTPTypes.HTTPResponse {
    /// Creates a swift-http-types response from an HTTPCore response: its status code and
    /// reason phrase, and its header fields in order, repeats and spelling kept.
    ///
    /// swift-http-types has no body and no URL: the response's ``HTTPCore/HTTPResponse/url`` is
    /// left behind, and a body read beside the head stays where it is.
    ///
    /// ```swift
    /// let response = HTTPCore.HTTPResponse(status: try HTTPStatus(code: 599, reasonPhrase: "Network Timeout"))
    /// let head = try HTTPTypes.HTTPResponse(response)
    /// print(head.status)  // 599 Network Timeout
    /// ```
    /// - Parameter response: The HTTPCore response.
    /// - Throws: ``HTTPTypesConversionError`` with code ``HTTPTypesConversionError/Code/invalidReasonPhrase``
    ///   when swift-http-types would change the reason phrase (it turns control characters such
    ///   as CR and LF into spaces), or a field code for a field it refuses.
    public init(_ response: HTTPCore.HTTPResponse) throws(HTTPTypesConversionError) {
        let phrase = response.status.reasonPhrase
        let status = Status(code: response.status.code, reasonPhrase: phrase)
        guard status.reasonPhrase == phrase else {
            throw HTTPTypesConversionError(
                .invalidReasonPhrase, value: phrase,
                reason: "swift-http-types would turn its control characters into spaces (RFC 9112 §4)")
        }
        self.init(status: status, headerFields: try HTTPTypes.HTTPFields(response.headerFields))
    }
}

extension HTTPCore.HTTPResponse {
    /// Creates an HTTPCore response from a swift-http-types response: its status code and
    /// reason phrase (an empty phrase stays empty), and its header fields in order, repeats
    /// and spelling kept.
    ///
    /// ```swift
    /// let head = HTTPTypes.HTTPResponse(status: .ok, headerFields: [.contentType: "text/plain"])
    /// let response = try HTTPCore.HTTPResponse(head, url: URL(string: "https://example.com/"))
    /// print(response.status, response.contentType!)  // 200 OK text/plain
    /// ```
    /// - Parameters:
    ///   - response: The swift-http-types response.
    ///   - url: The URL the response came from, as swift-http-types carries none; `nil` by default.
    /// - Throws: ``HTTPTypesConversionError`` with code ``HTTPTypesConversionError/Code/invalidStatus``
    ///   for a code outside 100...599, or a field code for a field HTTPCore refuses.
    public init(_ response: HTTPTypes.HTTPResponse, url: URL? = nil) throws(HTTPTypesConversionError) {
        let status: HTTPStatus
        do {
            status = try HTTPStatus(code: response.status.code, reasonPhrase: response.status.reasonPhrase)
        } catch {
            throw HTTPTypesConversionError(
                .invalidStatus, value: String(response.status.code), reason: "HTTPCore refuses it: \(error.reason)",
                underlying: error)
        }
        self.init(status: status, headerFields: try HTTPCore.HTTPFields(response.headerFields), url: url)
    }
}
