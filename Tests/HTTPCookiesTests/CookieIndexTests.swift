import Foundation
import TestSupport
import Testing

@testable import HTTPCookies

/// The jar answers a request from an index of plain values it remakes after each change
/// (`CookieBucket`). These tests hold it to a plain reading of RFC 6265bis §5.8.3, written
/// here apart from the jar: every cookie listed, filtered and sorted by hand.
@Suite("Cookie jar: the sending index against a plain model")
struct CookieIndexTests {
    /// §5.8.3 step 1 read plainly: domain (host-only, or the host and its subdomains unless it
    /// is an IP address), path on segment boundaries, Secure, expiry; then step 2's order.
    static func expectedField(_ cookies: [Cookie], url: URL, now: Date) -> String? {
        let host = url.host!.lowercased()
        // As sent: `url.path` would drop a trailing slash.
        let path = url.path(percentEncoded: true).isEmpty ? "/" : url.path(percentEncoded: true)
        let secure = url.scheme == "https" || host == "127.0.0.1"
        let isIP = host.allSatisfy { $0 == "." || $0.isNumber }
        let sent = cookies.filter { cookie in
            if let expires = cookie.expires, expires <= now { return false }
            if cookie.secure && !secure { return false }
            let domainOK =
                cookie.domain == host || (!cookie.hostOnly && !isIP && host.hasSuffix("." + cookie.domain))
            let pathOK =
                path == cookie.path
                || (path.hasPrefix(cookie.path)
                    && (cookie.path.hasSuffix("/") || path.dropFirst(cookie.path.count).hasPrefix("/")))
            return domainOK && pathOK
        }
        .sorted { ($0.path.count, $1.created) > ($1.path.count, $0.created) }
        return sent.isEmpty ? nil : sent.map(\.pair).joined(separator: "; ")
    }

    @Test("for random jars changed by stores, deletions, removals and expiry, every field equals the model's")
    func randomJars() {
        var random = SplitMix64(seed: 0xC00C1E)
        let clock = TestClock()
        let jar = CookieJar(limits: .init(perDomain: 12, total: 150), clock: { clock.read() })
        let hosts = ["example.com", "www.example.com", "a.b.example.com", "example.org", "127.0.0.1"]
        let paths = ["/", "/a", "/a/", "/a/b", "/ab", "/a/b/c"]
        var checked = 0
        var matched = 0
        for step in 0..<600 {
            let host = hosts[Int(random.next() % UInt64(hosts.count))]
            let scheme = random.next() % 3 == 0 ? "http" : "https"
            let path = paths[Int(random.next() % UInt64(paths.count))]
            let url = URL(string: "\(scheme)://\(host)\(path)")!
            switch random.next() % 10 {
            case 0..<5:
                // A cookie for the host or a parent, host-only or not, nameless at times, some
                // expiring soon or deleted (Max-Age=0).
                let name = random.next() % 8 == 0 ? "" : "n\(random.next() % 20)"
                var field = name.isEmpty ? "v\(step)" : "\(name)=v\(step)"
                if random.next() % 2 == 0 { field += "; Path=\(paths[Int(random.next() % UInt64(paths.count))])" }
                if random.next() % 3 == 0, host.hasSuffix("example.com") { field += "; Domain=example.com" }
                if random.next() % 4 == 0 { field += "; Secure" }
                switch random.next() % 6 {
                case 0: field += "; Max-Age=0"
                case 1: field += "; Max-Age=\(1 + random.next() % 5)"
                case 2: field += "; Max-Age=3600"
                default: break
                }
                jar.store(setCookie: [field], for: url)
            case 5:
                clock.advance(Double(random.next() % 3))
            case 6 where random.next() % 10 == 0:
                jar.removeCookies(domain: hosts[Int(random.next() % UInt64(hosts.count))])
            case 7 where random.next() % 10 == 0:
                jar.removeSessionCookies()
            default:
                let expected = Self.expectedField(jar.allCookies, url: url, now: clock.read())
                let field = jar.cookieField(for: url)
                #expect(field == expected, "step \(step): \(url)")
                #expect(jar.cookies(for: url).map(\.pair) == (expected?.components(separatedBy: "; ") ?? []))
                checked += 1
                if field != nil { matched += 1 }
            }
        }
        // The sequence reaches the cases that matter: many requests, most of them with cookies.
        #expect(checked > 150 && matched > checked / 2, "checked \(checked), matched \(matched)")
    }
}
