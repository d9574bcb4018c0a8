import Foundation
import HTTPCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPRequest {
    /// The `URLRequest` for this request's method, URL and header fields (not its body).
    ///
    /// Repeated fields are combined into one (`, `-separated, `; ` for `Cookie`), as
    /// RFC 9110 §5.3 allows: `URLRequest` keeps one value per name. `Content-Length` and
    /// `Transfer-Encoding` are left out: URLSession frames the body itself, and a request
    /// that carries both (RFC 9112 §6.3) is rejected by servers. A body without
    /// `Content-Type` is sent as `application/octet-stream` rather than URLSession's
    /// default, `application/x-www-form-urlencoded`.
    /// - Parameter idleTimeout: The idle timeout, rounded up to whole seconds.
    /// - Throws: ``ClientError/Code/invalidRequest`` when the URL is not absolute `http(s)`
    ///   (one for a Unix domain socket, `http+unix` and the like, says so).
    func makeURLRequest(idleTimeout: Duration?) throws(ClientError) -> URLRequest {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
            if let scheme = url.scheme?.lowercased(), ["http+unix", "https+unix", "unix"].contains(scheme) {
                throw ClientError(
                    .invalidRequest,
                    "URLSessionTransport cannot send to a Unix domain socket (the URL's scheme is '\(scheme)'): "
                        + "URLSession connects over TCP only; AsyncHTTPClientTransport takes such URLs",
                    request: self)
            }
            throw ClientError(
                .invalidRequest, "the URL \(URLRedaction.display(url)) is not an absolute http or https URL",
                request: self)
        }
        var urlRequest = URLRequest(url: url)
        // `GET` is URLRequest's own; setting it anyway costs a bridged string on Linux.
        if method != .get { urlRequest.httpMethod = method.rawValue }
        urlRequest.httpShouldHandleCookies = false
        urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
        if let interval = URLSessionTransport.timeoutInterval(for: idleTimeout) {
            urlRequest.timeoutInterval = interval
        }
        // One pass, one assignment: by canonical name, the first spelling and the combined value.
        var combined: [String: (name: String, value: String)] = [:]
        combined.reserveCapacity(headerFields.count + 1)
        for field in headerFields where field.name != .contentLength && field.name != .transferEncoding {
            let key = field.name.canonicalName
            if combined[key] != nil {
                guard field.name != .setCookie else { continue }
                // In place: `+` would copy the growing value for every repeat.
                combined[key]?.value.append(field.name == .cookie ? "; " : ", ")
                combined[key]?.value.append(field.value)
            } else {
                combined[key] = (field.name.rawName, field.value)
            }
        }
        if body != nil, combined[HTTPFieldName.contentType.canonicalName] == nil {
            // URLSession would label the body application/x-www-form-urlencoded; no label
            // means application/octet-stream (RFC 9110 §8.3), so say that instead.
            combined[HTTPFieldName.contentType.canonicalName] = ("Content-Type", "application/octet-stream")
        }
        var fields: [String: String] = [:]
        fields.reserveCapacity(combined.count)
        for (name, value) in combined.values { fields[name] = value }
        urlRequest.allHTTPHeaderFields = fields
        return urlRequest
    }
}

extension URLSessionTransport {
    /// The `URLRequest.timeoutInterval` for an idle timeout: whole seconds, rounded up, at least 1.
    ///
    /// URLSession on Linux truncates the interval to whole seconds (0.5 s would time out at
    /// once), so sub-second precision is left to the client's own deadline.
    /// - Parameter idleTimeout: The idle timeout, if any.
    /// - Returns: The interval in seconds, or `nil` to keep the session's default.
    static func timeoutInterval(for idleTimeout: Duration?) -> TimeInterval? {
        guard let idleTimeout else { return nil }
        let (seconds, attoseconds) = idleTimeout.components
        guard seconds >= 0 else { return 1 }
        let whole = seconds + (attoseconds > 0 ? 1 : 0)
        return TimeInterval(max(1, whole))
    }
}
