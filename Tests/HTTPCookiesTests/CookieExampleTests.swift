import Foundation
import HTTPClient
import HTTPCore
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
        #expect(blocks.count == 3)
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
