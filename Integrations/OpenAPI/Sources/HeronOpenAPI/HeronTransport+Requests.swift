import Foundation
import HTTPClient
import HTTPCore
import HTTPTypes
import HeronHTTPTypes
import OpenAPIRuntime

extension HeronTransport {
    /// The Heron request for an operation: its URL the server URL with the operation's path
    /// appended, its method and header fields converted, its body bridged.
    static func heronRequest(
        _ request: HTTPTypes.HTTPRequest, body: OpenAPIRuntime.HTTPBody?, baseURL: URL
    ) async throws -> HTTPCore.HTTPRequest {
        var head = request
        // The target is the server URL and the path: a scheme or authority set on the head
        // would name another server (swift-openapi-runtime's transports ignore them too).
        head.scheme = nil
        head.authority = nil
        let url = try requestURL(baseURL: baseURL, path: request.path ?? "/", method: request.method)
        var converted: HTTPCore.HTTPRequest
        do {
            converted = try HTTPCore.HTTPRequest(head)
        } catch {
            var failure = HTTPClient.ClientError(
                .invalidRequest, "the operation's request cannot be sent: \(error)", underlying: error)
            failure.method = try? HTTPMethod(request.method.rawValue)
            failure.url = url
            throw failure
        }
        converted.url = url
        if let body { converted.body = try await heronBody(body, request: converted) }
        return converted
    }

    /// `baseURL` with `path` (a path and query, as the generated code makes it) appended: the
    /// server URL's path is a prefix (`/v2` and `/pets` give `/v2/pets`, a trailing `/` of
    /// the server URL's path counting once), and its query, if any, comes before the path's.
    /// - Throws: `ClientError.Code.invalidRequest` naming a server URL that is not absolute or
    ///   a path that is not an absolute path (RFC 9112 §3.2.1's origin form).
    static func requestURL(baseURL: URL, path: String, method: HTTPTypes.HTTPRequest.Method) throws -> URL {
        func invalid(_ reason: String) -> HTTPClient.ClientError {
            HTTPClient.ClientError(.invalidRequest, "\(method) \(path) against the server URL \(baseURL): \(reason)")
        }
        guard var base = URLComponents(url: baseURL.absoluteURL, resolvingAgainstBaseURL: true),
            base.scheme != nil, base.host?.isEmpty == false
        else { throw invalid("the server URL must be absolute, with a scheme and a host") }
        // Parsed on its own first, so only a valid percent-encoded path reaches `base` (whose
        // setter traps on an invalid one).
        guard let target = URLComponents(string: path), target.scheme == nil, target.host == nil,
            target.percentEncodedPath.hasPrefix("/")
        else { throw invalid("the path must be an absolute path with an optional query, such as /pets?limit=10") }
        guard target.percentEncodedFragment == nil else {
            throw invalid("a fragment is never sent (RFC 9110 §4.2.5)")
        }
        var prefix = base.percentEncodedPath
        if prefix.hasSuffix("/") { prefix.removeLast() }
        base.percentEncodedPath = prefix + target.percentEncodedPath
        switch (base.percentEncodedQuery, target.percentEncodedQuery) {
        case (let baseQuery?, let query?) where !baseQuery.isEmpty: base.percentEncodedQuery = baseQuery + "&" + query
        case (_, let query?): base.percentEncodedQuery = query
        default: break
        }
        base.percentEncodedFragment = nil
        guard let url = base.url else { throw invalid("no URL joins them") }
        return url
    }

    /// A Heron body reading `body`, with its length and iteration behaviour.
    ///
    /// A body of known length that can be read more than once and yields all its bytes in
    /// its first chunk is in memory already (the generated code's JSON, text and form bodies
    /// are): it becomes a body of bytes, which transports hand over in one piece. Any other
    /// body is streamed as it is read, never collected.
    static func heronBody(
        _ body: OpenAPIRuntime.HTTPBody, request: HTTPCore.HTTPRequest
    ) async throws -> HTTPCore.HTTPBody {
        let length: HTTPCore.HTTPBody.Length
        switch body.length {
        case .known(let count): length = .known(count)
        case .unknown: length = .unknown
        }
        let replayable = body.iterationBehavior == .multiple
        if replayable, case .known(let count) = body.length {
            do {
                var chunks = body.makeAsyncIterator()
                let first = try await chunks.next()
                if Int64(first?.count ?? 0) == count, try await chunks.next() == nil {
                    return first.map { HTTPCore.HTTPBody(Data($0)) } ?? .empty
                }
            } catch {
                throw HTTPClient.ClientError(
                    error is CancellationError ? .cancelled : .transport,
                    "reading the operation's request body failed: \(error)", request: request, underlying: error)
            }
        }
        return HTTPCore.HTTPBody(length: length, iterationBehavior: replayable ? .multiple : .single) {
            RequestChunks(body: body)
        }
    }
}

/// The chunks of an OpenAPIRuntime body as Heron reads them: `Data`, one per chunk, as the
/// body yields them.
struct RequestChunks: AsyncSequence, Sendable {
    typealias Element = Data

    let body: OpenAPIRuntime.HTTPBody

    func makeAsyncIterator() -> Iterator { Iterator(base: body.makeAsyncIterator()) }

    struct Iterator: AsyncIteratorProtocol {
        var base: OpenAPIRuntime.HTTPBody.Iterator

        mutating func next() async throws -> Data? {
            guard let chunk = try await base.next() else { return nil }
            return Data(chunk)
        }
    }
}
