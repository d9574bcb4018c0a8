import Foundation
import HTTPClient
import HTTPCookies
import HTTPCore
import HeronAsyncHTTPClient
import Testing

/// A cookie jar works the same over this transport as over URLSession: the client keeps the
/// cookies above the transport (issue 31).
@Suite("AsyncHTTPClientTransport: a client with a cookie jar")
struct CookieTests {
    /// The cookies httpbin's `/cookies` saw.
    static func seen(_ response: ClientResponse<Data>) throws -> [String: String] {
        struct Seen: Decodable { let cookies: [String: String] }
        return try JSONDecoder().decode(Seen.self, from: response.body).cookies
    }

    @Test("a login flow against httpbin: cookies set on a redirect hop go with the next hop and every later request")
    func loginFlow() async throws {
        let transport = AsyncHTTPClientTransport()
        defer { Task { try? await transport.shutdown() } }
        let jar = CookieJar()
        let client = Client(baseURL: try TransportFixture.httpbin("/"), transport: transport, cookies: jar)
        let login = try await client.send(.get("cookies/set?session=abc123&theme=dark"))
        #expect(login.request.url.path == "/cookies")
        #expect(try Self.seen(login) == ["session": "abc123", "theme": "dark"])
        let later = try await client.send(.get("cookies"))
        #expect(try Self.seen(later) == ["session": "abc123", "theme": "dark"])
        let deleted = try await client.send(.get("cookies/delete?theme"))
        #expect(try Self.seen(deleted) == ["session": "abc123"])
        #expect(jar.allCookies.map(\.name) == ["session"])
    }
}
