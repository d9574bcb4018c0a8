import Foundation

/// How URLs are shown in descriptions, errors and logs without their secrets: a password
/// becomes `***`, and so does the value of every query parameter whose name is secret.
///
/// ```swift
/// let url = URL(string: "https://alice:s3cret@api.example.com/v1?access_token=abc&page=2")!
/// print(URLRedaction.display(url))  // https://alice:***@api.example.com/v1?access_token=***&page=2
/// ```
public enum URLRedaction {
    /// Query parameter names whose values are hidden by default, compared case-insensitively.
    public static let secretQueryNames: Set<String> = [
        "token", "access_token", "refresh_token", "id_token", "api_key", "apikey", "key", "password", "secret",
        "client_secret", "signature", "sig", "x-amz-signature", "x-amz-credential", "x-amz-security-token",
        "x-goog-signature", "x-goog-credential",
    ]

    /// The names marked secret with ``markSecret(queryNames:)``, lowercased.
    private static let marked = Locked<Set<String>>([])

    /// Marks more query parameter names secret for every description, error, log line,
    /// observer event and curl command in the process, besides ``secretQueryNames``.
    ///
    /// Call it once at start-up with the names your API uses for secrets:
    ///
    /// ```swift
    /// URLRedaction.markSecret(queryNames: ["session", "X-Tenant-Key"])
    /// ```
    /// - Parameter names: The names, compared case-insensitively.
    public static func markSecret(queryNames names: some Sequence<String>) {
        let lowered = names.map { $0.lowercased() }
        marked.withLock { $0.formUnion(lowered) }
    }

    /// Every name hidden by default: ``secretQueryNames`` and those marked with
    /// ``markSecret(queryNames:)``, lowercased.
    public static var hiddenQueryNames: Set<String> {
        let extra = marked.withLock { $0 }
        return extra.isEmpty ? secretQueryNames : secretQueryNames.union(extra)
    }

    /// The URL as text with its password and secret query values replaced by `***`.
    /// - Parameters:
    ///   - url: The URL.
    ///   - secretNames: Query parameter names to hide, besides ``hiddenQueryNames``; any case.
    /// - Returns: The text to show.
    public static func display(_ url: URL, hiding secretNames: Set<String> = []) -> String {
        let text = url.absoluteString
        guard url.password != nil || text.contains("?") || text.contains("#") else { return text }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            return url.password == nil ? text : "(a URL with a password)"
        }
        if components.percentEncodedPassword != nil { components.percentEncodedPassword = "***" }
        let defaults = hiddenQueryNames
        let hidden = secretNames.isEmpty ? defaults : defaults.union(secretNames.map { $0.lowercased() })
        if let query = components.percentEncodedQuery { components.percentEncodedQuery = redacted(query, hidden) }
        // An OAuth implicit flow puts its token in the fragment, in the same form.
        if let fragment = components.percentEncodedFragment {
            components.percentEncodedFragment = redacted(fragment, hidden)
        }
        return components.string ?? "(a URL with secrets)"
    }

    /// `name=value` pairs separated by `&` or `;`, secret values replaced.
    /// `name=value` pairs (a query, a fragment, an `application/x-www-form-urlencoded` body)
    /// with the values of secret names replaced by `***`.
    ///
    /// ```swift
    /// print(URLRedaction.displayPairs("grant_type=password&password=hunter2"))
    /// // grant_type=password&password=***
    /// ```
    /// - Parameters:
    ///   - pairs: Pairs separated by `&` or `;`, percent-encoded or not.
    ///   - secretNames: Names to hide, besides ``hiddenQueryNames``; any case.
    /// - Returns: The pairs with secret values hidden.
    public static func displayPairs(_ pairs: String, hiding secretNames: Set<String> = []) -> String {
        let defaults = hiddenQueryNames
        return redacted(pairs, secretNames.isEmpty ? defaults : defaults.union(secretNames.map { $0.lowercased() }))
    }

    private static func redacted(_ pairs: String, _ hidden: Set<String>) -> String {
        var result = ""
        func append(_ pair: Substring) {
            if let equals = pair.firstIndex(of: "=") {
                let name = pair[..<equals].removingPercentEncoding?.lowercased() ?? pair[..<equals].lowercased()
                result += hidden.contains(name) ? "\(pair[..<equals])=***" : String(pair)
            } else {
                result += pair
            }
        }
        var start = pairs.startIndex
        for index in pairs.indices where pairs[index] == "&" || pairs[index] == ";" {
            append(pairs[start..<index])
            result.append(pairs[index])
            start = pairs.index(after: index)
        }
        append(pairs[start...])
        return result
    }
}
