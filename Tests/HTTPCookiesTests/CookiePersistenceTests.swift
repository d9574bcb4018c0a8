import Foundation
import Testing

@testable import HTTPCookies

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A folder of its own for a test, removed after it.
private func withFolder(_ body: (URL) throws -> Void) throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("heron-cookies-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try body(folder)
}

/// Errors a jar reported, from any thread.
private final class Reported: @unchecked Sendable {
    // Invariant: `errors` is only touched under `lock`.
    private let lock = NSLock()
    private var errors: [CookieJarError] = []

    func append(_ error: CookieJarError) { lock.withLock { errors.append(error) } }
    var values: [CookieJarError] { lock.withLock { errors } }
}

@Suite("Cookie jar: a file-backed jar")
struct CookiePersistenceTests {
    static let site = URL(string: "https://example.com/")!

    @Test("cookies come back from the file; session cookies only when asked; the file is 0600")
    func roundTrip() throws {
        try withFolder { folder in
            let file = folder.appendingPathComponent("cookies.json")
            let jar = CookieJar(file: file)
            jar.store(setCookie: ["keep=1; Max-Age=3600; Secure; HttpOnly; SameSite=Lax", "session=2"], for: Self.site)
            try jar.save()
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            let reopened = CookieJar(file: file)
            #expect(reopened.loadError == nil)
            let cookie = try #require(reopened.allCookies.first)
            #expect(reopened.allCookies.count == 1 && cookie.name == "keep" && cookie.value == "1")
            #expect(cookie.secure && cookie.httpOnly && cookie.sameSite == .lax && !cookie.hostOnly == false)
            #expect(cookie == jar.allCookies.first { $0.name == "keep" })

            let withSessions = CookieJar(file: file, persistsSessionCookies: true)
            withSessions.store(setCookie: ["session=2"], for: Self.site)
            try withSessions.save()
            #expect(Set(CookieJar(file: file).allCookies.map(\.name)) == ["keep", "session"])
        }
    }

    @Test("a change is written by itself a moment later")
    func writesBehind() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("heron-cookies-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("cookies.json")
        let jar = CookieJar(file: file)
        jar.store(setCookie: ["a=1; Max-Age=60"], for: Self.site)
        var waited = 0
        while CookieJar(file: file).allCookies.isEmpty && waited < 100 {
            try await Task.sleep(for: .milliseconds(50))
            waited += 1
        }
        #expect(CookieJar(file: file).allCookies.map(\.name) == ["a"])
        jar.removeAll()
        waited = 0
        while !CookieJar(file: file).allCookies.isEmpty && waited < 100 {
            try await Task.sleep(for: .milliseconds(50))
            waited += 1
        }
        #expect(CookieJar(file: file).allCookies.isEmpty)
    }

    @Test("a corrupt file leaves the jar empty with a typed error, and is replaced by the next save")
    func corruptFile() throws {
        try withFolder { folder in
            let file = folder.appendingPathComponent("cookies.json")
            for garbage in [
                Data("{\"version\":1,\"cook".utf8), Data([0xFF, 0x00, 0x13]),
                Data("{\"version\":7,\"cookies\":[]}".utf8),
            ] {
                try garbage.write(to: file)
                let reported = Reported()
                let jar = CookieJar(file: file, onError: { reported.append($0) })
                guard case .corruptFile(let url, _)? = jar.loadError else {
                    Issue.record("expected corruptFile, got \(String(describing: jar.loadError))")
                    continue
                }
                #expect(url == file && reported.values == [jar.loadError!])
                #expect(jar.count == 0)
                jar.store(setCookie: ["fresh=1; Max-Age=60"], for: Self.site)
                try jar.save()
                #expect(CookieJar(file: file).allCookies.map(\.name) == ["fresh"])
            }
        }
    }

    @Test("a file that cannot be written throws unwritableFile and leaves no partial file")
    func unwritable() throws {
        try withFolder { folder in
            let missing = folder.appendingPathComponent("no-such-folder/cookies.json")
            let jar = CookieJar(file: missing)
            jar.store(setCookie: ["a=1; Max-Age=60"], for: Self.site)
            #expect(throws: CookieJarError.self) { try jar.save() }
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(leftovers.isEmpty)
        }
    }
}

@Suite("Cookie jar: cookies.txt and HTTPCookieStorage")
struct CookieInteropTests {
    @Test("cookies.txt round-trips every field, and reads what curl writes")
    func netscapeRoundTrip() throws {
        let jar = CookieJar()
        let site = URL(string: "https://www.example.com/app/x")!
        jar.store(
            setCookie: [
                "host=1; Max-Age=3600; HttpOnly", "domain=2; Domain=example.com; Path=/; Secure; Max-Age=7200",
                "session=3",
            ], for: site)
        let text = jar.netscapeCookiesText()
        #expect(text.hasPrefix("# Netscape HTTP Cookie File"))
        #expect(text.contains("#HttpOnly_www.example.com\tFALSE\t/app\tFALSE\t"))
        #expect(text.contains(".example.com\tTRUE\t/\tTRUE\t"))
        #expect(text.contains("www.example.com\tFALSE\t/app\tFALSE\t0\tsession\t3"))
        let copy = CookieJar()
        #expect(try copy.importNetscapeCookies(text) == 3)
        #expect(copy.cookieField(for: site) == jar.cookieField(for: site))
        #expect(copy.allCookies.map(\.httpOnly) == jar.allCookies.map(\.httpOnly))
        // As curl writes a file (comments, a cookie without a value, CRLF).
        let curl =
            "# Netscape HTTP Cookie File\r\n# https://curl.se/docs/http-cookies.html\r\n\r\n"
            + "127.0.0.1\tFALSE\t/\tFALSE\t0\tempty\t\r\n.example.org\tTRUE\t/docs\tFALSE\t4102444800\tlong\tlived\r\n"
        let fromCurl = CookieJar()
        #expect(try fromCurl.importNetscapeCookies(curl) == 2)
        #expect(fromCurl.cookieField(for: URL(string: "http://127.0.0.1/")!) == "empty=")
        #expect(fromCurl.cookieField(for: URL(string: "http://a.example.org/docs/x")!) == "long=lived")
    }

    @Test("a line that is not a cookie is named, and nothing is imported")
    func badLine() {
        let jar = CookieJar()
        #expect(throws: CookieJarError.invalidLine(2, reason: "3 tab-separated fields, not 7")) {
            try jar.importNetscapeCookies("example.com\tFALSE\t/\tFALSE\t0\ta\tb\nbroken\tline\there")
        }
        #expect(jar.count == 0)
    }

    @Test("HTTPCookieStorage: export then import keeps name, value, domain, path, Secure, HttpOnly and expiry")
    func storageRoundTrip() throws {
        let jar = CookieJar()
        let site = URL(string: "https://www.example.com/app/x")!
        jar.store(
            setCookie: [
                "host=1; Max-Age=3600; HttpOnly", "domain=2; Domain=example.com; Path=/; Secure; Max-Age=7200",
            ],
            for: site)
        let storage = HTTPCookieStorage.sharedCookieStorage(forGroupContainerIdentifier: "heron-\(UUID().uuidString)")
        for cookie in storage.cookies ?? [] { storage.deleteCookie(cookie) }
        #expect(jar.exportCookies(to: storage) == 2)
        let names = Set((storage.cookies(for: site) ?? []).map(\.name))
        #expect(names == ["host", "domain"])
        let copy = CookieJar()
        #expect(copy.importCookies(from: storage) == 2)
        func summary(_ jar: CookieJar) -> [String] {
            jar.allCookies.map {
                "\($0.name)=\($0.value) \($0.domain) \($0.hostOnly) \($0.path) \($0.secure) \($0.httpOnly) "
                    + "\(Int($0.expires?.timeIntervalSince1970 ?? 0))"
            }
        }
        #expect(summary(copy) == summary(jar))
        for cookie in storage.cookies ?? [] { storage.deleteCookie(cookie) }
    }
}
