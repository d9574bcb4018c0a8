import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension CookieJar {
    // MARK: cookies.txt

    /// The jar's cookies in the Netscape `cookies.txt` format that curl reads (`-b`) and writes
    /// (`-c`): one line a cookie, `domain`, whether subdomains match, `path`, whether it is
    /// `Secure`, its expiry in seconds since 1970 (0 for a session cookie), `name`, `value`,
    /// separated by tabs; `HttpOnly` cookies prefixed with `#HttpOnly_`.
    /// - Parameter sessionCookies: Whether cookies without an expiry are written; `true` by default.
    /// - Returns: The text.
    public func netscapeCookiesText(sessionCookies: Bool = true) -> String {
        var lines = ["# Netscape HTTP Cookie File", "# Written by Heron's HTTPCookies.", ""]
        for cookie in allCookies where sessionCookies || !cookie.isSession {
            let domain = (cookie.httpOnly ? "#HttpOnly_" : "") + (cookie.hostOnly ? "" : ".") + cookie.domain
            let expires = cookie.expires.map { String(Int64(max(1, $0.timeIntervalSince1970.rounded(.down)))) } ?? "0"
            lines.append(
                [
                    domain, cookie.hostOnly ? "FALSE" : "TRUE", cookie.path, cookie.secure ? "TRUE" : "FALSE", expires,
                    cookie.name, cookie.value,
                ].joined(separator: "\t"))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Adds the cookies of a Netscape `cookies.txt` text (as curl writes it), replacing those
    /// with the same name, domain and path; expired ones are skipped.
    /// - Parameter text: The file's text.
    /// - Returns: How many cookies were added.
    /// - Throws: ``CookieJarError/invalidLine(_:reason:)`` naming the first line that is not a
    ///   cookie; nothing is added then.
    @discardableResult
    public func importNetscapeCookies(_ text: String) throws(CookieJarError) -> Int {
        var cookies: [Cookie] = []
        let now = clock()
        // "\r\n" is one Character: split on it as on "\n".
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        for (index, raw) in lines.enumerated() {
            var line = raw
            var httpOnly = false
            if line.hasPrefix("#HttpOnly_") {
                httpOnly = true
                line = line.dropFirst("#HttpOnly_".count)
            } else if line.hasPrefix("#") || line.allSatisfy(\.isWhitespace) {
                continue
            }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            // curl writes a cookie without a value with its last tab and nothing after it, or
            // without the last field at all.
            guard fields.count == 7 || fields.count == 6 else {
                throw .invalidLine(index + 1, reason: "\(fields.count) tab-separated fields, not 7")
            }
            guard let expiry = Int64(fields[4]) else {
                throw .invalidLine(index + 1, reason: "the expiry '\(fields[4])' is not a number")
            }
            var domain = fields[0].lowercased()
            let hostOnly = !(fields[1].uppercased() == "TRUE")
            if domain.hasPrefix(".") { domain.removeFirst() }
            guard !domain.isEmpty, fields[2].hasPrefix("/") else {
                throw .invalidLine(index + 1, reason: "no domain, or a path that does not start with /")
            }
            let expires = expiry == 0 ? nil : Date(timeIntervalSince1970: TimeInterval(expiry))
            if let expires, expires <= now { continue }
            cookies.append(
                Cookie(
                    name: String(fields[5]), value: fields.count == 7 ? String(fields[6]) : "", domain: domain,
                    hostOnly: hostOnly, path: String(fields[2]), secure: fields[3].uppercased() == "TRUE",
                    httpOnly: httpOnly, expires: expires, created: now))
        }
        for cookie in cookies { insert(cookie) }
        return cookies.count
    }

    // MARK: HTTPCookieStorage

    /// Adds the cookies of `storage` (`HTTPCookieStorage.shared`, a URLSession's), replacing
    /// those with the same name, domain and path; expired ones are skipped.
    /// - Parameter storage: The storage to read.
    /// - Returns: How many cookies were added.
    @discardableResult
    public func importCookies(from storage: HTTPCookieStorage) -> Int {
        let now = clock()
        var added = 0
        for cookie in storage.cookies ?? [] {
            if let expires = cookie.expiresDate, expires <= now { continue }
            // Foundation marks a domain cookie with a leading dot; a host-only one has none.
            let hostOnly = !cookie.domain.hasPrefix(".")
            insert(
                Cookie(
                    name: cookie.name, value: cookie.value, domain: String(cookie.domain.drop { $0 == "." }),
                    hostOnly: hostOnly, path: cookie.path.isEmpty ? "/" : cookie.path, secure: cookie.isSecure,
                    httpOnly: cookie.isHTTPOnly, expires: cookie.isSessionOnly ? nil : cookie.expiresDate,
                    created: now))
            added += 1
        }
        return added
    }

    /// Puts the jar's cookies into `storage`, replacing those with the same name, domain and
    /// path there.
    /// - Parameter storage: The storage to write.
    /// - Returns: How many cookies were put.
    @discardableResult
    public func exportCookies(to storage: HTTPCookieStorage) -> Int {
        var put = 0
        for cookie in allCookies {
            var properties: [HTTPCookiePropertyKey: Any] = [
                .name: cookie.name, .value: cookie.value, .path: cookie.path,
                .domain: cookie.hostOnly ? cookie.domain : "." + cookie.domain,
            ]
            if cookie.secure { properties[.secure] = "TRUE" }
            if let expires = cookie.expires { properties[.expires] = expires }
            if cookie.httpOnly { properties[HTTPCookiePropertyKey("HttpOnly")] = "TRUE" }
            guard let made = HTTPCookie(properties: properties) else { continue }
            storage.setCookie(made)
            put += 1
        }
        return put
    }
}
