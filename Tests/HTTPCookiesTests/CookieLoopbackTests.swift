import Foundation
import Testing

@testable import HTTPCookies

/// Which plain-http hosts count as secure (W3C Secure Contexts §3.2: loopback is "potentially
/// trustworthy"), the setting that turns that off, and `Domain` on an IP host.
@Suite("Cookie jar: loopback hosts and IP addresses")
struct CookieLoopbackTests {
    @Test(
        "a name that starts with 127. is not loopback: it gets no Secure cookie over http and sets none",
        arguments: ["127.cdn.example.com", "127.0.0.1.example.com", "127.evil", "127.0.0.1.nip.io"])
    func namesStartingWith127(host: String) {
        let jar = CookieJar()
        #expect(jar.store(setCookie: ["sid=secret; Secure"], for: URL(string: "https://\(host)/")!).stored.count == 1)
        #expect(jar.cookieField(for: URL(string: "http://\(host)/")!) == nil)
        let planted = jar.store(setCookie: ["x=1; Secure", "__Secure-y=1"], for: URL(string: "http://\(host)/")!)
        #expect(planted.refused.map(\.reason) == [.secureFromInsecureRequest, .prefix])
        #expect(!CookieJar.isLoopback(host))
    }

    @Test(
        "loopback addresses and localhost count as secure over http",
        arguments: [
            "127.0.0.1", "127.1.2.3", "127.255.255.255", "[::1]", "[0:0:0:0:0:0:0:1]", "localhost", "api.localhost",
            "LOCALHOST",
        ])
    func loopbackHosts(host: String) {
        let jar = CookieJar()
        let url = URL(string: "http://\(host):8080/")!
        #expect(jar.store(setCookie: ["__Secure-a=1; Secure"], for: url).stored.count == 1)
        #expect(jar.cookieField(for: url) == "__Secure-a=1")
    }

    @Test("addresses outside 127.0.0.0/8 and malformed ones are not loopback")
    func notLoopback() {
        for host in [
            "128.0.0.1", "127.0.0", "127.0.0.1.1", "127.256.0.1", "127.0.0.1a", "::2", "::ffff:10.0.0.1", "127",
        ] {
            #expect(!CookieJar.isLoopback(host), "\(host)")
        }
    }

    @Test("treatsLoopbackAsSecure: false makes loopback http an insecure origin like any other")
    func loopbackSettingOff() {
        let jar = CookieJar(treatsLoopbackAsSecure: false)
        #expect(!jar.treatsLoopbackAsSecure && CookieJar().treatsLoopbackAsSecure)
        let plain = URL(string: "http://127.0.0.1:8080/")!
        #expect(jar.store(setCookie: ["a=1; Secure"], for: plain).refused.map(\.reason) == [.secureFromInsecureRequest])
        jar.store(setCookie: ["b=1; Secure"], for: URL(string: "https://127.0.0.1:8443/")!)
        #expect(jar.cookieField(for: plain) == nil)
        #expect(jar.cookieField(for: URL(string: "https://127.0.0.1/")!) == "b=1")
    }

    @Test("Domain naming the host's own IP address keeps the cookie host-only: a later cookie of that name replaces it")
    func ipDomainIsHostOnly() {
        let jar = CookieJar()
        let host = URL(string: "http://127.0.0.1/")!
        jar.store(setCookie: ["n-1=abc123; Domain=127.0.0.1"], for: host)
        jar.store(setCookie: ["n-1=xyz"], for: host)
        #expect(jar.cookieField(for: host) == "n-1=xyz")
        jar.store(setCookie: ["c=1; Domain=127.0.0.1; Domain="], for: host)
        jar.store(setCookie: ["c=2"], for: host)
        #expect(jar.cookieField(for: host) == "n-1=xyz; c=2")
        #expect(jar.allCookies.allSatisfy { $0.hostOnly })
        let v6 = URL(string: "http://[::1]:8080/")!
        jar.store(setCookie: ["d=1; Domain=::1", "d=2"], for: v6)
        #expect(jar.cookieField(for: v6) == "d=2")
        // Another address is still refused.
        #expect(jar.store(setCookie: ["e=1; Domain=127.0.0.2"], for: host).refused.map(\.reason) == [.domainMismatch])
    }
}
