import Foundation
import HTTPClientTesting
import HTTPCore
import Testing

@testable import HTTPClient

@Suite("Redirects")
struct RedirectTests {
    func redirect(_ code: Int, to location: String) -> HTTPResponse {
        HTTPResponse(status: try! HTTPStatus(code: code), headerFields: Fixtures.fields(["Location": location]))
    }

    func post() throws -> HTTPRequest {
        HTTPRequest(
            method: .post, url: URL(string: "https://a.test/form")!,
            headerFields: try HTTPFields(["Content-Type": "text/plain", "Content-Length": "4"]), body: HTTPBody("data"))
    }

    @Test("303 turns any method into GET without a body or content fields")
    func seeOther() throws {
        let next = try #require(
            try RedirectFollower.nextRequest(after: try post(), response: redirect(303, to: "/done")))
        #expect(next.method == .get)
        #expect(next.body == nil)
        #expect(!next.headerFields.contains(.contentType))
        #expect(!next.headerFields.contains(.contentLength))
        #expect(next.url.absoluteString == "https://a.test/done")
    }

    @Test("301 and 302 turn POST into GET but keep PUT", arguments: [301, 302])
    func movedAndFound(code: Int) throws {
        let fromPost = try #require(
            try RedirectFollower.nextRequest(after: try post(), response: redirect(code, to: "/b")))
        #expect(fromPost.method == .get)
        #expect(fromPost.body == nil)
        var put = try post()
        put.method = .put
        let fromPut = try #require(try RedirectFollower.nextRequest(after: put, response: redirect(code, to: "/b")))
        #expect(fromPut.method == .put)
        #expect(fromPut.body != nil)
    }

    @Test("307 and 308 keep the method and body", arguments: [307, 308])
    func temporaryAndPermanent(code: Int) async throws {
        let next = try #require(try RedirectFollower.nextRequest(after: try post(), response: redirect(code, to: "/b")))
        #expect(next.method == .post)
        #expect(try await next.body?.collect(upTo: 100) == Data("data".utf8))
        #expect(next.headerFields[.contentType] == "text/plain")
    }

    @Test("307 with a one-shot body fails with bodyNotReplayable")
    func oneShotBody() throws {
        var request = try post()
        request.body = Fixtures.oneShotBody("data")
        let error = #expect(throws: ClientError.self) {
            try RedirectFollower.nextRequest(after: request, response: redirect(307, to: "/b"))
        }
        #expect(error?.code == .bodyNotReplayable)
    }

    @Test(
        "credentials and an explicit Host are dropped when the origin changes",
        arguments: [
            ("https://b.test/x", false), ("http://a.test/x", false), ("https://a.test:8443/x", false),
            ("https://a.test:443/x", true), ("/relative", true), ("https://A.TEST/x", true),
        ])
    func crossOrigin(location: String, keeps: Bool) throws {
        let request = HTTPRequest(
            url: URL(string: "https://a.test/start")!,
            headerFields: try HTTPFields([
                "Authorization": "Bearer t", "Cookie": "a=b", "Proxy-Authorization": "Basic x", "Accept": "*/*",
                "Host": "a.test",
            ]))
        let next = try #require(try RedirectFollower.nextRequest(after: request, response: redirect(302, to: location)))
        #expect(next.headerFields.contains(.authorization) == keeps)
        #expect(next.headerFields.contains(.cookie) == keeps)
        #expect(next.headerFields.contains(.proxyAuthorization) == keeps)
        #expect(next.headerFields.contains(.host) == keeps)
        #expect(next.headerFields[.accept] == "*/*")
    }

    @Test("a non-redirect status or a redirect without Location is not followed", arguments: [200, 304, 300, 302])
    func notFollowed(code: Int) throws {
        let response = HTTPResponse(status: try HTTPStatus(code: code))
        #expect(try RedirectFollower.nextRequest(after: try post(), response: response) == nil)
    }

    @Test("a Location that is not http(s) fails with invalidResponse")
    func badLocation() throws {
        let error = #expect(throws: ClientError.self) {
            try RedirectFollower.nextRequest(after: try post(), response: redirect(302, to: "file:///etc/passwd"))
        }
        #expect(error?.code == .invalidResponse)
    }

    @Test("the client follows a chain of redirects and reports the final URL")
    func clientFollows() async throws {
        let stub = StubTransport()
        stub.on(.path("/v2/a"), reply: .status(.found, headerFields: Fixtures.fields(["Location": "/v2/b"])))
        stub.on(.path("/v2/b"), reply: .status(.movedPermanently, headerFields: Fixtures.fields(["Location": "c"])))
        stub.on(.path("/v2/c"), reply: .status(.ok, body: Data("end".utf8)))
        let response = try await Fixtures.client(stub).send(Fixtures.request("a"))
        #expect(response.body == Data("end".utf8))
        #expect(response.head.url?.absoluteString == "https://api.test/v2/c")
        #expect(response.metrics.redirects == 2)
        #expect(stub.requests.map(\.url.path) == ["/v2/a", "/v2/b", "/v2/c"])
    }

    @Test("more redirects than the limit fail with tooManyRedirects")
    func limit() async throws {
        let stub = StubTransport(fallback: .status(.found, headerFields: Fixtures.fields(["Location": "/loop"])))
        let error = await #expect(throws: ClientError.self) {
            _ = try await Fixtures.client(stub, redirectLimit: 3).send(Fixtures.request("loop"))
        }
        #expect(error?.code == .tooManyRedirects)
        #expect(stub.requests.count == 4)
    }

    @Test("a redirect limit of 0 returns the redirect unfollowed")
    func zeroLimit() async throws {
        let stub = StubTransport(fallback: .status(.found, headerFields: Fixtures.fields(["Location": "/x"])))
        let response = try await Fixtures.client(stub, redirectLimit: 0).send(Fixtures.request("loop"))
        #expect(response.status == .found)
        #expect(stub.requests.count == 1)
    }
}

@Suite("The client's default credential fields")
struct DefaultCredentialFieldTests {
    @Test("go only to the base URL's origin; other default fields go everywhere")
    func stayHome() async throws {
        let stub = StubTransport(fallback: .status(.ok))
        let client = Client(
            baseURL: URL(string: "https://api.example.com/v1/")!,
            headerFields: try HTTPFields([
                .authorization: "Bearer s3cret", .cookie: "id=c00kie", .accept: "application/json",
            ]),
            transport: stub, retry: .none)
        _ = try await client.send(HTTPRequest.get("users"))
        _ = try await client.send(HTTPRequest.get("https://elsewhere.example/hook"))
        _ = try await client.send(HTTPRequest.get("http://api.example.com/v1/users"))
        let sent = stub.requests
        #expect(sent.map { $0.headerFields[.authorization] } == ["Bearer s3cret", nil, nil])
        #expect(sent.map { $0.headerFields[.cookie] } == ["id=c00kie", nil, nil])
        #expect(sent.map { $0.headerFields[.accept] } == Array(repeating: "application/json", count: 3))
    }

    @Test("without a base URL they go with every request")
    func noBaseURL() async throws {
        let stub = StubTransport(fallback: .status(.ok))
        let client = Client(
            headerFields: try HTTPFields([.authorization: "Bearer s3cret"]), transport: stub, retry: .none)
        _ = try await client.send(HTTPRequest.get("https://elsewhere.example/hook"))
        #expect(stub.requests.first?.headerFields[.authorization] == "Bearer s3cret")
    }
}
