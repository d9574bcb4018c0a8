import Foundation
import HTTPClientTesting
import HTTPCore
import TestSupport
import Testing

@testable import HTTPClient

/// A Digest server (RFC 7616 §3.3, §3.5) behind a stub transport: it challenges, checks each
/// answer with the formula of §3.4 written out here, refuses a replayed count, and makes its
/// nonce stale after a number of uses.
final class DigestServer: Sendable {
    struct Settings: Sendable {
        var user = "Mufasa"
        var password = "Circle of Life"
        var realm = "http-auth@example.org"
        var algorithm: String? = "SHA-256"
        var qop: String? = "auth"
        var userhash = false
        /// Uses of a nonce before it goes stale (the next answer gets `stale=true`).
        var staleAfter: Int?
        /// Answers (right ones included) met with `stale=true` and a new nonce before any is taken.
        var staleAnswers = 0
        /// Extra challenges sent before the Digest one, in the same field.
        var otherChallenges = ""
        /// Paths answered, once authorized, with a `302` to the `Location` given.
        var redirects: [String: String] = [:]
    }

    struct State {
        var nonce = 0
        var uses = 0
        var highestCount: UInt32 = 0
        var counts: [UInt32] = []
        var stale = false
        var staleAnswersLeft = 0
        /// The client nonce of the first answer to the nonce: a `-sess` session key is made
        /// once, from it (RFC 7616 §3.4.2), as a strict server keeps it.
        var sessionNonce: String?
    }

    let settings: Settings
    let state = Locked(State())

    init(_ settings: Settings = Settings()) {
        self.settings = settings
        state.withLock { $0.staleAnswersLeft = settings.staleAnswers }
    }

    var nonce: String { "nonce-\(state.withLock { $0.nonce })" }
    var counts: [UInt32] { state.withLock { $0.counts } }

    /// Forgets its nonce, as a restarted server does: answers to the old one get a plain 401.
    func restart() { state.withLock { $0 = State(nonce: $0.nonce + 1, staleAnswersLeft: $0.staleAnswersLeft) } }

    func challenge(stale: Bool = false) -> StubTransport.Reply {
        var parameters = ["realm=\"\(settings.realm)\"", "nonce=\"\(nonce)\"", "opaque=\"0paque\""]
        if let algorithm = settings.algorithm { parameters.append("algorithm=\(algorithm)") }
        if let qop = settings.qop { parameters.append("qop=\"\(qop)\"") }
        if settings.userhash { parameters.append("userhash=true") }
        if stale { parameters.append("stale=TRUE") }
        let field = settings.otherChallenges + "Digest " + parameters.joined(separator: ", ")
        return .response(
            HTTPResponse(status: .unauthorized, headerFields: Fixtures.fields(["WWW-Authenticate": field])))
    }

    func hash(_ text: String) -> String {
        let name = (settings.algorithm ?? "MD5").uppercased().replacingOccurrences(of: "-SESS", with: "")
        let function: DigestHash = name == "SHA-256" ? .sha256 : name == "SHA-512-256" ? .sha512t256 : .md5
        return function.hex(text)
    }

    func reply(to request: HTTPRequest) -> StubTransport.Reply {
        guard let field = request.headerFields[.authorization], let answer = AuthChallenge.parse(field).first,
            answer.scheme == "digest"
        else { return challenge() }
        let value = { (name: String) in answer[name] ?? "" }
        enum Verdict { case unknownNonce, stale, replayed, fresh }
        var sessionNonce = ""
        let verdict = state.withLock { state -> Verdict in
            guard value("nonce") == "nonce-\(state.nonce)" else { return .unknownNonce }
            if state.sessionNonce == nil { state.sessionNonce = value("cnonce") }
            sessionNonce = state.sessionNonce ?? ""
            if state.staleAnswersLeft > 0 {
                state.staleAnswersLeft -= 1
                return .stale
            }
            if state.stale { return .stale }
            if settings.qop != nil {
                // A count seen before is a replay (§3.5).
                let count = UInt32(value("nc"), radix: 16) ?? 0
                guard !state.counts.contains(count) else { return .replayed }
                state.highestCount = max(state.highestCount, count)
                state.counts.append(count)
            }
            state.uses += 1
            if let limit = settings.staleAfter, state.uses >= limit { state.stale = true }
            return .fresh
        }
        switch verdict {
        case .unknownNonce: return challenge()
        case .replayed: return .status(.forbidden)
        case .stale:
            // A new nonce, and stale=true: the credentials were right (§3.3).
            state.withLock { $0 = State(nonce: $0.nonce + 1, staleAnswersLeft: $0.staleAnswersLeft) }
            return challenge(stale: true)
        case .fresh: break
        }
        // §3.4: the expected response, from the settings.
        let uri = request.path + (request.query.map { "?" + $0 } ?? "")
        let user = settings.userhash ? hash("\(settings.user):\(settings.realm)") : settings.user
        var ha1 = hash("\(settings.user):\(settings.realm):\(settings.password)")
        if settings.algorithm?.uppercased().hasSuffix("-SESS") == true {
            ha1 = hash("\(ha1):\(value("nonce")):\(sessionNonce)")
        }
        let qop = value("qop")
        var a2 = "\(request.method.rawValue):\(uri)"
        if qop == "auth-int" {
            guard case .data(let body)? = request.body?.source else { return .status(.badRequest) }
            a2 += ":" + hash(String(decoding: body, as: UTF8.self))
        }
        let expected =
            qop.isEmpty
            ? hash("\(ha1):\(value("nonce")):\(hash(a2))")
            : hash("\(ha1):\(value("nonce")):\(value("nc")):\(value("cnonce")):\(qop):\(hash(a2))")
        guard value("username") == user, value("uri") == uri, value("response") == expected,
            value("opaque") == "0paque", value("realm") == settings.realm
        else { return challenge() }
        if let location = settings.redirects[request.path] {
            return .status(.found, headerFields: Fixtures.fields(["Location": location]))
        }
        return .status(.ok)
    }

    /// A stub transport answering as this server.
    func transport() -> StubTransport {
        StubTransport(fallback: .handler { [self] request in reply(to: request) })
    }
}

@Suite("Digest authentication (RFC 7616)")
struct DigestAuthTests {
    static func client(_ server: DigestServer, password: String = "Circle of Life") -> (Client, StubTransport) {
        let stub = server.transport()
        return (
            Fixtures.client(stub, interceptors: [DigestAuth(username: server.settings.user, password: password)]), stub
        )
    }

    /// `parameter` of each request's Digest answer, `nil` for a request without one.
    static func answered(_ parameter: String, in requests: some Sequence<HTTPRequest>) -> [String?] {
        requests.map { request in
            request.headerFields[.authorization].flatMap { AuthChallenge.parse($0).first?[parameter] }
        }
    }

    @Test("a challenge is answered once; the next requests answer it ahead of time with a growing nc")
    func challengeThenPreemptive() async throws {
        let server = DigestServer()
        let (client, stub) = Self.client(server)
        let first = try await client.send(Fixtures.request("dir/index.html?a=1"))
        #expect(first.status == .ok)
        #expect(first.metrics.attempts.count == 2)
        for _ in 0..<3 {
            let next = try await client.send(Fixtures.request("other"))
            #expect(next.status == .ok)
            #expect(next.metrics.attempts.count == 1)
        }
        #expect(server.counts == [1, 2, 3, 4])
        #expect(stub.requests.count == 5)
        #expect(stub.requests.first?.headerFields[.authorization] == nil)
        let field = try #require(stub.requests.last?.headerFields[.authorization])
        #expect(field.hasPrefix("Digest username=\"Mufasa\", realm=\"http-auth@example.org\", uri=\"/v2/other\""))
        #expect(field.contains("algorithm=SHA-256") && field.contains("nc=00000004") && field.contains("qop=auth"))
    }

    @Test(
        "each algorithm, -sess form, qop and userhash the server asks for is answered as it checks",
        arguments: [
            ("MD5", "auth", false), ("MD5-sess", "auth", false), ("SHA-256", "auth", true),
            ("SHA-256-sess", "auth-int", false), ("SHA-512-256", "auth", true), ("SHA-512-256-sess", "auth-int", true),
            (nil, nil, false), ("MD5", "auth-int", false),
        ] as [(String?, String?, Bool)])
    func algorithms(_ algorithm: String?, _ qop: String?, _ userhash: Bool) async throws {
        let server = DigestServer(.init(algorithm: algorithm, qop: qop, userhash: userhash))
        let (client, _) = Self.client(server)
        let response = try await client.send(
            Fixtures.request("upload", method: .put, body: HTTPBody(Data("the body".utf8))))
        #expect(response.status == .ok)
        #expect(try await client.send(Fixtures.request("upload")).metrics.attempts.count == 1)
    }

    @Test("a wrong password fails with authenticationFailed after one answer, naming the user and the realm")
    func wrongPassword() async throws {
        let server = DigestServer()
        let (client, stub) = Self.client(server, password: "wrong")
        let error = await #expect(throws: ClientError.self) { _ = try await client.send(Fixtures.request("x")) }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.message.contains("'Mufasa'") == true && error?.message.contains("http-auth@example.org") == true)
        #expect(error?.response?.status == .unauthorized)
        #expect(stub.requests.count == 2)
    }

    @Test("a stale nonce is answered again with the new one, without failing (§3.3)")
    func staleNonce() async throws {
        let server = DigestServer(.init(staleAfter: 2))
        let (client, stub) = Self.client(server)
        var attempts: [Int] = []
        for _ in 0..<5 {
            let response = try await client.send(Fixtures.request("x"))
            #expect(response.status == .ok)
            attempts.append(response.metrics.attempts.count)
        }
        // 1: challenged. 2: ahead of time. 3: stale, answered again. 4. 5: stale again.
        #expect(attempts == [2, 1, 2, 1, 2])
        #expect(stub.requests.count == 8)
    }

    @Test("an answer to the request's own challenge met with stale=true is answered again; endless ones fail typed")
    func staleOwnChallenge() async throws {
        let server = DigestServer(.init(staleAnswers: 2))
        let (client, _) = Self.client(server)
        let response = try await client.send(Fixtures.request("x"))
        #expect(response.status == .ok)
        #expect(response.metrics.attempts.count == 4)

        let endless = DigestServer(.init(staleAnswers: 100))
        let (other, stub) = Self.client(endless)
        let error = await #expect(throws: ClientError.self) { _ = try await other.send(Fixtures.request("x")) }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.message.contains("kept sending new Digest challenges") == true)
        #expect(stub.requests.count == 4)
    }

    @Test("a nonce the server forgot (a plain 401 to an answer given ahead of time) is answered once more")
    func forgottenNonce() async throws {
        let server = DigestServer()
        let (client, _) = Self.client(server)
        _ = try await client.send(Fixtures.request("x"))
        server.restart()
        let response = try await client.send(Fixtures.request("x"))
        #expect(response.status == .ok)
        #expect(response.metrics.attempts.count == 2)
    }

    @Test("concurrent requests on one nonce each send a count of their own")
    func concurrentCounts() async throws {
        let server = DigestServer()
        let (client, _) = Self.client(server)
        _ = try await client.send(Fixtures.request("x"))
        let statuses = try await withThrowingTaskGroup(of: HTTPStatus.self) { group in
            for _ in 0..<20 { group.addTask { try await client.send(Fixtures.request("x")).status } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: .ok, count: 20))
        #expect(Set(server.counts).count == 21 && server.counts.count == 21)
    }

    @Test("concurrent first requests challenged with one nonce each send a count of their own")
    func concurrentFirstRequests() async throws {
        let server = DigestServer()
        let (client, _) = Self.client(server)
        let statuses = try await withThrowingTaskGroup(of: HTTPStatus.self) { group in
            for _ in 0..<12 { group.addTask { try await client.send(Fixtures.request("x")).status } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: .ok, count: 12))
        #expect(Set(server.counts).count == server.counts.count)
    }

    @Test("the strongest Digest challenge is answered, whatever else the field or other fields offer")
    func strongestChallenge() async throws {
        let server = DigestServer(
            .init(
                algorithm: "SHA-256",
                otherChallenges:
                    "Basic realm=\"x\", Digest realm=\"http-auth@example.org\", nonce=\"old\", algorithm=MD5, "))
        let (client, stub) = Self.client(server)
        #expect(try await client.send(Fixtures.request("x")).status == .ok)
        #expect(stub.requests.last?.headerFields[.authorization]?.contains("algorithm=SHA-256") == true)
    }

    @Test("a challenge naming only unknown algorithms fails typed, naming them")
    func unknownAlgorithm() async throws {
        let server = DigestServer(.init(algorithm: "SHA3-512"))
        let (client, stub) = Self.client(server)
        let error = await #expect(throws: ClientError.self) { _ = try await client.send(Fixtures.request("x")) }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.message.contains("SHA3-512") == true)
        #expect(stub.requests.count == 1)
    }

    @Test("auth-int over a streamed body, and a -sess algorithm without qop, fail typed without sending an answer")
    func unanswerable() async throws {
        let intOnly = DigestServer(.init(qop: "auth-int"))
        let (client, stub) = Self.client(intOnly)
        let error = await #expect(throws: ClientError.self) {
            _ = try await client.send(Fixtures.request("x", method: .put, body: HTTPBody(Data("abc".utf8))))
            _ = try await client.send(Fixtures.request("x", method: .put, body: Fixtures.oneShotBody("streamed")))
        }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.message.contains("auth-int") == true)
        #expect(stub.requests.count == 2)

        let sessionWithoutQop = DigestServer(.init(algorithm: "MD5-sess", qop: nil))
        let (other, otherStub) = Self.client(sessionWithoutQop)
        let refusal = await #expect(throws: ClientError.self) { _ = try await other.send(Fixtures.request("x")) }
        #expect(refusal?.code == .authenticationFailed)
        #expect(refusal?.message.contains("MD5-sess") == true)
        #expect(otherStub.requests.count == 1)
    }

    @Test("a kept challenge that cannot be answered does not block the origin: the next request draws a new one")
    func unanswerableKeptChallenge() async throws {
        let broken = DigestServer(.init(algorithm: "MD5-sess", qop: nil))
        let fixed = DigestServer()
        let switched = Locked(false)
        let stub = StubTransport(
            fallback: .handler { request in
                switched.withLock { $0 } ? fixed.reply(to: request) : broken.reply(to: request)
            })
        let client = Fixtures.client(stub, interceptors: [DigestAuth(username: "Mufasa", password: "Circle of Life")])
        await #expect(throws: ClientError.self) { _ = try await client.send(Fixtures.request("x")) }
        switched.withLock { $0 = true }
        let response = try await client.send(Fixtures.request("x"))
        #expect(response.status == .ok)
        #expect(response.metrics.attempts.count == 2)
    }

    @Test("a redirect to the same origin is answered again for its own target, with the next count")
    func sameOriginRedirect() async throws {
        let server = DigestServer(.init(redirects: ["/v2/moved": "/v2/target?page=2", "/v2/target": "again"]))
        let (client, stub) = Self.client(server)
        let first = try await client.send(Fixtures.request("moved"))
        #expect(first.status == .ok)
        #expect(first.metrics.attempts.count == 2)
        // Two hops answered ahead of time, each naming its own target.
        let next = try await client.send(Fixtures.request("moved"))
        #expect(next.status == .ok)
        #expect(next.metrics.attempts.count == 1)
        #expect(server.counts == [1, 2, 3, 4, 5, 6])
        #expect(Self.answered("uri", in: stub.requests.suffix(3)) == ["/v2/moved", "/v2/target?page=2", "/v2/again"])
    }

    @Test("on a redirect hop each DigestAuth answers again only its own field: a request's own keeps its user")
    func hopKeepsTheRequestsOwnInterceptor() async throws {
        let server = DigestServer(.init(redirects: ["/v2/moved": "/v2/target"]))
        let stub = server.transport()
        let client = Fixtures.client(stub, interceptors: [DigestAuth(username: "svc", password: "other")])
        // Both interceptors keep the origin's challenge (the client's credentials are refused).
        await #expect(throws: ClientError.self) { _ = try await client.send(Fixtures.request("x")) }
        let own = DigestAuth(username: "Mufasa", password: "Circle of Life")
        server.restart()  // a nonce of its own: the refused answers used up the old one's counts
        #expect(try await Fixtures.client(stub, interceptors: [own]).send(Fixtures.request("x")).status == .ok)
        let response = try await client.send(Fixtures.request("moved").intercepted(by: own))
        #expect(response.status == .ok)
        #expect(Self.answered("username", in: stub.requests.suffix(2)) == ["Mufasa", "Mufasa"])
    }

    @Test("a 401 to a hop back from another origin, which lost the answer on the way, is the call's response")
    func answerLostOnTheWay() async throws {
        let server = DigestServer(.init(redirects: ["/v2/bounce": "https://other.test/away"]))
        let stub = StubTransport(
            fallback: .handler { request in
                guard request.url.host() == "other.test" else { return server.reply(to: request) }
                return .status(.found, headerFields: Fixtures.fields(["Location": "https://api.test/v2/back"]))
            })
        let client = Fixtures.client(stub, interceptors: [DigestAuth(username: "Mufasa", password: "Circle of Life")])
        #expect(try await client.send(Fixtures.request("x")).status == .ok)
        let response = try await client.send(Fixtures.request("bounce"))
        #expect(response.status == .unauthorized)
        #expect(response.metrics.attempts.count == 1)
        #expect(stub.requests.suffix(2).map { $0.headerFields[.authorization] } == [nil, nil])
    }

    @Test("a -sess session key is made once a nonce: every answer to it sends the first client nonce")
    func sessionKeyKept() async throws {
        let server = DigestServer(.init(algorithm: "SHA-256-sess"))
        let (client, stub) = Self.client(server)
        for _ in 0..<3 { #expect(try await client.send(Fixtures.request("x")).status == .ok) }
        let cnonces = Self.answered("cnonce", in: stub.requests).compactMap { $0 }
        #expect(cnonces.count == 3 && Set(cnonces).count == 1)
        #expect(server.counts == [1, 2, 3])
    }

    @Test("a 401 from a redirect to another origin is the call's response: its challenge is not answered")
    func otherOriginChallenge() async throws {
        let server = DigestServer(.init(redirects: ["/v2/away": "https://other.test/v2/x"]))
        let (client, stub) = Self.client(server)
        let response = try await client.send(Fixtures.request("away"))
        #expect(response.status == .unauthorized)
        #expect(response.metrics.attempts.count == 2)
        #expect(stub.requests.count == 3)
        #expect(stub.requests.last?.url.host() == "other.test")
        #expect(stub.requests.last?.headerFields[.authorization] == nil)
    }

    @Test("no answer goes to another origin, and an Authorization field the caller set is left alone")
    func credentialsStayHome() async throws {
        let server = DigestServer()
        let (client, stub) = Self.client(server)
        _ = try await client.send(Fixtures.request("x"))
        let elsewhere = try await client.send(HTTPRequest(url: URL(string: "https://other.test/x")!))
        #expect(elsewhere.status == .unauthorized)
        #expect(stub.requests.last?.headerFields[.authorization] == nil)

        var own = Fixtures.request("x")
        try own.headerFields.set(.authorization, "Digest username=\"someone\"")
        let response = try await client.send(own)
        #expect(response.status == .unauthorized)
        #expect(stub.requests.last?.headerFields[values: .authorization] == ["Digest username=\"someone\""])
    }

    @Test("the Digest field is redacted in logs")
    func redacted() async throws {
        let server = DigestServer()
        let stub = server.transport()
        let lines = Collector<String>()
        let client = Fixtures.client(
            stub,
            interceptors: [
                DigestAuth(username: "Mufasa", password: "Circle of Life"), Logging(.headers) { lines.append($0) },
            ])
        #expect(try await client.send(Fixtures.request("x")).status == .ok)
        let sent = try #require(stub.requests.last?.headerFields[.authorization])
        let response = try #require(AuthChallenge.parse(sent).first?["response"])
        let text = lines.values.joined(separator: "\n")
        #expect(!text.contains(response) && !text.contains("Mufasa"))
        #expect(text.contains("Authorization"))
    }

    @Test("WWW-Authenticate fields parse into challenges: several a field, quoted escapes, token68")
    func parsing() {
        let challenges = AuthChallenge.parse(
            #"Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple", Negotiate abc+/=="#
                + #", Digest realm="a, b", nonce=xyz,qop="auth,auth-int""#)
        #expect(challenges.map(\.scheme) == ["newauth", "basic", "negotiate", "digest"])
        #expect(challenges[0]["title"] == #"Login to "apps""# && challenges[0]["type"] == "1")
        #expect(challenges[2].token68 == "abc+/==" && challenges[2].parameters.isEmpty)
        #expect(challenges[3]["realm"] == "a, b" && challenges[3]["nonce"] == "xyz")
        #expect(DigestChallenge(challenges[3])?.qops == ["auth", "auth-int"])
        #expect(AuthChallenge.parse("Basic").map(\.scheme) == ["basic"])
        // An unclosed quoted string ends the list; what came before it stays.
        #expect(AuthChallenge.parse(#"Basic realm="x", Digest realm="unclosed"#).map(\.scheme) == ["basic", "digest"])
    }
}

/// Digest against httpbin's `/digest-auth/{qop}/{user}/{passwd}/{algorithm}[/{stale_after}]`,
/// through the URLSession transport. httpbin keeps its stale-nonce state in cookies, so these
/// clients keep cookies (a name=value store is enough for one host).
@Suite("Digest authentication against httpbin")
struct DigestAuthIntegrationTests {
    /// Sends back every cookie it was set, by name, to any URL: httpbin is one host.
    final class HostCookies: CookieStore, @unchecked Sendable {
        // Invariant: `cookies` is only touched under `lock`.
        private let lock = NSLock()
        private var cookies: [String: String] = [:]

        func cookieField(for url: URL) -> String? {
            lock.withLock {
                cookies.isEmpty ? nil : cookies.sorted { $0.key < $1.key }.map { "\($0)=\($1)" }.joined(separator: "; ")
            }
        }

        func storeCookies(from response: HTTPResponse, for url: URL) {
            for field in response.headerFields[values: .setCookie] {
                let pair = field.split(separator: ";", maxSplits: 1)[0].split(separator: "=", maxSplits: 1)
                guard pair.count == 2 else { continue }
                lock.withLock { cookies[pair[0].trimmingCharacters(in: .whitespaces)] = String(pair[1]) }
            }
        }
    }

    static func client(user: String = "user", password: String = "passwd") throws -> Client {
        Client(
            baseURL: try TestServers.httpbin(), interceptors: [DigestAuth(username: user, password: password)],
            retry: .none, cookies: HostCookies())
    }

    @Test("MD5 and SHA-256 with qop=auth, challenged then ahead of time", arguments: ["MD5", "SHA-256"])
    func algorithms(_ algorithm: String) async throws {
        let client = try Self.client()
        let path = "digest-auth/auth/user/passwd/\(algorithm)"
        let first = try await client.send(HTTPRequest(url: URL(string: path)!))
        #expect(first.status == .ok)
        #expect(first.metrics.attempts.count == 2)
        let json = try #require(try JSONSerialization.jsonObject(with: first.body) as? [String: Any])
        #expect(json["authenticated"] as? Bool == true && json["user"] as? String == "user")
        let second = try await client.send(HTTPRequest(url: URL(string: path)!))
        #expect(second.status == .ok)
        #expect(second.metrics.attempts.count == 1)
    }

    @Test("a wrong password fails with authenticationFailed")
    func wrongPassword() async throws {
        let client = try Self.client(password: "nope")
        let error = await #expect(throws: ClientError.self) {
            _ = try await client.send(HTTPRequest(url: URL(string: "digest-auth/auth/user/passwd/SHA-256")!))
        }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.attempts.count == 2)
    }

    @Test("stale_after: the stale nonce is answered again without failing")
    func staleAfter() async throws {
        let client = try Self.client()
        var attempts: [Int] = []
        for _ in 0..<5 {
            let response = try await client.send(HTTPRequest(url: URL(string: "digest-auth/auth/user/passwd/MD5/2")!))
            #expect(response.status == .ok)
            attempts.append(response.metrics.attempts.count)
        }
        // Challenged, then two answers ahead of time use the nonce up; the next is stale.
        #expect(attempts == [2, 1, 2, 1, 2])
    }
}
