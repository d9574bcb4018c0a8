import Foundation
import HTTPCore
import TestTraits
import Testing

@testable import HTTPCookies

/// A clock a test moves by hand.
final class TestClock: @unchecked Sendable {
    // Invariant: `now` is only touched under `lock`.
    private let lock = NSLock()
    private var now: Date

    init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { now = start }

    func read() -> Date { lock.withLock { now } }
    func advance(_ seconds: TimeInterval) { lock.withLock { now += seconds } }
}

@Suite("Cookie jar: storing (RFC 6265bis §5.7)")
struct CookieStoringTests {
    let clock = TestClock()
    var jar: CookieJar { CookieJar(clock: { [clock] in clock.read() }) }

    static func url(_ text: String) -> URL { URL(string: text)! }

    @Test(
        "a Domain that is a public suffix is refused, from the ICANN and the private sections",
        arguments: [
            ("http://www.example.com/", "com"), ("http://www.example.co.uk/", "co.uk"),
            ("https://heron.github.io/", "github.io"), ("http://a.b.example.co.uk/", ".CO.UK"),
        ])
    func publicSuffixRefused(_ origin: String, _ domain: String) {
        let jar = jar
        #expect(jar.store(setCookie: ["a=1; Domain=\(domain)"], for: Self.url(origin)).stored.count == 0)
        #expect(jar.count == 0)
    }

    @Test("a Domain equal to a request host that is a public suffix makes a host-only cookie")
    func publicSuffixHostItself() throws {
        let jar = jar
        #expect(jar.store(setCookie: ["a=1; Domain=github.io"], for: Self.url("https://github.io/")).stored.count == 1)
        let cookie = try #require(jar.allCookies.first)
        #expect(cookie.hostOnly && cookie.domain == "github.io")
        #expect(jar.cookieField(for: Self.url("https://heron.github.io/")) == nil)
    }

    @Test("a Domain the request host is not under is refused; a parent domain is kept for subdomains")
    func domainMatching() {
        let jar = jar
        #expect(
            jar.store(setCookie: ["a=1; Domain=other.com"], for: Self.url("http://www.example.com/")).stored.count == 0)
        #expect(
            jar.store(setCookie: ["b=2; Domain=example.com"], for: Self.url("http://www.example.com/")).stored.count
                == 1)
        #expect(jar.cookieField(for: Self.url("http://api.example.com/")) == "b=2")
        #expect(jar.cookieField(for: Self.url("http://notexample.com/")) == nil)
    }

    @Test("Secure is refused from plain http but taken from https and from loopback http")
    func secureNeedsSecureOrigin() {
        let jar = jar
        #expect(jar.store(setCookie: ["a=1; Secure"], for: Self.url("http://example.com/")).stored.count == 0)
        #expect(jar.store(setCookie: ["a=1; Secure"], for: Self.url("https://example.com/")).stored.count == 1)
        #expect(jar.store(setCookie: ["b=2; Secure"], for: Self.url("http://127.0.0.1:8080/")).stored.count == 1)
        #expect(jar.store(setCookie: ["c=3; Secure"], for: Self.url("http://localhost/")).stored.count == 1)
        #expect(jar.cookieField(for: Self.url("http://example.com/")) == nil)
        #expect(jar.cookieField(for: Self.url("https://example.com/")) == "a=1")
        #expect(jar.cookieField(for: Self.url("http://127.0.0.1:9/")) == "b=2")
    }

    @Test("an insecure origin cannot shadow a Secure cookie of the same name (§5.7 step 16)")
    func leaveSecureCookiesAlone() {
        let jar = jar
        jar.store(setCookie: ["session=good; Secure"], for: Self.url("https://example.com/"))
        #expect(jar.store(setCookie: ["session=evil"], for: Self.url("http://example.com/")).stored.count == 0)
        #expect(jar.cookieField(for: Self.url("https://example.com/")) == "session=good")
    }

    @Test("__Secure- needs Secure; __Host- needs Secure, no Domain and Path=/, in any case")
    func prefixes() {
        let jar = jar
        let site = Self.url("https://example.com/app/page")
        #expect(jar.store(setCookie: ["__Secure-a=1"], for: site).stored.count == 0)
        #expect(jar.store(setCookie: ["__secure-a=1; Secure"], for: site).stored.count == 1)
        #expect(jar.store(setCookie: ["__Host-b=1; Secure"], for: site).stored.count == 0)  // default path /app
        #expect(jar.store(setCookie: ["__Host-b=1; Secure; Path=/; Domain=example.com"], for: site).stored.count == 0)
        #expect(jar.store(setCookie: ["__HOST-b=1; Secure; Path=/"], for: site).stored.count == 1)
        #expect(jar.store(setCookie: ["__Host-x"], for: site).stored.count == 0)  // a nameless value like a prefix
    }

    @Test("Max-Age wins over Expires, in either order; Max-Age=0 deletes; expiry is capped at 400 days")
    func expiry() throws {
        let jar = jar
        let site = Self.url("http://example.com/")
        jar.store(setCookie: ["a=1; Max-Age=60; Expires=Wed, 01 Jan 2020 00:00:00 GMT"], for: site)
        jar.store(setCookie: ["b=2; Expires=Wed, 01 Jan 2020 00:00:00 GMT; Max-Age=60"], for: site)
        #expect(jar.cookieField(for: site) == "a=1; b=2")
        jar.store(setCookie: ["a=1; Max-Age=0"], for: site)
        #expect(jar.cookieField(for: site) == "b=2")
        jar.store(setCookie: ["c=3; Max-Age=999999999"], for: site)
        let capped = try #require(jar.allCookies.first { $0.name == "c" }?.expires)
        #expect(capped == clock.read().addingTimeInterval(400 * 86_400))
        clock.advance(61)
        #expect(jar.cookieField(for: site) == "c=3")
    }

    @Test("a session cookie has no expiry and goes with removeSessionCookies")
    func sessionCookies() {
        let jar = jar
        let site = Self.url("http://example.com/")
        jar.store(setCookie: ["s=1", "p=2; Max-Age=100"], for: site)
        #expect(jar.allCookies.first { $0.name == "s" }?.isSession == true)
        jar.removeSessionCookies()
        #expect(jar.cookieField(for: site) == "p=2")
    }

    @Test(
        "a name and value over 4096 bytes, or a control character, refuse the field; an attribute over 1024 bytes is ignored"
    )
    func sizeAndControlLimits() {
        let jar = jar
        let site = Self.url("http://example.com/")
        #expect(jar.store(setCookie: ["a=" + String(repeating: "x", count: 4096)], for: site).stored.count == 0)
        #expect(jar.store(setCookie: ["a=" + String(repeating: "x", count: 4095)], for: site).stored.count == 1)
        #expect(jar.store(setCookie: ["b=1\u{1}2", "c=1\r\n", "d=1\u{7F}"], for: site).stored.count == 0)
        #expect(jar.store(setCookie: ["e=1\t2"], for: site).stored.count == 1)
        jar.store(setCookie: ["f=1; Path=/" + String(repeating: "p", count: 1024)], for: site)
        #expect(jar.allCookies.first { $0.name == "f" }?.path == "/")
    }

    @Test("SameSite is kept as data; SameSite=None without Secure is refused")
    func sameSite() {
        let jar = jar
        let site = Self.url("https://example.com/")
        jar.store(setCookie: ["a=1; SameSite=strict", "b=2; SameSite=Lax", "c=3; SameSite=bogus"], for: site)
        #expect(jar.store(setCookie: ["d=4; SameSite=None"], for: site).stored.count == 0)
        #expect(jar.store(setCookie: ["d=4; SameSite=None; Secure"], for: site).stored.count == 1)
        let kinds = Dictionary(uniqueKeysWithValues: jar.allCookies.map { ($0.name, $0.sameSite) })
        #expect(kinds == ["a": .strict, "b": .lax, "c": .default, "d": .none])
    }

    @Test("a replacement keeps the first cookie's creation time, so its place in the order")
    func replacementKeepsOrder() {
        let jar = jar
        let site = Self.url("http://example.com/")
        jar.store(setCookie: ["a=1", "b=2"], for: site)
        clock.advance(5)
        jar.store(setCookie: ["a=changed"], for: site)
        #expect(jar.cookieField(for: site) == "a=changed; b=2")
    }
}

@Suite("Cookie jar: sending (RFC 6265bis §5.8.3)")
struct CookieSendingTests {
    @Test("paths match on segment boundaries, longer paths go first, then older cookies")
    func pathsAndOrder() {
        let jar = CookieJar()
        let site = URL(string: "http://example.com/docs/page")!
        jar.store(
            setCookie: ["root=1; Path=/", "docs=2; Path=/docs", "deep=3; Path=/docs/page", "other=4; Path=/doc"],
            for: site)
        #expect(jar.cookieField(for: URL(string: "http://example.com/docs/page?x=1")!) == "deep=3; docs=2; root=1")
        #expect(jar.cookieField(for: URL(string: "http://example.com/docsx")!) == "root=1")
        #expect(jar.cookieField(for: URL(string: "http://example.com/doc/a")!) == "other=4; root=1")
        #expect(jar.cookieField(for: URL(string: "http://example.com/docs")!) == "docs=2; root=1")
    }

    @Test("the default path is the request path up to its last slash")
    func defaultPath() {
        let jar = CookieJar()
        jar.store(setCookie: ["a=1", "b=2; Path=relative"], for: URL(string: "http://example.com/a/b/c")!)
        #expect(jar.allCookies.map(\.path) == ["/a/b", "/a/b"])
        jar.store(setCookie: ["c=3"], for: URL(string: "http://example.com/top")!)
        #expect(jar.allCookies.first { $0.name == "c" }?.path == "/")
    }

    @Test("host-only cookies stay on their host; an IP address gets no domain cookies")
    func hostOnly() {
        let jar = CookieJar()
        jar.store(setCookie: ["a=1"], for: URL(string: "http://example.com/")!)
        #expect(jar.cookieField(for: URL(string: "http://www.example.com/")!) == nil)
        #expect(jar.store(setCookie: ["b=2; Domain=0.0.1"], for: URL(string: "http://127.0.0.1/")!).stored.count == 0)
        #expect(jar.store(setCookie: ["b=2"], for: URL(string: "http://127.0.0.1/")!).stored.count == 1)
        #expect(jar.cookieField(for: URL(string: "http://127.0.0.1:9999/x")!) == "b=2")
    }
}

@Suite("Cookie jar: limits, listing and removal")
struct CookieJarLimitTests {
    @Test("a domain keeps its 50 most recently used cookies; the jar keeps 3000 in all")
    func limits() {
        let clock = TestClock()
        let jar = CookieJar(limits: .init(perDomain: 50, total: 120), clock: { clock.read() })
        let site = URL(string: "http://example.com/")!
        for index in 0..<60 {
            jar.store(setCookie: ["c\(index)=\(index)"], for: site)
            clock.advance(1)
        }
        #expect(jar.count == 50)
        #expect(!jar.allCookies.contains { $0.name == "c0" } && jar.allCookies.contains { $0.name == "c59" })
        for host in 0..<10 {
            for index in 0..<10 {
                jar.store(setCookie: ["h\(index)=1"], for: URL(string: "http://host\(host).example/")!)
                clock.advance(1)
            }
        }
        #expect(jar.count == 120)
        // The oldest of example.com's went first.
        #expect(jar.allCookies.filter { $0.domain == "example.com" }.count == 20)
    }

    @Test("hostile servers setting 500 cookies each leave the jar at its limits", .heavyWork)
    func hostileServer() {
        let jar = CookieJar(limits: .init(perDomain: 50, total: 200))
        let values = (0..<500).map { "k\($0)=\(String(repeating: "v", count: 100))" }
        for host in 0..<8 {
            jar.store(setCookie: values, for: URL(string: "http://h\(host).example.net/")!)
            #expect(jar.count <= 200)
        }
        #expect(jar.count == 200)
        #expect(jar.allCookies.count == 200)
        // Each domain kept its newest: the last of the 500.
        #expect(jar.cookieField(for: URL(string: "http://h7.example.net/")!)?.contains("k499=") == true)
    }

    @Test("removeCookies(domain:) removes the domain's and its subdomains' cookies; removeAll empties the jar")
    func removal() {
        let jar = CookieJar()
        jar.store(setCookie: ["a=1"], for: URL(string: "http://example.com/")!)
        jar.store(setCookie: ["b=2"], for: URL(string: "http://www.example.com/")!)
        jar.store(setCookie: ["c=3"], for: URL(string: "http://other.org/")!)
        #expect(jar.removeCookies(domain: "EXAMPLE.com") == 2)
        #expect(jar.allCookies.map(\.name) == ["c"])
        jar.removeAll()
        #expect(jar.count == 0)
    }

    @Test("a cookie prints without its value")
    func description() {
        let cookie = Cookie(name: "session", value: "secret-token", domain: "example.com", secure: true)
        #expect(!cookie.description.contains("secret-token"))
        #expect(cookie.description.hasPrefix("session=<redacted>"))
    }
}

@Suite("Public suffix list")
struct PublicSuffixListTests {
    @Test("suffixes under the list's algorithm: rules, wildcards, exceptions, the default rule")
    func algorithm() {
        let list = PublicSuffixList(rules: "// test\ncom\nco.uk\n*.ck\n!www.ck\n")
        #expect(list.publicSuffix(of: "www.example.com") == "com")
        #expect(list.publicSuffix(of: "a.example.co.uk") == "co.uk")
        #expect(list.publicSuffix(of: "a.b.ck") == "b.ck")
        #expect(list.publicSuffix(of: "www.ck") == "ck")
        #expect(list.publicSuffix(of: "example.unknown") == "unknown")
        #expect(list.registrableDomain(of: "x.y.example.co.uk") == "example.co.uk")
        #expect(list.registrableDomain(of: "co.uk") == nil)
    }

    @Test("the shipped list knows ICANN, private and punycode rules")
    func shipped() {
        let list = PublicSuffixList.shipped
        #expect(list.isPublicSuffix("com") && list.isPublicSuffix("co.uk") && list.isPublicSuffix("github.io"))
        #expect(!list.isPublicSuffix("example.com") && !list.isPublicSuffix("example.co.uk"))
        #expect(list.isPublicSuffix("xn--55qx5d.cn"))  // 公司.cn
        #expect(list.isPublicSuffix("anything.ck") && !list.isPublicSuffix("www.ck"))
    }
}
