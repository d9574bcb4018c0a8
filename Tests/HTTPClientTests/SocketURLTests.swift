import Foundation
import HTTPClientTesting
import HTTPCore
import Testing

@testable import HTTPClient

/// Unix-socket URLs as AsyncHTTPClient writes them (`http+unix://%2Fpath%2Fto.sock/path`,
/// `https+unix://…`, `unix:///path/to.sock`): the client accepts them as its base URL, a
/// relative redirect stays on the socket, and a socket's path keeps its case.
@Suite("Unix-socket URLs")
struct SocketURLTests {
    static let socket = URL(string: "http+unix://%2Frun%2FHeron.sock/v1/info")!

    func redirect(to location: String) -> HTTPResponse {
        HTTPResponse(status: .found, headerFields: Fixtures.fields(["Location": location]))
    }

    @Test("the client takes a socket URL's text as its base URL; not a socket scheme without a socket")
    func baseURLText() async throws {
        let stub = StubTransport(fallback: .status(.ok))
        let client = Client(baseURL: "http+unix://%2Frun%2FHeron.sock/v1", transport: stub)
        _ = try await client.send(.get("info"))
        #expect(stub.requests.map(\.url.absoluteString) == ["http+unix://%2Frun%2FHeron.sock/v1/info"])
        for text in ["http+unix:///v1", "unix:///", "ftp://host/"] {
            let refused = Client(baseURL: text, transport: stub)
            let error = await #expect(throws: ClientError.self, "\(text)") { _ = try await refused.send(.get("x")) }
            #expect(error?.code == .invalidRequest)
        }
    }

    @Test("a relative redirect stays on the socket, in both forms")
    func relativeRedirect() throws {
        let next = try #require(
            try RedirectFollower.nextRequest(after: HTTPRequest(url: Self.socket), response: redirect(to: "/v1/other")))
        #expect(next.url.absoluteString == "http+unix://%2Frun%2FHeron.sock/v1/other")
        let unix = HTTPRequest(url: URL(string: "unix:///run/Heron.sock")!)
        let fromUnix = try #require(try RedirectFollower.nextRequest(after: unix, response: redirect(to: "/v1/other")))
        #expect(fromUnix.url.host(percentEncoded: false) == "/run/Heron.sock")
        #expect(fromUnix.url.path == "/v1/other")
    }

    @Test("a redirect to another socket is another origin, even one whose path differs only in case")
    func otherSocketIsAnotherOrigin() throws {
        var request = HTTPRequest(url: Self.socket)
        request.headerFields[.authorization] = "Bearer t"
        let same = try #require(
            try RedirectFollower.nextRequest(after: request, response: redirect(to: "/v2")))
        #expect(same.headerFields[.authorization] == "Bearer t")
        let other = try #require(
            try RedirectFollower.nextRequest(
                after: request, response: redirect(to: "http+unix://%2Frun%2Fheron.sock/v1/info")))
        #expect(other.headerFields[.authorization] == nil)
    }

    @Test("the equivalence key of a socket URL keeps the socket path's case, and lowercases a host's")
    func equivalenceKeepsSocketCase() {
        let upper = URL(string: "http+unix://%2Frun%2FHeron.sock/x")!
        let lower = URL(string: "http+unix://%2Frun%2Fheron.sock/x")!
        #expect(upper.equivalenceKey != lower.equivalenceKey)
        #expect(URL(string: "http://Example.com/x")!.equivalenceKey == "http://example.com/x")
    }
}
