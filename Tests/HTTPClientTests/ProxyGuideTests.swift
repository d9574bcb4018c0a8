import Foundation
import TestSupport
import Testing

@testable import HTTPClient

// The examples of Docs/ProxiesAndUnixSockets.md that need no AsyncHTTPClient, held verbatim and
// run; the others are held and run by the AsyncHTTPClient package's
// ProxyGuideExampleTests.swift, against the real proxies and sockets of `scripts/with-servers`.

@Suite("Examples in Docs/ProxiesAndUnixSockets.md")
struct ProxyGuideTests {
    static let guide = "Docs/ProxiesAndUnixSockets.md"
    static let holders = [
        "Tests/HTTPClientTests/ProxyGuideTests.swift",
        "Integrations/AsyncHTTPClient/Tests/HeronAsyncHTTPClientTests/ProxyGuideExampleTests.swift",
    ]

    @Test("every ```swift block of the guide is held verbatim by a test of this file or the AsyncHTTPClient package's")
    func everySnippetIsHeld() throws {
        let blocks = SnippetSource.markdownBlocks(try SnippetSource.read(Self.guide))
        #expect(blocks.count >= 5)
        let sources = try Self.holders.map(SnippetSource.read)
        for block in blocks {
            #expect(
                sources.contains { SnippetSource.contains(block, in: $0) },
                "snippet of \(Self.guide) is not tested:\n\(block)"
            )
        }
    }

    @Test("the environment, by default")
    func environment() throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let environment = ProxyPolicy.environment([
            "https_proxy": "http://127.0.0.1:3128",
            "no_proxy": "localhost, .internal.example, 10.0.0.0/8",
        ])
        let api = URL(string: "https://api.example.com/")!
        print(try environment.proxy(for: api) as Any)  // Optional(http://127.0.0.1:3128)
        print(try environment.proxy(for: URL(string: "https://db.internal.example/")!) as Any)  // nil
        print(try environment.proxy(for: URL(string: "http://api.example.com/")!) as Any)  // nil: no http_proxy

        #expect(printed == ["Optional(http://127.0.0.1:3128)", "nil", "nil"])
    }

    @Test("credentials and SOCKS5")
    func credentialsAndSOCKS() throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        let secret = "guide-secret-91"

        let credentials = Proxy.Credentials(username: "ci", password: secret)
        let corporate = Proxy(host: "proxy.corp.example", port: 3128, credentials: credentials)
        let socks = try Proxy(url: "socks5h://127.0.0.1:1080")
        print(corporate, socks)  // http://proxy.corp.example:3128 socks5://127.0.0.1:1080

        #expect(printed == ["http://proxy.corp.example:3128 socks5://127.0.0.1:1080"])
        #expect(corporate.credentials?.password == secret)
    }

    @Test("a proxy per URL")
    func perURL() throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let internalHosts: ProxyBypass = "localhost, .internal.example, 10.0.0.0/8"
        let egress = Proxy(host: "egress.corp.example", port: 3128)
        let partners = Proxy(.socks5, host: "127.0.0.1", port: 1080)
        let policy = ProxyPolicy.choosing { url in
            if internalHosts.matches(url) { return nil }
            return url.host?.hasSuffix(".partner.example") == true ? partners : egress
        }
        let files = URL(string: "https://files.partner.example/a")!
        print(try policy.proxy(for: files) as Any)  // Optional(socks5://127.0.0.1:1080)
        print(try policy.proxy(for: URL(string: "http://10.1.2.3/health")!) as Any)  // nil

        #expect(printed == ["Optional(socks5://127.0.0.1:1080)", "nil"])
        #expect(try policy.proxy(for: URL(string: "https://example.com/")!) == egress)
    }
}
