import Foundation

extension URL {
    /// The absolute URL normalised as RFC 9110 §4.2.3 compares `http` and `https` URIs: the
    /// scheme and host lowercased (they are case-insensitive), the scheme's default port
    /// (80 for `http`, 443 for `https`) dropped, as a URI without a port means it, an empty
    /// path as `/`, and no fragment (never part of a request, RFC 9110 §7.1). Percent-encoding
    /// is left as it is; the socket path of a Unix-socket URL (`http+unix://%2Frun%2Fd.sock/`)
    /// keeps its case. `nil` when Foundation cannot split the URL into components.
    ///
    /// The one rule by which `CoalescingTransport` decides that two requests have the same
    /// target, and HTTPCache keys and invalidates stored responses, so that a write to
    /// `http://Example.com:80/a` cuts off and invalidates what `http://example.com/a` holds.
    package var equivalenceComponents: URLComponents? {
        guard var components = URLComponents(url: self, resolvingAgainstBaseURL: true) else { return nil }
        components.fragment = nil
        components.scheme = components.scheme?.lowercased()
        // A Unix socket's "host" (`http+unix://%2Frun%2Fd.sock/`) is a file path: case-sensitive.
        if let host = components.percentEncodedHost, !RedirectFollower.isSocket(self) {
            components.percentEncodedHost = host.lowercased()
        }
        if components.percentEncodedPath.isEmpty { components.percentEncodedPath = "/" }
        if let port = components.port, port == Self.defaultPort(of: components.scheme) { components.port = nil }
        return components
    }

    /// The text of ``equivalenceComponents``: equal for two URLs that RFC 9110 §4.2.3 holds
    /// equivalent by scheme and host case, default port and empty path. A URL already in that
    /// form (the usual one) is its own `absoluteString`, recognised from its bytes without
    /// splitting it into components.
    package var equivalenceKey: String {
        let text = absoluteString
        return Self.isEquivalenceForm(text) ? text : equivalenceComponents?.string ?? text
    }

    /// Whether `text`, an absolute URL, is already in the form of ``equivalenceComponents``:
    /// `scheme://authority/…` with no uppercase letter in the scheme or the authority, a path
    /// that is not empty, no fragment, and no port the scheme has by default.
    private static func isEquivalenceForm(_ text: String) -> Bool {
        let bytes = text.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return false }
        let scheme = bytes[..<colon]
        let afterScheme = bytes[bytes.index(after: colon)...]
        guard !scheme.contains(where: isUppercase), afterScheme.starts(with: "//".utf8) else { return false }
        let hierarchy = afterScheme.dropFirst(2)
        let slash = UInt8(ascii: "/")
        let question = UInt8(ascii: "?")
        let hash = UInt8(ascii: "#")
        guard let end = hierarchy.firstIndex(where: { $0 == slash || $0 == question || $0 == hash }),
            hierarchy[end] == slash
        else { return false }
        let authority = hierarchy[..<end]
        guard !authority.contains(where: isUppercase), !hierarchy[end...].contains(hash) else { return false }
        let defaultPort = scheme.elementsEqual("http".utf8) ? 80 : scheme.elementsEqual("https".utf8) ? 443 : nil
        guard let defaultPort else { return true }
        // The port: the digits after the last `:` past any IPv6 literal's `]`; `080` is 80 too.
        guard let portColon = authority.lastIndex(of: UInt8(ascii: ":")),
            !authority[portColon...].contains(UInt8(ascii: "]"))
        else { return true }
        var port = 0
        for byte in authority[authority.index(after: portColon)...] {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), port <= 65_535 else { return false }
            port = port * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return port != defaultPort
    }

    /// 80 for `http`, 443 for `https` (RFC 9110 §4.2.1, §4.2.2); `nil` for other schemes.
    private static func defaultPort(of scheme: String?) -> Int? {
        switch scheme {
        case "http": 80
        case "https": 443
        default: nil
        }
    }

    private static func isUppercase(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")
    }
}
