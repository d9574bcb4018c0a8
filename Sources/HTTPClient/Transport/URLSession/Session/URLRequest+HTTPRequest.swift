import Foundation
import HTTPCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLRequest {
    /// The `URLRequest` for `request`: method, absolute URL, header fields (repeated ones
    /// combined, as `URLRequest` keeps one value per name) and body.
    ///
    /// A body in memory becomes `httpBody`; a file or an `InputStream` body becomes
    /// `httpBodyStream`. A body of an `AsyncSequence` has no `URLRequest` form without
    /// reading it whole, so it is refused rather than dropped.
    ///
    /// ```swift
    /// let urlRequest = try URLRequest(HTTPRequest.post("https://example.com/items").header(.accept, "text/plain"))
    /// print(urlRequest.httpMethod ?? "", urlRequest.value(forHTTPHeaderField: "Accept") ?? "")  // POST text/plain
    /// ```
    /// - Parameter request: The request, with an absolute `http` or `https` URL.
    /// - Throws: ``ClientError`` with code ``ClientError/Code/invalidRequest`` for a request
    ///   built with an error, a relative URL, or a streamed body that cannot be converted.
    public init(_ request: HTTPRequest) throws(ClientError) {
        try ClientError.checkBuilt(request)
        self = try request.makeURLRequest(idleTimeout: nil)
        guard let body = request.body else { return }
        switch body.source {
        case .data(let data): httpBody = data
        case .file(let url): httpBodyStream = InputStream(url: url)
        case .stream:
            guard body.makesInputStreams else {
                throw ClientError(
                    .invalidRequest,
                    "the body is an AsyncSequence stream, which a URLRequest cannot carry without reading it whole; "
                        + "use a body from Data, a file or an InputStream", request: request)
            }
            do { httpBodyStream = try body.makeInputStream() } catch {
                throw ClientError(
                    .invalidRequest, "the body's InputStream could not be made", request: request, underlying: error)
            }
        }
    }
}

extension HTTPRequest {
    /// The request a `URLRequest` describes: method (`GET` when unset), URL, header fields
    /// (sorted by name: `URLRequest` does not keep their order) and body.
    /// - Parameter urlRequest: The URL request.
    /// - Throws: ``ClientError`` with code ``ClientError/Code/invalidRequest`` for a request
    ///   without a URL, or a method or field that is not valid HTTP.
    public init(_ urlRequest: URLRequest) throws(ClientError) {
        guard let url = urlRequest.url else { throw ClientError(.invalidRequest, "the URLRequest has no URL") }
        do throws(HTTPCoreError) {
            let method = try HTTPMethod(urlRequest.httpMethod ?? "GET")
            var fields = HTTPFields()
            for (name, value) in (urlRequest.allHTTPHeaderFields ?? [:]).sorted(by: { $0.key < $1.key }) {
                fields.append(try HTTPField(name: name, value: value))
            }
            var body: HTTPBody?
            if let data = urlRequest.httpBody {
                body = HTTPBody(data)
            } else if let stream = urlRequest.httpBodyStream {
                // One stream, read once: the body says so, and retries will not re-send it. The
                // lock hands it over; the single-use body reads it on one thread at a time.
                let held = Locked(stream)
                body = HTTPBody(length: .unknown, iterationBehavior: .single) { held.withLock { $0 } }
            }
            self.init(method: method, url: url, headerFields: fields, body: body)
        } catch {
            throw ClientError(
                .invalidRequest, "the URLRequest is not a valid HTTP request: \(error)", underlying: error)
        }
    }
}

extension HTTPResponse {
    /// The response head an `HTTPURLResponse` describes; `Set-Cookie` lines that
    /// URLSession joined are split again.
    /// - Parameter response: The URL response.
    /// - Throws: ``ClientError`` with code ``ClientError/Code/invalidResponse`` for a status
    ///   outside 100...599 or a field that is not valid HTTP.
    public init(_ response: HTTPURLResponse) throws(ClientError) {
        try self.init(response, for: HTTPRequest(url: response.url ?? URL(string: "about:blank")!))
    }
}

extension HTTPURLResponse {
    /// The `HTTPURLResponse` for a response head and the URL it answered (repeated fields
    /// combined, as `HTTPURLResponse` keeps one value per name).
    /// - Parameters:
    ///   - response: The response head.
    ///   - url: The URL, or `nil` for the response's own.
    /// - Returns: `nil` when there is no URL.
    public convenience init?(_ response: HTTPResponse, url: URL? = nil) {
        guard let url = url ?? response.url else { return nil }
        var fields: [String: String] = [:]
        for field in response.headerFields {
            if fields[field.name.rawName] == nil {
                fields[field.name.rawName] = field.value
            } else {
                fields[field.name.rawName]?.append(", " + field.value)
            }
        }
        self.init(url: url, statusCode: response.status.code, httpVersion: "HTTP/1.1", headerFields: fields)
    }
}
