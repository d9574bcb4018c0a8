import Foundation
import HTTPClient
import HTTPCore
import Synchronization
import TestSupport
import Testing

@testable import HTTPCookies

// Each test holds, verbatim, the ```swift example of one documentation comment of
// Sources/HTTPCookies and runs it, with `print` captured. `everySourceExampleIsHere` fails
// when an example is missing from this file.

@Suite("Examples in the HTTPCookies documentation comments")
struct CookieExampleTests {
    @Test("every ```swift example of Sources/HTTPCookies appears verbatim in this file")
    func everySourceExampleIsHere() throws {
        let (count, untested) = try SnippetSource.untestedDocCommentExamples(
            under: "Sources/HTTPCookies", testedIn: ["Tests/HTTPCookiesTests/CookieExampleTests.swift"])
        for (file, block) in untested {
            Issue.record("example in \(file) is not tested:\n\(block.joined(separator: "\n"))")
        }
        #expect(count >= 2)
    }

    @Test("CookieJar")
    func cookieJar() {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let jar = CookieJar()
        let site = URL(string: "https://example.com/login")!
        jar.store(setCookie: ["session=abc123; Path=/; Secure; HttpOnly"], for: site)
        print(jar.cookieField(for: URL(string: "https://example.com/account")!) ?? "none")  // session=abc123
        print(jar.cookieField(for: URL(string: "http://example.com/account")!) ?? "none")  // none

        #expect(printed == ["session=abc123", "none"])
    }

    @Test("CookieJar.store(setCookie:for:)")
    func storeResult() {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let jar = CookieJar()
        let result = jar.store(setCookie: ["a=1; Domain=com"], for: URL(string: "https://example.com/")!)
        print(result.refused.first?.reason == .publicSuffixDomain)  // true

        #expect(printed == ["true"])
    }

    @Test("CookieJar.StoreResult")
    func storeResultType() {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let jar = CookieJar()
        let result = jar.store(
            setCookie: ["sid=abc123; Secure", "theme=dark"], for: URL(string: "http://example.com")!)
        print(result.stored.map(\.name))  // ["theme"]
        print(result.refused.map(\.reason) == [.secureFromInsecureRequest])  // true
        print(result.refused[0].field)  // sid=<redacted>; Secure

        #expect(printed == ["[\"theme\"]", "true", "sid=<redacted>; Secure"])
    }

    @Test("PublicSuffixList")
    func publicSuffixList() {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let list = PublicSuffixList.shipped
        print(list.isPublicSuffix("co.uk"), list.isPublicSuffix("example.co.uk"))  // true false
        print(list.registrableDomain(of: "www.example.co.uk") ?? "none")  // example.co.uk

        #expect(printed == ["true false", "example.co.uk"])
    }
}

// Each test holds, verbatim, one ```swift block of Docs/HTTPCookies.md and runs it against the
// local httpbin of `scripts/test`, with `print` captured.

@Suite("Examples in Docs/HTTPCookies.md")
struct CookieGuideTests {
    @Test("every ```swift block of Docs/HTTPCookies.md appears verbatim in this file")
    func everySnippetIsHere() throws {
        let tests = try SnippetSource.read("Tests/HTTPCookiesTests/CookieExampleTests.swift")
        let blocks = SnippetSource.markdownBlocks(try SnippetSource.read("Docs/HTTPCookies.md"))
        #expect(blocks.count == 6)
        for block in blocks {
            #expect(SnippetSource.contains(block, in: tests), "snippet of Docs/HTTPCookies.md is not tested:\n\(block)")
        }
    }

    @Test("a login that stays logged in")
    func login() async throws {
        let httpbin = try TestServers.httpbin()
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let jar = CookieJar()
        let client = Client(baseURL: httpbin, cookies: jar)
        let login = try await client.send(.get("cookies/set?session=abc123"))  // 302 to /cookies
        print(String(decoding: login.body, as: UTF8.self).contains("abc123"))  // true
        print(jar.allCookies.map(\.name))  // ["session"]

        #expect(printed == ["true", "[\"session\"]"])
    }

    @Test("why a cookie was refused")
    func refusals() {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let jar = CookieJar()
        let result = jar.store(
            setCookie: ["sid=abc123; Domain=example.org", "theme=dark"], for: URL(string: "https://example.com/")!)
        print(result.stored.map(\.name), result.refused.map(\.reason.code))  // ["theme"] ["domain-mismatch"]
        for refusal in result.refused { print(refusal.field) }  // sid=<redacted>; Domain=example.org
        print(result.refused[0].reason)  // a Domain the request's host is not in

        #expect(
            printed == [
                "[\"theme\"] [\"domain-mismatch\"]", "sid=<redacted>; Domain=example.org",
                "a Domain the request's host is not in",
            ])
    }

    @Test("loopback and IP addresses")
    func loopback() {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let local = CookieJar(treatsLoopbackAsSecure: false)
        let plain = local.store(setCookie: ["a=1; Secure"], for: URL(string: "http://127.0.0.1:8080/")!)
        print(plain.refused.map(\.reason) == [.secureFromInsecureRequest])  // true
        let ip = CookieJar()
        ip.store(setCookie: ["n=1; Domain=127.0.0.1", "n=2"], for: URL(string: "http://127.0.0.1/")!)
        print(ip.cookieField(for: URL(string: "http://127.0.0.1/")!) ?? "none")  // n=2

        #expect(printed == ["true", "n=2"])
    }

    @Test("time")
    func time() {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let now = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        let replay = CookieJar(clock: { now.withLock { $0 } })
        replay.store(setCookie: ["token=t1; Max-Age=60"], for: URL(string: "https://example.com/")!)
        now.withLock { $0 += 61 }
        print(replay.cookieField(for: URL(string: "https://example.com/")!) ?? "none")  // none

        #expect(printed == ["none"])
    }

    @Test("keeping cookies across launches")
    func persistence() throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        defer {
            try? FileManager.default.removeItem(
                at: FileManager.default.temporaryDirectory.appendingPathComponent("heron-guide-cookies.json"))
        }

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("heron-guide-cookies.json")
        let saved = CookieJar(file: file)
        saved.store(setCookie: ["remember=me; Max-Age=86400"], for: URL(string: "https://example.com/")!)
        try saved.save()
        print(CookieJar(file: file).allCookies.map(\.name))  // ["remember"]
        print(saved.netscapeCookiesText().contains("remember\tme"))  // true

        #expect(printed == ["[\"remember\"]", "true"])
    }

    @Test("limits and housekeeping")
    func housekeeping() {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let kept = CookieJar(limits: .init(perDomain: 20, total: 500))
        kept.store(setCookie: ["a=1", "b=2; Max-Age=3600"], for: URL(string: "https://shop.example/")!)
        kept.removeSessionCookies()
        print(kept.allCookies.map(\.name), kept.removeCookies(domain: "shop.example"))  // ["b"] 1

        #expect(printed == ["[\"b\"] 1"])
    }
}
