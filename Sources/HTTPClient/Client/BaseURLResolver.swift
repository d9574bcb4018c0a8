import Foundation
import HTTPCore

/// Resolves request URLs against a client's base URL, keeping the base's path prefix.
///
/// Unlike RFC 3986 §5.2 resolution (where `/users` against `https://h/v2` gives
/// `https://h/users` and `users` against `https://h/v2` gives `https://h/users` too), a
/// client's base URL is a prefix: both give `https://h/v2/users`, with or without a
/// trailing slash on the base.
struct BaseURLResolver: Sendable {
    private let base: URLComponents?

    init(baseURL: URL?) {
        self.base = baseURL.flatMap { URLComponents(url: $0.absoluteURL, resolvingAgainstBaseURL: false) }
    }

    /// Whether `url` is relative, or made relative to a base of its own: whether
    /// ``resolve(_:for:)`` gives anything but `url` itself.
    static func needsResolving(_ url: URL) -> Bool { url.baseURL != nil || url.scheme == nil }

    /// The absolute URL for `url`.
    /// - Throws: ``ClientError/Code/invalidRequest`` for a relative URL without a base URL,
    ///   or a URL that cannot be parsed.
    func resolve(_ url: URL, for request: HTTPRequest) throws(ClientError) -> URL {
        if url.baseURL != nil || url.scheme != nil { return url.absoluteURL }
        guard let base else {
            throw ClientError(
                .invalidRequest, "the URL '\(url.relativeString)' is relative and the client has no base URL",
                request: request)
        }
        guard let relative = URLComponents(string: url.relativeString) else {
            throw ClientError(.invalidRequest, "the URL '\(url.relativeString)' cannot be parsed", request: request)
        }
        var result = base
        if relative.host != nil {
            // Scheme-relative (`//host/path`): take everything but the scheme from it.
            var components = relative
            components.scheme = base.scheme
            return try Self.url(from: components, original: url, request: request)
        }
        let relativePath = relative.percentEncodedPath
        if !relativePath.isEmpty {
            var prefix = base.percentEncodedPath
            if prefix.hasSuffix("/") { prefix.removeLast() }
            let suffix = relativePath.hasPrefix("/") ? relativePath.dropFirst() : Substring(relativePath)
            result.percentEncodedPath = prefix + "/" + suffix
        }
        switch (base.percentEncodedQuery, relative.percentEncodedQuery) {
        case (let baseQuery?, let query?) where !baseQuery.isEmpty: result.percentEncodedQuery = baseQuery + "&" + query
        case (_, let query?): result.percentEncodedQuery = query
        default: break
        }
        result.percentEncodedFragment = relative.percentEncodedFragment
        return try Self.url(from: result, original: url, request: request)
    }

    private static func url(
        from components: URLComponents, original: URL, request: HTTPRequest
    ) throws(ClientError)
        -> URL
    {
        guard let url = components.url else {
            throw ClientError(
                .invalidRequest, "the URL '\(original.relativeString)' cannot be resolved against the base URL",
                request: request)
        }
        return url
    }
}
