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
    static func splitSetCookie(_ value: String) -> [String] {
        var cookies: [String] = []
        var current = Substring()
        var rest = Substring(value)
        while let comma = rest.firstIndex(of: ",") {
            let after = rest[rest.index(after: comma)...]
            if Self.startsWithCookieName(after) {
                current += rest[..<comma]
                cookies.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            } else {
                current += rest[...comma]
            }
            rest = after
        }
        current += rest
        let last = current.trimmingCharacters(in: .whitespaces)
        if !last.isEmpty { cookies.append(last) }
        return cookies
    }

    /// Whether `text` is optional spaces, then a token, then `=`.
    private static func startsWithCookieName(_ text: Substring) -> Bool {
        let trimmed = text.drop { $0 == " " || $0 == "\t" }
        guard let equals = trimmed.firstIndex(of: "=") else { return false }
        let name = trimmed[..<equals]
        let separators = Set("()<>@,;:\\\"/[]?={} \t")
        return !name.isEmpty
            && name.allSatisfy { $0.isASCII && !separators.contains($0) && !($0.asciiValue.map { $0 < 32 } ?? true) }
    }
}
