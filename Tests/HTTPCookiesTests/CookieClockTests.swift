import Foundation
import Testing

@testable import HTTPCookies

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every time decision of a jar reads its clock: a jar on a clock in 2001 never sees 2026.
@Suite("Cookie jar: one clock")
struct CookieClockTests {
    static let start = Date(timeIntervalSince1970: 1_000_000_000)  // 9 September 2001

    @Test("cookies imported from cookies.txt are made at the jar's time, not the system's")
    func netscapeImport() throws {
        let clock = TestClock(Self.start)
        let jar = CookieJar(clock: { clock.read() })
        try jar.importNetscapeCookies("example.com\tFALSE\t/\tFALSE\t0\ta\t1\n")
        let cookie = try #require(jar.allCookies.first)
        #expect(cookie.created == Self.start)
        #expect(cookie.lastAccessed == Self.start)
    }

    @Test("cookies imported from an HTTPCookieStorage are made at the jar's time, not the system's")
    func storageImport() throws {
        let clock = TestClock(Self.start)
        let jar = CookieJar(clock: { clock.read() })
        let storage = URLSessionConfiguration.ephemeral.httpCookieStorage!
        storage.setCookie(HTTPCookie(properties: [.name: "a", .value: "1", .domain: "example.com", .path: "/"])!)
        #expect(jar.importCookies(from: storage) == 1)
        #expect(jar.allCookies.map(\.created) == [Self.start])
    }

    @Test("Max-Age, expiry and sending follow the jar's clock")
    func expiryFollowsTheClock() {
        let clock = TestClock(Self.start)
        let jar = CookieJar(clock: { clock.read() })
        let site = URL(string: "https://example.com/")!
        let stored = jar.store(setCookie: ["a=1; Max-Age=60", "b=2"], for: site).stored
        #expect(stored.map(\.created) == [Self.start, Self.start.addingTimeInterval(1e-6)])
        #expect(stored.first?.expires == Self.start.addingTimeInterval(60))
        clock.advance(59)
        #expect(jar.cookieField(for: site) == "a=1; b=2")
        clock.advance(1)
        #expect(jar.cookieField(for: site) == "b=2")
        #expect(jar.count == 1)
    }
}
