import HTTPCore
import HTTPTypes

/// A request's target as swift-http-types' pseudo-header fields hold it: `:scheme`,
/// `:authority` and `:path`, read from or turned into a URL.
///
/// The two directions are checked against each other, so a conversion either keeps the
/// target or throws.
struct RequestTarget: Equatable {
    /// The `:scheme` value, such as `https`.
    var scheme: String?
    /// The `:authority` value: host, and port when one is given.
    var authority: String?
    /// The `:path` value: percent-encoded path and query, `*`, or `nil` in authority form.
    var path: String?

    /// Creates a target from its three pseudo-header field values.
    init(scheme: String?, authority: String?, path: String?) {
        self.scheme = scheme
        self.authority = authority
        self.path = path
    }

    /// Reads the target from a URL.
    ///
    /// The authority's host is in its ASCII (IDNA, `xn--…`) form, as sent on the wire.
    /// An absolute URL gives all three (an empty path is `/`, RFC 9110 §4.2.3); a relative
    /// one such as `/items?q=1` gives only `:path`; `//host:port` gives only `:authority`
    /// (authority form, as for `CONNECT`); `*` gives `:path` `*` (asterisk form).
    /// - Parameter url: The URL, resolved against its base URL if it has one.
    /// - Throws: ``HTTPTypesConversionError`` with code ``HTTPTypesConversionError/Code/invalidURL``
    ///   when the URL holds user information or a fragment, or its path does not start with `/`.
    init(url: URL) throws(HTTPTypesConversionError) {
        let shown = URLRedaction.display(url)
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            throw HTTPTypesConversionError(.invalidURL, value: shown, reason: "the URL does not parse")
        }
        guard components.percentEncodedUser == nil, components.percentEncodedPassword == nil else {
            throw HTTPTypesConversionError(
                .invalidURL, value: shown,
                reason: "user information has no pseudo-header field: :authority may not hold it (RFC 9113 §8.3.1)")
        }
        guard components.percentEncodedFragment == nil else {
            throw HTTPTypesConversionError(
                .invalidURL, value: shown, reason: "a fragment has no pseudo-header field (RFC 9110 §4.2.5)")
        }
        scheme = components.scheme
        // `encodedHost` keeps an IDNA host as `xn--…` (and turns a Unicode one into it), where
        // `percentEncodedHost` would give the Unicode form percent-encoded, another name on the wire.
        if let host = components.encodedHost, !host.isEmpty {
            authority = components.port.map { "\(host):\($0)" } ?? host
        } else if components.port != nil {
            throw HTTPTypesConversionError(.invalidURL, value: shown, reason: "the URL has a port but no host")
        }
        let encodedPath = components.percentEncodedPath
        let query = components.percentEncodedQuery
        if encodedPath.isEmpty, query == nil, scheme == nil, authority != nil {
            path = nil
            return
        }
        var target = encodedPath.isEmpty && authority != nil ? "/" : encodedPath
        guard target.hasPrefix("/") || (target == "*" && query == nil && authority == nil) else {
            throw HTTPTypesConversionError(
                .invalidURL, value: shown,
                reason: "the path must start with / or be * alone (RFC 9113 §8.3.1): a relative reference such as "
                    + "\(String(reflecting: target)) has none")
        }
        if let query { target += "?" + query }
        path = target
        for value in [scheme, authority, path].compactMap(\.self) where !HTTPTypes.HTTPField.isValidValue(value) {
            throw HTTPTypesConversionError(
                .invalidURL, value: shown, reason: "swift-http-types refuses \(String(reflecting: value))")
        }
    }

    /// The URL the target names.
    /// - Throws: ``HTTPTypesConversionError`` with code ``HTTPTypesConversionError/Code/invalidURL``
    ///   when there is neither `:path` nor `:authority`, the fields do not form a URL, or the URL
    ///   does not read back as the same three fields (an empty `:path`, a character a URL must
    ///   percent-encode, `*` with an authority).
    func url() throws(HTTPTypesConversionError) -> URL {
        let shown =
            "scheme \(scheme.map { String(reflecting: $0) } ?? "nil"), "
            + "authority \(authority.map { String(reflecting: $0) } ?? "nil"), "
            + "path \(path.map { String(reflecting: $0) } ?? "nil")"
        guard path != nil || authority != nil else {
            throw HTTPTypesConversionError(
                .invalidURL, value: shown, reason: "a request needs a :path or an :authority (RFC 9113 §8.3.1)")
        }
        var string = ""
        if let scheme { string += scheme + ":" }
        if let authority { string += "//" + authority }
        if let path { string += path }
        guard let url = URL(string: string) else {
            throw HTTPTypesConversionError(
                .invalidURL, value: shown, reason: "\(String(reflecting: string)) is not a URL")
        }
        let readBack: RequestTarget
        do {
            readBack = try RequestTarget(url: url)
        } catch {
            throw HTTPTypesConversionError(
                .invalidURL, value: shown,
                reason: "the URL \(String(reflecting: string)) cannot hold them: \(error.reason)",
                underlying: error)
        }
        guard readBack == self else {
            throw HTTPTypesConversionError(
                .invalidURL, value: shown,
                reason: "no URL keeps them: \(String(reflecting: string)) reads back as scheme "
                    + "\(readBack.scheme.map { String(reflecting: $0) } ?? "nil"), authority "
                    + "\(readBack.authority.map { String(reflecting: $0) } ?? "nil"), path "
                    + "\(readBack.path.map { String(reflecting: $0) } ?? "nil")")
        }
        return url
    }
}
