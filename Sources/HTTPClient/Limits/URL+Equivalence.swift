import Foundation

extension URL {
    /// The absolute URL normalised as RFC 9110 §4.2.3 compares `http` and `https` URIs: the
    /// scheme and host lowercased (they are case-insensitive), the scheme's default port
    /// (80 for `http`, 443 for `https`) dropped, as a URI without a port means it, an empty
    /// path as `/`, and no fragment (never part of a request, RFC 9110 §7.1). Percent-encoding
    /// is left as it is. `nil` when Foundation cannot split the URL into components.
    ///
    /// The one rule by which `CoalescingTransport` decides that two requests have the same
    /// target, and HTTPCache keys and invalidates stored responses, so that a write to
    /// `http://Example.com:80/a` cuts off and invalidates what `http://example.com/a` holds.
    package var equivalenceComponents: URLComponents? {
        guard var components = URLComponents(url: self, resolvingAgainstBaseURL: true) else { return nil }
        components.fragment = nil
        components.scheme = components.scheme?.lowercased()
        if let host = components.percentEncodedHost { components.percentEncodedHost = host.lowercased() }
        if components.percentEncodedPath.isEmpty { components.percentEncodedPath = "/" }
        if let port = components.port, port == Self.defaultPort(of: components.scheme) { components.port = nil }
        return components
    }

    /// The text of ``equivalenceComponents``: equal for two URLs that RFC 9110 §4.2.3 holds
    /// equivalent by scheme and host case, default port and empty path. A URL already in that
    /// form (the usual one) is its own `absoluteString`, found without splitting it.
    package var equivalenceKey: String {
        let text = absoluteString
        if baseURL == nil, fragment == nil, let scheme, let host = host(percentEncoded: true),
            !Self.hasUppercase(scheme), !Self.hasUppercase(host), !path(percentEncoded: true).isEmpty,
            port.map({ $0 != Self.defaultPort(of: scheme) }) ?? true
        {
            return text
        }
        return equivalenceComponents?.string ?? text
    }

    /// 80 for `http`, 443 for `https` (RFC 9110 §4.2.1, §4.2.2); `nil` for other schemes.
    private static func defaultPort(of scheme: String?) -> Int? {
        switch scheme {
        case "http": 80
        case "https": 443
        default: nil
        }
    }

    private static func hasUppercase(_ text: String) -> Bool {
        text.utf8.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
    }
}
