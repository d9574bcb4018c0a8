import Foundation
import HTTPClient
import HTTPCore
import NIOHTTP1

extension HTTPCore.HTTPResponse {
    /// The response head AsyncHTTPClient received, its fields in the order and spelling
    /// they came in, repeats kept (each `Set-Cookie` on its own).
    /// - Parameters:
    ///   - status: The status AsyncHTTPClient received.
    ///   - headers: The header fields AsyncHTTPClient received.
    ///   - version: The HTTP version it came over, when known.
    ///   - request: The request it answers: its URL becomes the response's.
    /// - Throws: ``ClientError/Code/invalidResponse`` for a status outside 100...599 or a
    ///   field whose name or value is not valid HTTP.
    init(
        status received: HTTPResponseStatus, headers: HTTPHeaders, version: NIOHTTP1.HTTPVersion? = nil,
        for request: HTTPCore.HTTPRequest
    ) throws(ClientError) {
        let code = Int(received.code)
        let status: HTTPStatus
        do {
            status = try HTTPStatus(code: code)
        } catch {
            throw ClientError(
                .invalidResponse, "the status code \(code) is outside 100...599", request: request, underlying: error)
        }
        var fields = HTTPFields()
        for (name, value) in headers {
            do {
                fields.append(try HTTPField(name: name, value: value))
            } catch {
                throw ClientError(
                    .invalidResponse, "the response field \(name.debugDescription) is not a valid HTTP field",
                    request: request, response: HTTPResponse(status: status, headerFields: fields, url: request.url),
                    underlying: error)
            }
        }
        self.init(status: status, headerFields: fields, url: request.url)
        self.version = version.map { HTTPCore.HTTPVersion(major: $0.major, minor: $0.minor) }
    }

    /// Whether this response to `request` has a body: not for a `HEAD` request, `204` or
    /// `304` (RFC 9110 §6.4.1; 1xx responses never reach a transport's caller).
    func hasBody(answering request: HTTPCore.HTTPRequest) -> Bool {
        request.method != .head && status.code != 204 && status.code != 304
    }

    /// The body length `Content-Length` declares and the body has as delivered: `nil` for a
    /// `Content-Encoding` the transport decodes, whose length counts the encoded bytes.
    var decodedBodyLength: Int64? {
        guard let length = contentLength else { return nil }
        if let coding = headerFields[.contentEncoding], coding.lowercased() != "identity" { return nil }
        return length
    }
}
