import Foundation
import Testing

@testable import HTTPCookies

/// What `store(setCookie:for:)` reports: the cookies stored, and each refused field with its
/// reason, its value redacted.
@Suite("Cookie jar: refusals and their reasons")
struct CookieRefusalTests {
    @Test(
        "each rule that refuses a field names itself",
        arguments: [
            ("http://www.example.com/", "a=1; Domain=com", CookieJar.Refusal.Reason.publicSuffixDomain),
            ("https://heron.github.io/", "a=1; Domain=github.io", .publicSuffixDomain),
            ("http://www.example.com/", "a=1; Domain=other.com", .domainMismatch),
            ("http://example.com/", "a=1; Secure", .secureFromInsecureRequest),
            ("https://example.com/", "a=1; SameSite=None", .sameSiteNoneWithoutSecure),
            ("https://example.com/", "__Secure-a=1", .prefix),
            ("https://example.com/app/x", "__Host-a=1; Secure", .prefix),
            ("https://example.com/", "__Host-a=1; Secure; Path=/; Domain=example.com", .prefix),
            ("https://example.com/", "__Host-x", .prefix),
            ("https://example.com/", "=", .empty),
            ("https://example.com/", "a=1\u{1}2", .controlCharacter),
            ("https://example.com/", "a=" + String(repeating: "x", count: 4096), .tooLarge),
            ("file:///tmp/x", "a=1", .noHost),
        ])
    func reasons(url: String, field: String, reason: CookieJar.Refusal.Reason) {
        let result = CookieJar().store(setCookie: [field], for: URL(string: url)!)
        #expect(result.stored.isEmpty)
        #expect(result.refused.map(\.reason) == [reason])
        #expect(result.refused.first?.index == 0)
    }

    @Test("an overlay of a Secure cookie from http is refused for that reason")
    func overlay() {
        let jar = CookieJar()
        jar.store(setCookie: ["sid=good; Secure"], for: URL(string: "https://example.com/")!)
        let result = jar.store(setCookie: ["sid=evil"], for: URL(string: "http://example.com/")!)
        #expect(result.refused.map(\.reason) == [.overlaysSecureCookie])
        #expect(result.refused.first?.name == "sid")
    }

    @Test("stored cookies and refusals keep the order and positions of the fields")
    func mixed() {
        let result = CookieJar().store(
            setCookie: ["a=1", "b=2; Domain=co.uk", "c=3; Max-Age=0", "d=4; Secure"],
            for: URL(string: "http://shop.example.co.uk/")!)
        #expect(result.stored.map(\.name) == ["a", "c"])
        #expect(result.refused.map(\.index) == [1, 3])
        #expect(result.refused.map(\.reason) == [.publicSuffixDomain, .secureFromInsecureRequest])
        #expect(result.refused.allSatisfy { $0.host == "shop.example.co.uk" })
    }

    @Test("a refusal prints the field with its value redacted and control characters escaped")
    func redacted() {
        let result = CookieJar().store(
            setCookie: ["session=top-secret; Secure; Path=/", "token=hunter2\u{7F}; Path=/"],
            for: URL(string: "http://example.com/")!)
        #expect(result.refused.map(\.field) == ["session=<redacted>; Secure; Path=/", "token=<redacted>; Path=/"])
        #expect(
            result.refused.first?.description
                == "Set-Cookie #0 from example.com refused (Secure from a request that is not secure): "
                + "session=<redacted>; Secure; Path=/")
        let printed = "\(result)"
        #expect(!printed.contains("top-secret") && !printed.contains("hunter2"))
        #expect(printed.hasPrefix("0 stored, 2 refused"))
        let escaped = CookieJar.Refusal.redacted("a=1; Path=/\u{1}x")
        #expect(escaped.field == "a=<redacted>; Path=/\\u{1}x")
        #expect(CookieJar.Refusal.redacted(String(repeating: "n", count: 1000) + "=v").field.count == 257)
    }

    @Test("a reason compares by its code and prints its explanation")
    func reasonIdentity() {
        #expect(CookieJar.Refusal.Reason.prefix.code == "prefix")
        #expect(CookieJar.Refusal.Reason.prefix != .empty)
        #expect("\(CookieJar.Refusal.Reason.publicSuffixDomain)" == "a Domain that is a public suffix")
    }
}
