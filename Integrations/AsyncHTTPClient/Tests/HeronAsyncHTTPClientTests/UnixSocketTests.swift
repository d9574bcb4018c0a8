import Foundation
import HTTPCache
import HTTPClient
import HTTPClientTesting
import HTTPCookies
import HTTPCore
import Testing

@testable import HeronAsyncHTTPClient

/// Requests over Unix domain sockets, against the fault server listening on the two sockets of
/// `scripts/with-servers` (`HERON_UNIX_SOCKET_A`, `HERON_UNIX_SOCKET_B`; its `/whoami` names
/// the socket a request came in on, with `Cache-Control: max-age=600`): they work through
/// Heron's client, and the cache, the cookie jar and a HAR recording keep two sockets apart.
@Suite("AsyncHTTPClientTransport: Unix domain sockets")
struct UnixSocketTests {
    /// The path of the socket in `variable`.
    static func socket(_ variable: String) throws -> String {
        guard let path = ProcessInfo.processInfo.environment[variable] else {
            throw TransportFixture.MissingServer(variable: variable)
        }
        return path
    }

    /// `http+unix://<the socket's path, percent-encoded>` and `pathAndQuery`.
    static func url(_ socket: String, _ pathAndQuery: String = "/") throws -> URL {
        let host = try #require(socket.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        return try #require(URL(string: "http+unix://\(host)\(pathAndQuery)"))
    }

    /// The socket `/whoami` answered on.
    static func whoami(_ body: Data) throws -> String? {
        struct Answer: Decodable { let socket: String? }
        return try JSONDecoder().decode(Answer.self, from: body).socket
    }

    @Test("a client whose base URL is a socket: the request reaches it, and a relative redirect stays on it")
    func client() async throws {
        let socket = try Self.socket("HERON_UNIX_SOCKET_A")
        let transport = try AsyncHTTPClientTransport(proxy: .direct)
        defer { Task { try? await transport.shutdown() } }
        let client = Client(baseURL: try Self.url(socket), transport: transport)
        let response = try await client.send(.get("whoami"))
        #expect(response.status == .ok)
        #expect(try Self.whoami(response.body) == socket)

        let redirected = try await client.send(.get("redirect?to=/whoami&status=302"))
        #expect(try Self.whoami(redirected.body) == socket)
        #expect(redirected.request.url.host(percentEncoded: false) == socket)
        #expect(redirected.request.url.path == "/whoami")
    }

    @Test("the text of a socket base URL is accepted too, and unix:///path asks the socket for /")
    func textAndUnixForm() async throws {
        let socket = try Self.socket("HERON_UNIX_SOCKET_B")
        let transport = try AsyncHTTPClientTransport(proxy: .direct)
        defer { Task { try? await transport.shutdown() } }
        let client = Client(baseURL: try Self.url(socket, "/").absoluteString, transport: transport)
        #expect(try Self.whoami(try await client.send(.get("whoami")).body) == socket)

        // `unix:` has no room for a path: the request is for `/`, which the fault server does not know.
        let unix = try #require(URL(string: "unix://\(socket)"))
        let root = try await transport.send(HTTPRequest(url: unix), options: TransportOptions())
        #expect(root.head.status == .notFound)
        let answer = try await TransportFixture.json(root)
        #expect((answer["error"] as? String)?.contains("'/'") == true, "\(answer)")
    }

    @Test("a socket URL never goes through a proxy")
    func neverProxied() async throws {
        let socket = try Self.socket("HERON_UNIX_SOCKET_A")
        let transport = try AsyncHTTPClientTransport(proxy: .through(Proxy(host: "127.0.0.1", port: 1)))
        defer { Task { try? await transport.shutdown() } }
        let response = try await transport.send(
            HTTPRequest(url: try Self.url(socket, "/whoami")), options: TransportOptions())
        #expect(response.proxy == nil)
        #expect(try Self.whoami(try await TransportFixture.data(response)) == socket)
        #expect(transport.proxyClients?.count == 0)
    }

    @Test("a cache over the transport keeps two sockets apart: socket A's stored /whoami never answers socket B")
    func cacheKeepsSocketsApart() async throws {
        let (a, b) = (try Self.socket("HERON_UNIX_SOCKET_A"), try Self.socket("HERON_UNIX_SOCKET_B"))
        let transport = try AsyncHTTPClientTransport(proxy: .direct)
        defer { Task { try? await transport.shutdown() } }
        let client = Client(transport: CachingTransport(wrapping: transport))
        let first = try await client.send(HTTPRequest(url: try Self.url(a, "/whoami")))
        #expect(try Self.whoami(first.body) == a)
        let again = try await client.send(HTTPRequest(url: try Self.url(a, "/whoami")))
        #expect(again.cacheOutcome == .hit)
        #expect(try Self.whoami(again.body) == a)
        let other = try await client.send(HTTPRequest(url: try Self.url(b, "/whoami")))
        #expect(other.cacheOutcome != .hit)
        #expect(try Self.whoami(other.body) == b)
    }

    @Test("a cookie set over socket A goes back to A and never to socket B")
    func cookiesKeepSocketsApart() async throws {
        let (a, b) = (try Self.socket("HERON_UNIX_SOCKET_A"), try Self.socket("HERON_UNIX_SOCKET_B"))
        let transport = try AsyncHTTPClientTransport(proxy: .direct)
        defer { Task { try? await transport.shutdown() } }
        let jar = CookieJar()
        let client = Client(transport: transport, cookies: jar)
        _ = try await client.send(HTTPRequest(url: try Self.url(a, "/set-cookie?name=session&value=socket-a")))
        #expect(jar.allCookies.map(\.name) == ["session"])
        func cookies(_ socket: String) async throws -> [String]? {
            let response = try await client.send(HTTPRequest(url: try Self.url(socket, "/headers")))
            let fields = try JSONSerialization.jsonObject(with: response.body) as? [String: [String]]
            return fields?["cookie"]
        }
        #expect(try await cookies(a) == ["session=socket-a"])
        #expect(try await cookies(b) == nil)
    }

    @Test("a HAR recording names each socket in its entries' URLs")
    func harKeepsSocketsApart() async throws {
        let (a, b) = (try Self.socket("HERON_UNIX_SOCKET_A"), try Self.socket("HERON_UNIX_SOCKET_B"))
        let transport = try AsyncHTTPClientTransport(proxy: .direct)
        defer { Task { try? await transport.shutdown() } }
        let recorder = HARRecorder(wrapping: transport)
        let client = Client(transport: recorder)
        for socket in [a, b] { _ = try await client.send(HTTPRequest(url: try Self.url(socket, "/whoami"))) }
        let urls = recorder.entries.map(\.request.url)
        #expect(urls == [try Self.url(a, "/whoami").absoluteString, try Self.url(b, "/whoami").absoluteString])

        // Replayed, each socket gets its own answer.
        let replay = Client(transport: try HARReplayTransport(data: recorder.harData()))
        for socket in [b, a] {
            let response = try await replay.send(HTTPRequest(url: try Self.url(socket, "/whoami")))
            #expect(try Self.whoami(response.body) == socket)
        }
    }

    @Test("socket paths that differ only in case are two sockets to the cache key, the cookie jar and a HAR replay")
    func socketPathsKeepTheirCase() async throws {
        let upper = try Self.url("/run/Heron.sock", "/x")
        let lower = try Self.url("/run/heron.sock", "/x")
        #expect(CacheKey(url: upper, partition: "") != CacheKey(url: lower, partition: ""))

        let jar = CookieJar()
        jar.store(setCookie: ["a=1"], for: upper)
        #expect(jar.cookieField(for: upper) == "a=1")
        #expect(jar.cookieField(for: lower) == nil)
        // The same socket in its unix: form shares them.
        #expect(jar.cookieField(for: URL(string: "unix:///run/Heron.sock")!) == "a=1")
        // A Domain attribute naming a "parent" of the socket's path is refused: a socket is its
        // own host, as an IP address is, so the cookie never reaches another socket.
        let one = try Self.url("/run/one.heron.sock", "/")
        #expect(jar.store(setCookie: ["b=2; Domain=heron.sock"], for: one).stored.isEmpty)
        #expect(jar.cookieField(for: try Self.url("/run/two.heron.sock", "/")) == nil)

        // A HAR replay matches each recorded socket's entry.
        let recorder = HARRecorder(wrapping: EchoHost())
        for url in [upper, lower] {
            _ = try await TransportFixture.data(recorder.send(HTTPRequest(url: url), options: TransportOptions()))
        }
        let replay = try HARReplayTransport(data: recorder.harData())
        for url in [lower, upper] {
            let response = try await replay.send(HTTPRequest(url: url), options: TransportOptions())
            #expect(try await TransportFixture.data(response) == Data(url.host(percentEncoded: false)!.utf8))
        }
    }

    /// A transport that answers every request with its URL's host, decoded.
    struct EchoHost: ClientTransport {
        func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
            let host = request.url.host(percentEncoded: false) ?? ""
            return TransportResponse(
                head: HTTPResponse(status: .ok, headerFields: HTTPFields(), url: request.url), body: HTTPBody(host))
        }
    }
}
