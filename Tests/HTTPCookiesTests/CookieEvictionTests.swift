import Foundation
import TestTraits
import Testing

@testable import HTTPCookies

/// The limits paragraph of RFC 6265bis §5.7: past a domain's limit, expired cookies go first,
/// then that domain's cookies that are not `Secure`, then any of its cookies, the least
/// recently used first within each.
@Suite("Cookie jar: eviction order (RFC 6265bis §5.7)")
struct CookieEvictionTests {
    static let secureSite = URL(string: "https://example.com/")!
    static let plainSite = URL(string: "http://example.com/")!

    @Test("fifty cookies from http do not push out a Secure cookie, which then still blocks an overlay")
    func secureCookieSurvivesAFlood() {
        let clock = TestClock()
        let jar = CookieJar(clock: { clock.read() })
        jar.store(setCookie: ["sid=secret; Secure; Path=/"], for: Self.secureSite)
        clock.advance(1)
        // Each cookie of the flood newer than the last: the Secure one is the least recently used.
        for index in 0..<50 {
            jar.store(setCookie: [String(format: "k%02d=1; Path=/x", index)], for: Self.plainSite)
            clock.advance(1)
        }
        let overlay = jar.store(setCookie: ["sid=evil; Path=/"], for: Self.plainSite)
        #expect(overlay.refused.map(\.reason) == [.overlaysSecureCookie])
        let sent = jar.cookieField(for: URL(string: "https://example.com/")!)
        #expect(sent == "sid=secret")
        #expect(jar.count == 50)
        // The flood's oldest cookie went in its place.
        #expect(!jar.allCookies.contains { $0.name == "k00" } && jar.allCookies.contains { $0.name == "k49" })
    }

    @Test("a domain full of Secure cookies evicts its least recently used one")
    func allSecureEvictsTheOldest() {
        let clock = TestClock()
        let jar = CookieJar(limits: .init(perDomain: 3, total: 100), clock: { clock.read() })
        for name in ["a", "b", "c", "d"] {
            jar.store(setCookie: ["\(name)=1; Secure"], for: Self.secureSite)
            clock.advance(1)
        }
        #expect(jar.allCookies.map(\.name) == ["b", "c", "d"])
    }

    @Test("an expired cookie still in the jar goes before a live one: a full domain keeps all 50 live cookies")
    func expiredCookiesGoFirst() {
        let clock = TestClock()
        let jar = CookieJar(clock: { clock.read() })
        for index in 0..<49 {
            jar.store(setCookie: ["c\(index)=1"], for: Self.plainSite)
            clock.advance(1)
        }
        // The most recently used cookie, then expired: the least recently used is a live one.
        jar.store(setCookie: ["old=1; Max-Age=10"], for: Self.plainSite)
        clock.advance(20)
        // No request has met the expired cookie: it is still in the jar.
        #expect(jar.count == 50)
        jar.store(setCookie: ["c49=1"], for: Self.plainSite)
        let sent = jar.cookieField(for: Self.plainSite)?.components(separatedBy: "; ") ?? []
        #expect(sent.count == 50)
        #expect(sent.first == "c0=1" && sent.last == "c49=1")
    }

    @Test("past the total, expired cookies go before the least recently used live one")
    func totalLimitTakesExpiredFirst() {
        let clock = TestClock()
        let jar = CookieJar(limits: .init(perDomain: 50, total: 3), clock: { clock.read() })
        jar.store(setCookie: ["a=1"], for: URL(string: "http://a.example/")!)
        clock.advance(1)
        jar.store(setCookie: ["b=1; Max-Age=5"], for: URL(string: "http://b.example/")!)
        clock.advance(1)
        jar.store(setCookie: ["c=1"], for: URL(string: "http://c.example/")!)
        clock.advance(10)
        jar.store(setCookie: ["d=1"], for: URL(string: "http://d.example/")!)
        #expect(jar.allCookies.map(\.name) == ["a", "c", "d"])
        clock.advance(1)
        jar.store(setCookie: ["e=1"], for: URL(string: "http://e.example/")!)
        #expect(jar.allCookies.map(\.name) == ["c", "d", "e"])
    }

    @Test("inserting cookies into one bucket costs the same per cookie at 6,000 as at 600", .heavyWork)
    func insertionIsLinear() {
        /// Thread CPU seconds to insert `count` cookies over subdomains of one site (one bucket),
        /// then send a request; the best of three.
        func seconds(_ count: Int) -> Double {
            (0..<3).map { _ in
                let jar = CookieJar(limits: .init(perDomain: 50, total: 10_000))
                let start = Self.threadCPUSeconds()
                for index in 0..<count {
                    jar.insert(
                        Cookie(name: "c\(index % 50)", value: "v", domain: "h\(index / 50).crowded.example", path: "/"))
                }
                _ = jar.cookieField(for: URL(string: "https://h1.crowded.example/")!)
                return Self.threadCPUSeconds() - start
            }.min()!
        }
        _ = seconds(600)  // warm up
        let small = seconds(600)
        let large = seconds(6_000)
        // Linear: about 10 times; a scan of the bucket at each insertion made it about 100.
        #expect(large / small < 30, "600 cookies: \(small * 1e3) ms, 6,000: \(large * 1e3) ms")
    }

    static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
