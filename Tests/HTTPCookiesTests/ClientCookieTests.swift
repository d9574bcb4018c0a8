import Foundation
import HTTPClient
import HTTPClientTesting
import HTTPCore
import TestSupport
import Testing

@testable import HTTPCookies

/// Lines a test collects from several tasks.
private final class Lines: @unchecked Sendable {
    // Invariant: `lines` is only touched under `lock`.
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var values: [String] { lock.withLock { lines } }
}

/// The cookies httpbin's `/cookies` saw.
private func cookiesSeen(_ response: ClientResponse<Data>) throws -> [String: String] {
    struct Seen: Decodable { let cookies: [String: String] }
    return try JSONDecoder().decode(Seen.self, from: response.body).cookies
}

@Suite("A client with a cookie jar, against httpbin")
struct ClientCookieTests {
    @Test("a login flow: cookies set on a redirect hop go with the next hop and every later request; deleted ones stop")
    func loginFlow() async throws {
        let httpbin = try TestServers.httpbin()
        let jar = CookieJar()
        let client = Client(baseURL: httpbin, cookies: jar)
        // 302 to /cookies, which must already see the two cookies set by the first hop.
        let login = try await client.send(.get("cookies/set?session=abc123&theme=dark"))
        #expect(login.request.url.path == "/cookies")
        #expect(try cookiesSeen(login) == ["session": "abc123", "theme": "dark"])
        let later = try await client.send(.get("cookies"))
        #expect(try cookiesSeen(later) == ["session": "abc123", "theme": "dark"])
        #expect(later.request.headerFields[.cookie] == "session=abc123; theme=dark")
        let deleted = try await client.send(.get("cookies/delete?theme"))
        #expect(try cookiesSeen(deleted) == ["session": "abc123"])
        #expect(jar.allCookies.map(\.name) == ["session"])
    }

    @Test("each redirect hop is judged on its own URL: a host-only cookie does not follow a redirect to another host")
    func hopsJudgedApart() async throws {
        let httpbin = try TestServers.httpbin()
        let port = httpbin.port ?? 80
        let jar = CookieJar()
        let client = Client(baseURL: httpbin, cookies: jar)
        try await client.send(.get("cookies/set?only=here"))
        let elsewhere = "http%3A%2F%2Flocalhost%3A\(port)%2Fcookies"
        let moved = try await client.send(.get("redirect-to?url=\(elsewhere)"))
        #expect(moved.request.url.host == "localhost")
        #expect(try cookiesSeen(moved) == [:])
        // And back on the first host, the cookie goes again.
        #expect(try cookiesSeen(try await client.send(.get("cookies"))) == ["only": "here"])
    }

    @Test("a request's own Cookie field is kept, the jar's cookies after it")
    func ownCookieField() async throws {
        let httpbin = try TestServers.httpbin()
        let client = Client(baseURL: httpbin, cookies: CookieJar())
        try await client.send(.get("cookies/set?jar=1"))
        let response = try await client.send(.get("cookies").header(.cookie, "own=2"))
        #expect(response.request.headerFields[.cookie] == "own=2; jar=1")
        #expect(try cookiesSeen(response) == ["own": "2", "jar": "1"])
    }

    @Test("without a jar a client keeps no cookie")
    func noJar() async throws {
        let httpbin = try TestServers.httpbin()
        let client = Client(baseURL: httpbin)
        let response = try await client.send(.get("cookies/set?session=abc"))
        #expect(try cookiesSeen(response) == [:])
    }

    @Test("Cookie and Set-Cookie stay redacted in the client's logs")
    func redactedInLogs() async throws {
        let httpbin = try TestServers.httpbin()
        let lines = Lines()
        let client = Client(
            baseURL: httpbin, interceptors: [Logging(.headers) { lines.append($0) }], cookies: CookieJar())
        try await client.send(.get("cookies/set?session=topsecret"))
        try await client.send(.get("cookies").header(.cookie, "own=alsosecret"))
        let fieldLines = lines.values.flatMap { $0.split(separator: "\n") }
            .filter { $0.lowercased().hasPrefix("cookie:") || $0.lowercased().hasPrefix("set-cookie:") }
        #expect(!fieldLines.isEmpty)
        #expect(fieldLines.allSatisfy { $0.hasSuffix(": <redacted>") })
        #expect(!lines.values.joined().contains("alsosecret"))
    }
}

@Suite("A client with a cookie jar, over a stub transport")
struct StubCookieTests {
    @Test("the jar works the same over a stub: a Set-Cookie answered, the Cookie sent next")
    func stub() async throws {
        var head = HTTPResponse(status: .ok)
        head.headerFields = try HTTPFields(["Set-Cookie": "token=xyz; Path=/; HttpOnly"])
        let stub = StubTransport(fallback: .status(.ok))
        stub.enqueue(.response(head))
        let client = Client(baseURL: URL(string: "https://api.example.com")!, transport: stub, cookies: CookieJar())
        try await client.send(.post("login"))
        try await client.send(.get("me"))
        #expect(stub.requests.map { $0.headerFields[.cookie] } == [nil, "token=xyz"])
    }
}

/// Collects a client's events.
private final class EventLog: ClientObserver, @unchecked Sendable {
    // Invariant: `list` is only touched under `lock`.
    private let lock = NSLock()
    private var list: [ClientEvent] = []

    func receive(_ event: ClientEvent) async { lock.withLock { list.append(event) } }

    /// The events once `count` calls have finished (observers are told a moment later).
    func after(calls count: Int) async throws -> [ClientEvent] {
        for _ in 0..<500 {
            let seen = lock.withLock { list }
            if seen.filter({ if case .finished = $0.kind { true } else { false } }).count >= count { return seen }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("the calls' finished events did not arrive")
        return lock.withLock { list }
    }
}

@Suite("A client reports the cookies its jar refuses")
struct CookieRefusalEventTests {
    @Test("a refused Set-Cookie reaches the observers with its reason and its value redacted; a stored one does not")
    func refusedReported() async throws {
        var head = HTTPResponse(status: .ok)
        head.headerFields = try HTTPFields([
            HTTPField(name: .setCookie, value: "sid=SECRET-session; Secure; Path=/"),
            HTTPField(name: .setCookie, value: "theme=dark; Path=/"),
        ])
        let stub = StubTransport(fallback: .status(.ok))
        stub.enqueue(.response(head), .response(head))
        let log = EventLog()
        let url = URL(string: "http://shop.example.com")!
        let client = Client(baseURL: url, transport: stub, observers: [log], cookies: CookieJar())
        try await client.send(.post("login"))
        let events = try await log.after(calls: 1)
        let refused = events.compactMap { event -> (URL, [CookieRefusal], Int)? in
            if case .cookiesRefused(let url, let refusals, let attempt) = event.kind { return (url, refusals, attempt) }
            return nil
        }
        #expect(refused.count == 1)
        let (from, refusals, attempt) = try #require(refused.first)
        #expect(from.absoluteString == "http://shop.example.com/login" && attempt == 1)
        #expect(refusals.map(\.reason) == [.secureFromInsecureRequest])
        #expect(refusals.first?.name == "sid" && refusals.first?.index == 0)
        let shown = events.map(\.description).joined(separator: "\n")
        #expect(shown.contains("sid=<redacted>; Secure; Path=/") && !shown.contains("SECRET-session"), "\(shown)")

        // Over https both are kept: nothing is reported.
        stub.enqueue(.response(head))
        let secureLog = EventLog()
        let secure = Client(
            baseURL: URL(string: "https://shop.example.com")!, transport: stub, observers: [secureLog],
            cookies: CookieJar())
        try await secure.send(.post("login"))
        let kept = try await secureLog.after(calls: 1)
        #expect(!kept.contains { if case .cookiesRefused = $0.kind { true } else { false } })
    }
}
