import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Matching (RFC 6265bis §5.1.3, §5.1.4): domains, paths, loopback hosts.
extension CookieJar {

    /// The bucket a domain's cookies are kept in: its last two labels (`example.com` for
    /// `a.b.example.com`); the whole of an IP address or a one-label name. A cookie's domain is
    /// the request's host or a domain above it, never a public suffix, so the cookies a request
    /// may get are all in its host's bucket.
    static func bucketKey(_ domain: String) -> String {
        // One pass from the end, over the bytes: the last two dots, and whether the domain is an
        // IP address (digits and dots, or a colon), which is one bucket of its own.
        var domain = domain
        let start: Int? = domain.withUTF8 { bytes in
            var dots = 0
            var numeric = true
            var index = bytes.count
            var start: Int?
            while index > 0 {
                index -= 1
                let byte = bytes[index]
                if byte == UInt8(ascii: ":") { return nil }
                if byte == UInt8(ascii: ".") {
                    dots += 1
                    if dots == 2, start == nil { start = index + 1 }
                } else if !(0x30...0x39).contains(byte) {
                    numeric = false
                }
                // Past the second dot only the address question is open.
                if start != nil, !numeric { return start }
            }
            return numeric ? nil : start
        }
        guard let start else { return domain }
        let utf8 = domain.utf8
        return String(domain[utf8.index(utf8.startIndex, offsetBy: start)...])
    }

    /// Whether `first` is sent before `second` (§5.8.3 step 2): a longer path first, then the
    /// one made earlier.
    static func precedes(_ first: Cookie, _ second: Cookie) -> Bool {
        let (firstLength, secondLength) = (first.path.utf8.count, second.path.utf8.count)
        return firstLength != secondLength ? firstLength > secondLength : first.created < second.created
    }

    /// Whether `host` is an IP address, not a name: IPv6 (a colon) or IPv4 (digits and dots).
    /// Domain matching never goes up from an IP address (§5.1.3).
    static func isIPAddress(_ host: String) -> Bool {
        host.utf8.contains(UInt8(ascii: ":"))
            || host.utf8.allSatisfy { $0 == UInt8(ascii: ".") || (0x30...0x39).contains($0) }
    }

    /// Whether `host` (lower-cased, without brackets) is loopback: an IPv4 address of
    /// 127.0.0.0/8 written as four decimal numbers, the IPv6 address `::1` in any spelling,
    /// `localhost` or a name under it (the "potentially trustworthy" origins of W3C Secure
    /// Contexts §3.2, and RFC 6761 §6.3). A name that merely starts with `127.`, such as
    /// `127.0.0.1.example.com`, is a name like any other: it may resolve anywhere.
    static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host.hasSuffix(".localhost") { return true }
        if host.utf8.contains(UInt8(ascii: ":")) {
            var address = in6_addr()
            guard inet_pton(AF_INET6, host, &address) == 1 else { return false }
            return withUnsafeBytes(of: &address) { bytes in bytes.dropLast().allSatisfy { $0 == 0 } && bytes.last == 1 }
        }
        let parts = host.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0].elementsEqual("127".utf8) else { return false }
        return parts.allSatisfy { part in
            (1...3).contains(part.count) && part.allSatisfy { (0x30...0x39).contains($0) }
                && part.reduce(0) { $0 * 10 + Int($1 - 0x30) } <= 255
        }
    }

    /// Whether `host` domain-matches `domain` (§5.1.3): they are the same, or `domain` is a
    /// suffix of `host` after a dot and `host` is a name, not an IP address.
    static func domainMatches(_ host: String, _ domain: String, hostIsIP: Bool) -> Bool {
        if host == domain { return true }
        let (hostCount, domainCount) = (host.utf8.count, domain.utf8.count)
        guard !hostIsIP, hostCount > domainCount else { return false }
        // `host` ends with "." and `domain`: compared as bytes, in place.
        var host = host
        var domain = domain
        return host.withUTF8 { hostBytes in
            domain.withUTF8 { domainBytes in
                hostBytes[hostCount - domainCount - 1] == UInt8(ascii: ".")
                    && memcmp(hostBytes.baseAddress! + (hostCount - domainCount), domainBytes.baseAddress!, domainCount)
                        == 0
            }
        }
    }

    /// Whether `requestPath` path-matches `cookiePath` (§5.1.4).
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        // Byte by byte: paths are compared as sent, without Unicode's equivalences.
        let (requestCount, cookieCount) = (requestPath.utf8.count, cookiePath.utf8.count)
        guard requestCount >= cookieCount, cookieCount > 0 else { return false }
        var request = requestPath
        var cookie = cookiePath
        return request.withUTF8 { requestBytes in
            cookie.withUTF8 { cookieBytes in
                guard memcmp(requestBytes.baseAddress!, cookieBytes.baseAddress!, cookieCount) == 0 else {
                    return false
                }
                return requestCount == cookieCount || cookieBytes[cookieCount - 1] == UInt8(ascii: "/")
                    || requestBytes[cookieCount] == UInt8(ascii: "/")
            }
        }
    }

    /// Whether `text` starts with `prefix` (given in lower case), case-insensitively.
    static func hasPrefix(_ text: some StringProtocol, _ prefix: String) -> Bool {
        text.utf8.count >= prefix.utf8.count && text.prefix(prefix.count).lowercased() == prefix
    }
}

/// What the jar needs of a request's URL: its canonical host, its path as sent, whether it is
/// secure, and the domains whose cookies may match it.
struct RequestTarget {
    let host: String
    let isIP: Bool
    let path: String
    let isSecure: Bool

    /// - Parameters:
    ///   - url: The request's URL; `nil` when it has no host.
    ///   - loopbackIsSecure: Whether plain `http` to a loopback host counts as secure.
    init?(_ url: URL, loopbackIsSecure: Bool) {
        let scheme = url.scheme?.lowercased() ?? ""
        if scheme == "unix" || scheme.hasSuffix("+unix") {
            guard let target = Self.socket(url, scheme: scheme, loopbackIsSecure: loopbackIsSecure) else { return nil }
            self = target
            return
        }
        guard var host = url.host(percentEncoded: true), !host.isEmpty else { return nil }
        // Lower-cased only when it has to be: most hosts already are.
        if host.utf8.contains(where: { (0x41...0x5A).contains($0) }) { host = host.lowercased() }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.utf8.last == UInt8(ascii: "."), host.utf8.count > 1 { host.removeLast() }
        self.host = host
        isIP = CookieJar.isIPAddress(host)
        let path = url.path(percentEncoded: true)
        self.path = path.isEmpty ? "/" : path
        // Loopback counts as secure, as browsers treat it ("potentially trustworthy"), unless
        // the jar says otherwise.
        isSecure = scheme == "https" || scheme == "wss" || (loopbackIsSecure && CookieJar.isLoopback(host))
    }

    /// A Unix-socket URL's target: its host is the socket's path, as it is (a file name is
    /// case-sensitive), so that two sockets never share cookies, and
    /// `http+unix://%2Frun%2Fd.sock/` and `unix:///run/d.sock` are the same host. A socket is
    /// local, as loopback is: `http+unix` and `unix` count as secure when loopback does. A
    /// socket is treated as an IP address is: only host-only cookies.
    private static func socket(_ url: URL, scheme: String, loopbackIsSecure: Bool) -> RequestTarget? {
        let socketPath = scheme == "unix" ? url.path : url.host(percentEncoded: false) ?? ""
        guard !socketPath.isEmpty, socketPath != "/" else { return nil }
        // `unix:` URLs always ask for `/`.
        let path = scheme == "unix" ? "/" : url.path(percentEncoded: true)
        // As an IP address: a `Domain` attribute other than the socket itself is refused, so no
        // cookie set over one socket matches another (`Domain=sock` would match `/b.sock` too).
        return RequestTarget(
            host: socketPath, isIP: true, path: path.isEmpty ? "/" : path,
            isSecure: scheme == "https+unix" || loopbackIsSecure)
    }

    private init(host: String, isIP: Bool, path: String, isSecure: Bool) {
        self.host = host
        self.isIP = isIP
        self.path = path
        self.isSecure = isSecure
    }

    /// The default path of §5.1.4: the request's path up to its last `/`, or `/`.
    var defaultPath: String {
        guard path.first == "/", let last = path.lastIndex(of: "/"), last != path.startIndex else { return "/" }
        return String(path[..<last])
    }
}
