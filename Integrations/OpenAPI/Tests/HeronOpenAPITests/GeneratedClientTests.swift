import Foundation
import HTTPClient
import HeronOpenAPI
import OpenAPIRuntime
import Testing

// The generated `Client` (Generated/Client.swift) is this module's own and hides Heron's,
// which is written `HTTPClient.Client` here, as in an app's target that holds generated code.

/// The client swift-openapi-generator made from openapi.yaml, sending through Heron's client to
/// the local httpbin.
@Suite("A generated client through HeronTransport, against httpbin")
struct GeneratedClientTests {
    /// A generated client on `serverURL`, through a Heron client that retries nothing (so that
    /// every status reaches the generated code as it came).
    static func api(_ serverURL: URL, interceptors: [any Interceptor] = []) -> Client {
        let heron = HTTPClient.Client(baseURL: serverURL, interceptors: interceptors, retry: .none)
        return Client(serverURL: serverURL, transport: HeronTransport(client: heron))
    }

    @Test("GET with a query: the parameters reach httpbin encoded, the JSON answer decodes")
    func query() async throws {
        let api = Self.api(try TestServers.httpbin())
        let output = try await api.getEcho(query: .init(greeting: "hello, world & more+", count: 3))
        let echo = try output.ok.body.json
        #expect(echo.args.additionalProperties == ["greeting": "hello, world & more+", "count": "3"])
        #expect(echo.url.hasSuffix("/get?greeting=hello,%20world%20%26%20more%2B&count=3"))
        #expect(echo.headers.additionalProperties["Accept"] == "application/json")
    }

    @Test("POST with a JSON body: sent whole with its Content-Length, echoed back")
    func jsonBody() async throws {
        let api = Self.api(try TestServers.httpbin())
        let output = try await api.postGreeting(body: .json(.init(name: "Ada", count: 2)))
        let echo = try output.ok.body.json
        #expect(echo.json == Components.Schemas.Greeting(name: "Ada", count: 2))
        #expect(echo.headers.additionalProperties["Content-Type"] == "application/json; charset=utf-8")
        #expect(echo.headers.additionalProperties["Content-Length"] == String(echo.data.utf8.count))
        #expect(echo.headers.additionalProperties["Transfer-Encoding"] == nil)
    }

    @Test("Documented statuses reach the generated code as their cases", arguments: [200, 404, 503])
    func documentedStatus(code: Int) async throws {
        let api = Self.api(try TestServers.httpbin())
        let output = try await api.status(path: .init(code: code))
        switch (code, output) {
        case (200, .ok), (404, .notFound), (503, .serviceUnavailable): break
        default: Issue.record("status \(code) came as \(output)")
        }
    }

    @Test("A documented 418 carries its header field and its text body")
    func teapot() async throws {
        let api = Self.api(try TestServers.httpbin())
        let teapot = try await api.status(path: .init(code: 418)).code418
        #expect(teapot.headers.xMoreInfo == "http://tools.ietf.org/html/rfc2324")
        #expect(try await String(collecting: teapot.body.plainText, upTo: 1024).contains("-=[ teapot ]=-"))
    }

    @Test("An undocumented status reaches the generated code as .undocumented", arguments: [409, 500])
    func undocumentedStatus(code: Int) async throws {
        let api = Self.api(try TestServers.httpbin())
        guard case .undocumented(let status, let payload) = try await api.status(path: .init(code: code)) else {
            Issue.record("status \(code) was documented")
            return
        }
        #expect(status == code)
        #expect(payload.headerFields[.contentType] == "text/html; charset=utf-8")
    }

    @Test("Basic credentials from Heron's BasicAuth interceptor; without them a documented 401")
    func basicAuth() async throws {
        let url = try TestServers.httpbin()
        let authenticated = Self.api(url, interceptors: [BasicAuth(username: "ada", password: "s3cret")])
        let ok = try await authenticated.basicAuth(path: .init(user: "ada", password: "s3cret")).ok.body.json
        #expect(ok.authenticated)
        #expect(ok.user == "ada")

        let anonymous = Self.api(url)
        let refused = try await anonymous.basicAuth(path: .init(user: "ada", password: "s3cret")).unauthorized
        #expect(refused.headers.wwwAuthenticate == "Basic realm=\"Fake Realm\"")
    }

    @Test("A binary response keeps its Content-Length as the body's known length")
    func binaryBody() async throws {
        let api = Self.api(try TestServers.httpbin())
        let body = try await api.bytes(path: .init(n: 70_000)).ok.body.binary
        #expect(body.length == .known(70_000))
        #expect(body.iterationBehavior == .single)
        let bytes = try await [UInt8](collecting: body, upTo: 1 << 20)
        #expect(bytes.count == 70_000)
    }

    @Test("The server URL's path is a prefix of every operation's path, a trailing slash counted once")
    func serverURLPath() async throws {
        let base = try TestServers.httpbin()
        for prefix in ["anything/v1", "anything/v1/"] {
            let api = Self.api(base.appendingPathComponent(prefix))
            let echo = try await api.getEcho(query: .init(greeting: "hi")).ok.body.json
            #expect(echo.url == base.absoluteString + "/anything/v1/get?greeting=hi")
        }
    }
}
