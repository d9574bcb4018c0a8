import Foundation
import HTTPCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPResponse {
    /// The response head of a URLSession response.
    ///
    /// URLSession hands header fields over as a dictionary: their order on the wire is
    /// lost, so fields are sorted by name to make the result deterministic. `Set-Cookie`
    /// lines, which URLSession joins with commas, are split again (RFC 6265 §3 forbids
    /// folding them; a comma followed by `name=` starts a new cookie).
    /// - Parameters:
    ///   - response: What URLSession received.
    ///   - request: The request, for error context.
    /// - Throws: ``ClientError/Code/invalidResponse`` for a non-HTTP response, a status
    ///   outside 100...599, or a field whose name or value is not valid HTTP.
    init(_ response: URLResponse, for request: HTTPRequest) throws(ClientError) {
        guard let http = response as? HTTPURLResponse else {
            throw ClientError(.invalidResponse, "the response is not an HTTP response", request: request)
        }
        let status: HTTPStatus
        do {
            status = try HTTPStatus(code: http.statusCode)
        } catch {
            throw ClientError(
                .invalidResponse, "the status code \(http.statusCode) is outside 100...599", request: request,
                underlying: error)
        }
        // Names are checked first and sorted by their canonical (ASCII-lowercased) form; a
        // name that is not a token sorts by its lowercased spelling, so the error names the
        // same field whatever the dictionary's order.
        var pairs: [(key: String, name: Result<HTTPFieldName, HTTPCoreError>, raw: String, value: String)] = []
        let headers = http.allHeaderFields
        pairs.reserveCapacity(headers.count)
        for (key, value) in headers {
            guard let raw = key as? String else { continue }
            let text = (value as? String) ?? String(describing: value)
            let name = Result { () throws(HTTPCoreError) in try HTTPFieldName(raw) }
            let sortKey = (try? name.get())?.canonicalName ?? raw.lowercased()
            pairs.append((sortKey, name, raw, text))
        }
        pairs.sort { $0.key < $1.key }
        var fields = HTTPFields()
        for (_, parsed, raw, value) in pairs {
            do {
                let name = try parsed.get()
                if name == .setCookie {
                    for item in Self.splitSetCookie(value) { fields.append(try HTTPField(name: name, value: item)) }
                } else {
                    fields.append(try HTTPField(name: name, value: value))
                }
            } catch {
                throw ClientError(
                    .invalidResponse, "the response field \(raw.debugDescription) is not a valid HTTP field",
                    request: request, response: HTTPResponse(status: status, headerFields: fields, url: http.url),
                    underlying: error)
            }
        }
        self.init(status: status, headerFields: fields, url: http.url)
    }

    /// Splits a comma-joined `Set-Cookie` value into its cookies: a comma starts a new one
    /// only when `name=` follows it, so the comma inside `Expires=Wed, 21 Oct 2015` stays.
    ///
    /// One pass in linear time: the look-ahead after a comma reads a cookie name, which
    /// ends at the next separator at the latest (a comma is one), so no byte is read more
    /// than twice, whatever the value holds. This runs on URLSession's delegate queue,
    /// which every transfer shares: a hostile 40 KB field must not stall the others.
    static func splitSetCookie(_ value: String) -> [String] {
        var utf8 = value.utf8
        if let cookies = utf8.withContiguousStorageIfAvailable({ splitSetCookie(bytes: $0) }) { return cookies }
        // A bridged string without contiguous UTF-8: make it native once.
        var native = value
        native.makeContiguousUTF8()
        utf8 = native.utf8
        return utf8.withContiguousStorageIfAvailable { splitSetCookie(bytes: $0) } ?? [value]
    }

    private static func splitSetCookie(bytes: UnsafeBufferPointer<UInt8>) -> [String] {
        var cookies: [String] = []
        var start = 0
        for index in bytes.indices where bytes[index] == UInt8(ascii: ",") {
            if startsWithCookieName(bytes, at: index + 1) {
                // An empty piece (a value starting with a comma) is no cookie.
                let cookie = trimmed(bytes, start..<index)
                if !cookie.isEmpty { cookies.append(cookie) }
                start = index + 1
            }
        }
        let last = trimmed(bytes, start..<bytes.count)
        if !last.isEmpty { cookies.append(last) }
        return cookies
    }

    private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
            .trimmingCharacters(in: .whitespaces)
    }

    /// Whether the bytes from `start` are optional spaces, then a token (RFC 9110 §5.6.2),
    /// then `=`.
    private static func startsWithCookieName(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
        var index = start
        while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") {
            index += 1
        }
        let nameStart = index
        while index < bytes.count, isTokenByte(bytes[index]) { index += 1 }
        return index > nameStart && index < bytes.count && bytes[index] == UInt8(ascii: "=")
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        guard byte > 32, byte < 127 else { return false }
        switch byte {
        case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "@"),
            UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: ":"), UInt8(ascii: "\\"), UInt8(ascii: "\""),
            UInt8(ascii: "/"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "?"), UInt8(ascii: "="),
            UInt8(ascii: "{"), UInt8(ascii: "}"):
            return false
        default:
            return true
        }
    }
}
