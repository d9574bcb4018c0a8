import Foundation
import HTTPClientTesting
import HTTPCore
import Testing

@testable import HTTPClient

@Suite("Authentication interceptors")
struct AuthTests {
    @Test("Basic auth sends base64 of user:password in UTF-8")
    func basic() async throws {
        let stub = StubTransport(fallback: .status(.ok))
        _ = try await Fixtures.client(stub, interceptors: [BasicAuth(username: "Aladdin", password: "open sesame")])
            .send(Fixtures.request("x"))
        #expect(stub.requests.first?.headerFields[.authorization] == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
    }

    @Test("Basic auth rejects a user name containing a colon, naming it")
    func basicColon() async throws {
        let stub = StubTransport(fallback: .status(.ok))
        let error = await #expect(throws: ClientError.self) {
            _ = try await Fixtures.client(stub, interceptors: [BasicAuth(username: "a:b", password: "p")])
                .send(Fixtures.request("x"))
        }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.message.contains("'a:b'") == true)
        #expect(stub.requests.isEmpty)
    }

    @Test("an Authorization field already on the request is kept")
    func explicitAuthorizationKept() async throws {
        let stub = StubTransport(fallback: .status(.ok))
        var request = Fixtures.request("x")
        try request.headerFields.set(.authorization, "Custom abc")
        _ = try await Fixtures.client(
            stub, interceptors: [BearerAuth(token: "t"), BasicAuth(username: "u", password: "p")]
        )
        .send(request)
        #expect(stub.requests.first?.headerFields[values: .authorization] == ["Custom abc"])
    }

    @Test("a fixed bearer token is sent and a 401 is returned as it is")
    func bearerFixed() async throws {
        let stub = StubTransport(fallback: .status(.unauthorized))
        let response = try await Fixtures.client(stub, interceptors: [BearerAuth(token: "abc")]).send(
            Fixtures.request("x"))
        #expect(response.status == .unauthorized)
        #expect(stub.requests.map { $0.headerFields[.authorization] } == ["Bearer abc"])
    }

    @Test("a fixed bearer token with a line break fails with authenticationFailed and sends nothing")
    func bearerFixedInvalid() async throws {
        let stub = StubTransport(fallback: .status(.ok))
        let error = await #expect(throws: ClientError.self) {
            _ = try await Fixtures.client(stub, interceptors: [BearerAuth(token: "abc\r\nX-Injected: 1")])
                .send(Fixtures.request("x"))
        }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.underlying is HTTPCoreError)
        #expect(stub.requests.isEmpty)
    }

    /// Answers 200 only to `Bearer fresh-…`, like the fault server's /token-protected.
    static func protectedStub(delay: Duration = .milliseconds(20)) -> StubTransport {
        StubTransport(
            fallback: .handler { request in
                let token = request.headerFields[.authorization] ?? ""
                return token.hasPrefix("Bearer fresh-")
                    ? .status(.ok, body: Data(token.utf8), delay: delay) : .status(.unauthorized, delay: delay)
            })
    }

    @Test("N concurrent 401s trigger exactly one refresh and all retry with the new token")
    func singleFlightRefresh() async throws {
        let refreshes = Collector<String?>()
        let tokens = TokenRefresher(token: "stale") { rejected in
            refreshes.append(rejected)
            try await Task.sleep(for: .milliseconds(100))
            return "fresh-1"
        }
        let stub = Self.protectedStub()
        let client = Fixtures.client(stub, interceptors: [BearerAuth(tokens)], retry: [.attempts(max: 3)])
        let bodies = try await withThrowingTaskGroup(of: Data.self) { group in
            for _ in 0..<50 { group.addTask { try await client.send(Fixtures.request("x")).body } }
            return try await group.reduce(into: [Data]()) { $0.append($1) }
        }
        #expect(refreshes.values == ["stale"])
        #expect(bodies.count == 50)
        #expect(bodies.allSatisfy { $0 == Data("Bearer fresh-1".utf8) })
        #expect(await tokens.token == "fresh-1")
    }

    @Test("a failed refresh fails every waiting request once with authenticationFailed")
    func failedRefresh() async throws {
        struct RefreshDown: Error {}
        let refreshes = Collector<String?>()
        let tokens = TokenRefresher(token: "stale") { rejected in
            refreshes.append(rejected)
            try await Task.sleep(for: .milliseconds(100))
            throw RefreshDown()
        }
        let stub = Self.protectedStub()
        let client = Fixtures.client(stub, interceptors: [BearerAuth(tokens)], retry: [.attempts(max: 3)])
        let errors = await withTaskGroup(of: ClientError?.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    do {
                        _ = try await client.send(Fixtures.request("x"))
                        return nil
                    } catch { return error as? ClientError }
                }
            }
            return await group.reduce(into: [ClientError?]()) { $0.append($1) }
        }
        #expect(refreshes.count == 1)
        #expect(errors.count == 20)
        #expect(errors.allSatisfy { $0?.code == .authenticationFailed && $0?.underlying is RefreshDown })
        #expect(errors.allSatisfy { $0?.response?.status == .unauthorized })
        #expect(stub.requests.count == 20)
    }

    @Test("a 401 after the refresh fails with authenticationFailed instead of looping")
    func rejectedAfterRefresh() async throws {
        let tokens = TokenRefresher(token: "stale") { _ in "fresh-but-revoked" }
        let stub = StubTransport(fallback: .status(.unauthorized))
        let error = await #expect(throws: ClientError.self) {
            _ = try await Fixtures.client(stub, interceptors: [BearerAuth(tokens)]).send(Fixtures.request("x"))
        }
        #expect(error?.code == .authenticationFailed)
        #expect(stub.requests.map { $0.headerFields[.authorization] } == ["Bearer stale", "Bearer fresh-but-revoked"])
    }

    @Test(
        "a 401 to a hop the token did not go to (another origin, or back from one) is the response: no refresh",
        arguments: [false, true])
    func unauthorizedHopWithoutTheToken(_ comesBack: Bool) async throws {
        let refreshes = Collector<String?>()
        let tokens = TokenRefresher(token: "fresh-0") { rejected in
            refreshes.append(rejected)
            return "fresh-1"
        }
        // x redirects to other.test, which answers 401 or redirects back to the client's origin,
        // whose resource answers 401 to a request without the token.
        let stub = StubTransport(
            fallback: .handler { request in
                switch (request.url.host(), request.url.path()) {
                case ("other.test", _):
                    return comesBack
                        ? .status(.found, headerFields: Fixtures.fields(["Location": "https://api.test/v2/back"]))
                        : .status(.unauthorized)
                case (_, "/v2/x"):
                    return .status(.found, headerFields: Fixtures.fields(["Location": "https://other.test/away"]))
                default: return request.headerFields.contains(.authorization) ? .status(.ok) : .status(.unauthorized)
                }
            })
        let response = try await Fixtures.client(stub, interceptors: [BearerAuth(tokens)]).send(Fixtures.request("x"))
        #expect(response.status == .unauthorized)
        #expect(response.metrics.attempts.count == 1)
        #expect(refreshes.values.isEmpty)
        let sent = stub.requests.map { $0.headerFields[.authorization] }
        #expect(sent == ["Bearer fresh-0", nil] + (comesBack ? [nil] : []))
    }

    @Test("with no initial token the refresher fetches one before the first request")
    func lazyFirstToken() async throws {
        let refreshes = Collector<String?>()
        let tokens = TokenRefresher { rejected in
            refreshes.append(rejected)
            return "fresh-0"
        }
        let stub = Self.protectedStub(delay: .zero)
        let response = try await Fixtures.client(stub, interceptors: [BearerAuth(tokens)]).send(Fixtures.request("x"))
        #expect(response.status == .ok)
        #expect(refreshes.values == [nil])
        #expect(stub.requests.count == 1)
    }

    @Test("a later 401 after a successful refresh can refresh again")
    func laterRefresh() async throws {
        let counter = Collector<Int>()
        let tokens = TokenRefresher(token: "stale") { _ in
            counter.append(1)
            return "fresh-\(counter.count)"
        }
        #expect(try await tokens.refresh(after: 0) == "fresh-1")
        #expect(try await tokens.refresh(after: 0) == "fresh-1")
        #expect(try await tokens.refresh(after: 1) == "fresh-2")
        #expect(counter.count == 2)
    }
}

@Suite("Credentials stay with the base URL's origin")
struct CredentialScopeTests {
    @Test(
        "BearerAuth and BasicAuth add nothing to an absolute URL on another origin, and add it on the base URL's",
        arguments: [true, false])
    func scoped(bearer: Bool) async throws {
        let stub = StubTransport(fallback: .status(.ok))
        let auth: any Interceptor = bearer ? BearerAuth(token: "secret") : BasicAuth(username: "u", password: "p")
        let client = Client(
            baseURL: URL(string: "https://api.example.com/v2")!, transport: stub, interceptors: [auth], retry: .none)
        for url in [
            "https://evil.example/steal", "http://api.example.com/v2/x", "https://api.example.com:8443/v2/x",
            "https://api.example.com.evil.example/x",
        ] {
            _ = try await client.send(HTTPRequest(method: .get, url: URL(string: url)!))
        }
        _ = try await client.send(HTTPRequest(method: .get, url: URL(string: "https://API.example.com:443/v2/y")!))
        _ = try await client.send(.get("users/1"))
        let sent = stub.requests.map { ($0.url.absoluteString, $0.headerFields.contains(.authorization)) }
        #expect(sent.map(\.1) == [false, false, false, false, true, true], "\(sent)")
    }

    @Test("a client without a base URL adds credentials to any URL it is given")
    func noBase() async throws {
        let stub = StubTransport(fallback: .status(.ok))
        let client = Client(transport: stub, interceptors: [BearerAuth(token: "t")], retry: .none)
        _ = try await client.send(HTTPRequest(method: .get, url: URL(string: "https://anywhere.example/x")!))
        #expect(stub.requests.first?.headerFields[.authorization] == "Bearer t")
    }
}
