import Foundation
import HTTPCore

/// A proxy server that requests go through: an HTTP proxy (plain requests forwarded, `https`
/// tunnelled with `CONNECT`, RFC 9110 §9.3.6) or a SOCKS5 proxy (RFC 1928), with credentials
/// for it when it asks for them.
///
/// A transport is given proxies through a ``ProxyPolicy``. A proxy's credentials are the
/// proxy's: they go to the proxy only (in `Proxy-Authorization`, RFC 9110 §11.7.1), never to
/// an origin, and no description, mirror, log line, event or error shows the password
/// (``description`` shows no credentials at all).
///
/// ```swift
/// let proxy = Proxy(host: "proxy.internal", port: 3128, credentials: .init(username: "ci", password: "s3cret"))
/// print(proxy)  // http://proxy.internal:3128
/// let socks = try Proxy(url: "socks5h://127.0.0.1:1080")
/// print(socks.kind)  // socks5
/// ```
public struct Proxy: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The protocol a client speaks to a proxy. New kinds may be added.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// `http` or `socks5`.
        public let rawValue: String

        private init(_ rawValue: String) { self.rawValue = rawValue }

        /// An HTTP proxy: a plain request is sent to it with its absolute URL (RFC 9112 §3.2.2),
        /// an `https` one through a tunnel it opens on `CONNECT` (RFC 9110 §9.3.6). The
        /// connection to the proxy is plain TCP.
        public static let http = Kind("http")
        /// An HTTP proxy reached over TLS (curl's `https://` proxy): as ``http``, inside a TLS
        /// connection to the proxy. URLSession on Linux (libcurl) speaks to it;
        /// `AsyncHTTPClientTransport` refuses it with ``ClientError/Code/proxyUnsupported``.
        public static let https = Kind("https")
        /// A SOCKS5 proxy (RFC 1928): the host name is sent to the proxy, which resolves it
        /// (curl's `socks5h`).
        public static let socks5 = Kind("socks5")
        /// A SOCKS4 proxy, which takes an IPv4 address (curl's `socks4` and `socks`). URLSession
        /// on Linux (libcurl) speaks to it; `AsyncHTTPClientTransport` refuses it.
        public static let socks4 = Kind("socks4")
        /// A SOCKS4a proxy, which takes a host name (curl's `socks4a`). URLSession on Linux
        /// (libcurl) speaks to it; `AsyncHTTPClientTransport` refuses it.
        public static let socks4a = Kind("socks4a")

        /// `http`, `https`, `socks5`, `socks4` or `socks4a`.
        public var description: String { rawValue }
    }

    /// A user name and password for a proxy: sent to the proxy only, never shown.
    public struct Credentials: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
        /// The user name.
        public let username: String
        /// The password.
        public let password: String

        /// Credentials for a proxy.
        /// - Parameters:
        ///   - username: The user name.
        ///   - password: The password.
        public init(username: String, password: String) {
            self.username = username
            self.password = password
        }

        /// `<redacted>`: neither the user name nor the password.
        public var description: String { Redacted().description }
        /// No children: `dump` shows no part of the credentials.
        public var customMirror: Mirror { Mirror(self, children: [], displayStyle: nil) }
    }

    /// The protocol spoken to the proxy.
    public let kind: Kind
    /// The proxy's host: a name, lower-cased, or an IP address (IPv6 without brackets).
    public let host: String
    /// The proxy's TCP port.
    public let port: Int
    /// The credentials the proxy asks for, if any.
    public let credentials: Credentials?

    /// A proxy.
    /// - Parameters:
    ///   - kind: ``Kind/http`` (the default) or ``Kind/socks5``.
    ///   - host: The proxy's host name or IP address (an IPv6 address with or without brackets).
    ///   - port: Its port: 1 to 65535 (a transport refuses another with
    ///     ``ClientError/Code/invalidRequest``).
    ///   - credentials: Credentials for the proxy, if it asks for them.
    public init(_ kind: Kind = .http, host: String, port: Int, credentials: Credentials? = nil) {
        self.kind = kind
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.host = host
        self.port = port
        self.credentials = credentials
    }

    /// A proxy written as curl takes it on the command line or in `https_proxy`:
    /// `[scheme://][user[:password]@]host[:port]`.
    ///
    /// No scheme means `http`; `socks5` and `socks5h` are both ``Kind/socks5`` (Heron's
    /// transports let the proxy resolve names), `socks` is ``Kind/socks4``, as for curl. A
    /// missing port is 1080, 443 for `https`, as curl's. The user name and password are
    /// percent-decoded. A path is ignored. Whether a transport can speak to the proxy is the
    /// transport's to say (``ClientError/Code/proxyUnsupported``).
    /// - Parameter text: The proxy's URL.
    /// - Throws: ``ClientError/Code/invalidRequest`` for text that is no proxy URL (a scheme
    ///   curl does not know for a proxy, no host, a port out of range).
    public init(url text: String) throws(ClientError) {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        var scheme = "http"
        if let separator = rest.range(of: "://") {
            scheme = rest[..<separator.lowerBound].lowercased()
            rest = rest[separator.upperBound...]
        }
        let kind: Kind
        var port = 1080
        switch scheme {
        case "http": kind = .http
        case "https":
            kind = .https
            port = 443
        case "socks5", "socks5h": kind = .socks5
        case "socks4", "socks": kind = .socks4
        case "socks4a": kind = .socks4a
        default:
            throw ClientError(.invalidRequest, "'\(scheme)' is not a proxy scheme in \(Self.redacting(text))")
        }
        if let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) { rest = rest[..<slash] }
        var credentials: Credentials?
        if let at = rest.lastIndex(of: "@") {
            let userinfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            let user = userinfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let username = String(user[0]).removingPercentEncoding ?? String(user[0])
            let password = user.count > 1 ? (String(user[1]).removingPercentEncoding ?? String(user[1])) : ""
            credentials = Credentials(username: username, password: password)
        }
        var host = rest
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else {
                throw ClientError(.invalidRequest, "the proxy URL \(Self.redacting(text)) has an unclosed '['")
            }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if after.hasPrefix(":") {
                guard let number = Int(after.dropFirst()) else {
                    throw ClientError(.invalidRequest, "the proxy URL \(Self.redacting(text)) has no valid port")
                }
                port = number
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            guard let number = Int(rest[rest.index(after: colon)...]) else {
                throw ClientError(.invalidRequest, "the proxy URL \(Self.redacting(text)) has no valid port")
            }
            port = number
        }
        self.init(kind, host: String(host), port: port, credentials: credentials)
        try validate()
    }

    /// Fails when this proxy cannot be reached as written: no host, a character no host has,
    /// or a port outside 1…65535.
    /// - Throws: ``ClientError/Code/invalidRequest`` naming the proxy.
    public func validate() throws(ClientError) {
        let hostOK =
            !host.isEmpty
            && !host.unicodeScalars.contains { scalar in
                scalar.value <= 0x20 || scalar.value == 0x7F || "/@?#%\\[]".unicodeScalars.contains(scalar)
            }
        guard hostOK, (1...65535).contains(port) else {
            throw ClientError(.invalidRequest, "the proxy \(self) has no valid host or port")
        }
    }

    /// This proxy without its credentials: what metrics, events and errors show.
    public var withoutCredentials: Proxy { Proxy(kind, host: host, port: port) }

    /// `host:port`, an IPv6 address in brackets: what a `CONNECT` or a log names.
    public var authority: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// `http://host:port` or `socks5://host:port`: never the credentials.
    public var description: String { "\(kind)://\(authority)" }

    /// The kind, host and port, and the credentials as `<redacted>` when there are any.
    public var customMirror: Mirror {
        var children: [(label: String?, value: Any)] = [("kind", kind), ("host", host), ("port", port)]
        if credentials != nil { children.append(("credentials", Redacted())) }
        return Mirror(self, children: children, displayStyle: .struct)
    }

    /// `text` as a message may show it: the user information of a URL replaced, so that no
    /// password reaches an error or a log.
    package static func redacting(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@") else { return "'\(text)'" }
        let start = text.range(of: "://").map(\.upperBound) ?? text.startIndex
        guard start <= at else { return "'\(text)'" }
        return "'\(text[..<start])<redacted>\(text[at...])'"
    }
}
