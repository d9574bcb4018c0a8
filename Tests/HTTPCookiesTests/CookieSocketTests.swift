import Foundation
import Testing

@testable import HTTPCookies

/// Requests over Unix domain sockets (`http+unix://%2Frun%2Fa.sock/`, `unix:///run/a.sock`):
/// a socket is a host of its own, named by its path as it is, so two sockets never share a
/// cookie.
@Suite("Cookie jar: Unix sockets")
struct CookieSocketTests {
    static func socket(_ path: String, _ rest: String = "/", scheme: String = "http+unix") -> URL {
        URL(string: "\(scheme)://\(path.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)\(rest)")!
    }

    @Test("a cookie set over one socket goes back to it (in both URL forms) and to no other socket")
    func socketsApart() {
        let jar = CookieJar()
        #expect(jar.store(setCookie: ["sid=1"], for: Self.socket("/run/a.sock", "/login")).stored.count == 1)
        #expect(jar.cookieField(for: Self.socket("/run/a.sock", "/other")) == "sid=1")
        #expect(jar.cookieField(for: URL(string: "unix:///run/a.sock")!) == "sid=1")
        #expect(jar.cookieField(for: Self.socket("/run/b.sock")) == nil)
        #expect(jar.cookieField(for: Self.socket("/run/A.sock")) == nil)
    }

    @Test("a Domain attribute that would reach another socket is refused; a Secure cookie goes over a socket")
    func domainAndSecure() {
        let jar = CookieJar()
        let result = jar.store(
            setCookie: ["d=1; Domain=heron.sock", "s=1; Secure"], for: Self.socket("/run/a.heron.sock"))
        #expect(result.stored.map(\.name) == ["s"])
        #expect(jar.cookieField(for: Self.socket("/run/b.heron.sock")) == nil)
        #expect(jar.cookieField(for: Self.socket("/run/a.heron.sock")) == "s=1")
        #expect(jar.cookieField(for: Self.socket("/run/a.heron.sock", scheme: "https+unix")) == "s=1")
    }
}
