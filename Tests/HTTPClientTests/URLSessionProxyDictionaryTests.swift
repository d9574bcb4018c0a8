import Foundation
import HTTPCore
import Testing

@testable import HTTPClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `connectionProxyDictionary` URLSessionTransport gives URLSession on Apple platforms,
/// made by a pure function compiled and tested on every platform, and the reading of
/// libcurl's proxy failures (the texts libcurl 7.88 wrote against the test proxies).
@Suite("URLSessionTransport: the proxy dictionary and libcurl's proxy failures")
struct URLSessionProxyDictionaryTests {
    static let proxy = Proxy(host: "proxy.internal", port: 3128)

    static func dictionary(_ policy: ProxyPolicy) throws -> [String: String] {
        let made = try URLSessionTransport.proxyDictionary(for: policy)
        var shown: [String: String] = [:]
        for (key, value) in made {
            let name = try #require(key as? String)
            if let list = value as? [String] {
                shown[name] = list.joined(separator: " ")
            } else {
                shown[name] = "\(value)"
            }
        }
        return shown
    }

    @Test("direct disables every kind of proxy, so the system's settings never apply instead")
    func direct() throws {
        #expect(try Self.dictionary(.direct) == ["HTTPEnable": "0", "HTTPSEnable": "0", "SOCKSEnable": "0"])
        #expect(try Self.dictionary(.environment([:])) == ["HTTPEnable": "0", "HTTPSEnable": "0", "SOCKSEnable": "0"])
    }

    @Test("an HTTP proxy serves http and https (through CONNECT), its bypass list as CFNetwork's exceptions")
    func httpProxy() throws {
        let made = try Self.dictionary(.through(Self.proxy, bypass: "localhost, .internal.example, 10.0.0.0/8, ::1"))
        #expect(
            made == [
                "HTTPEnable": "1", "HTTPProxy": "proxy.internal", "HTTPPort": "3128", "HTTPSEnable": "1",
                "HTTPSProxy": "proxy.internal", "HTTPSPort": "3128", "SOCKSEnable": "0",
                "ExceptionsList": "localhost *.localhost internal.example *.internal.example 10.0.0.0/8 ::1",
            ])
    }

    @Test("a SOCKS5 proxy is the SOCKS keys alone")
    func socksProxy() throws {
        let socks = Proxy(.socks5, host: "127.0.0.1", port: 1080)
        #expect(
            try Self.dictionary(.through(socks))
                == [
                    "HTTPEnable": "0", "HTTPSEnable": "0", "SOCKSEnable": "1", "SOCKSProxy": "127.0.0.1",
                    "SOCKSPort": "1080",
                ])
        #expect(
            try Self.dictionary(.environment(["ALL_PROXY": "socks5h://127.0.0.1:1080"]))
                == [
                    "HTTPEnable": "0", "HTTPSEnable": "0", "SOCKSEnable": "1", "SOCKSProxy": "127.0.0.1",
                    "SOCKSPort": "1080",
                ])
    }

    @Test("an environment gives each scheme its own proxy, read as curl reads it (HTTP_PROXY ignored)")
    func environment() throws {
        let made = try Self.dictionary(
            .environment([
                "http_proxy": "http://plain.proxy:8080", "HTTPS_PROXY": "tunnel.proxy:3128", "no_proxy": "example.com",
                "HTTP_PROXY": "http://ignored.proxy:1",
            ]))
        #expect(
            made == [
                "HTTPEnable": "1", "HTTPProxy": "plain.proxy", "HTTPPort": "8080", "HTTPSEnable": "1",
                "HTTPSProxy": "tunnel.proxy", "HTTPSPort": "3128", "SOCKSEnable": "0",
                "ExceptionsList": "example.com *.example.com",
            ])
        let httpsOnly = try Self.dictionary(
            .environment(["https_proxy": "http://tunnel.proxy:3128", "HTTP_PROXY": "x:1"]))
        #expect(httpsOnly["HTTPEnable"] == "0" && httpsOnly["HTTPSEnable"] == "1")
        #expect(try Self.dictionary(.environment(["all_proxy": "http://p:1", "no_proxy": "*"]))["HTTPSEnable"] == "0")
    }

    @Test(
        "what the dictionary cannot hold is refused with proxyUnsupported: credentials, a closure, a port entry, SOCKS beside another proxy, an https proxy"
    )
    func refusals() {
        let withCredentials = Proxy(host: "p", port: 1, credentials: .init(username: "u", password: "S3CRET-dict"))
        let policies: [ProxyPolicy] = [
            .through(withCredentials), .choosing { _ in nil }, .through(Self.proxy, bypass: "example.com:8080"),
            .environment(["http_proxy": "http://u:S3CRET-dict@p:1"]),
            .environment(["http_proxy": "http://p:1", "https_proxy": "socks5://s:1080"]),
            .environment(["https_proxy": "https://p:443"]),
        ]
        for policy in policies {
            let error = #expect(throws: ClientError.self, "\(policy)") {
                _ = try URLSessionTransport.proxyDictionary(for: policy)
            }
            #expect(error?.code == .proxyUnsupported, "\(policy): \(String(describing: error))")
            #expect(error.map { !String(describing: $0).contains("S3CRET") } ?? true)
        }
    }

    static func urlError(_ code: URLError.Code, _ text: String) -> URLError {
        URLError(code, userInfo: [NSLocalizedDescriptionKey: text])
    }

    @Test(
        "libcurl's reports of a proxy's failure become proxy errors naming the proxy",
        arguments: [
            (
                "CONNECT tunnel failed, response 403", URLError.Code.unknown, "proxyConnectFailed",
                "answered CONNECT with 403"
            ),
            ("Received HTTP code 502 from proxy after CONNECT", .unknown, "proxyConnectFailed", "with 502"),
            ("CONNECT tunnel failed, response 407", .unknown, "proxyAuthenticationFailed", "answered CONNECT with 407"),
            ("CONNECT tunnel failed, response 401", .unknown, "proxyAuthenticationFailed", "answered CONNECT with 401"),
            ("Can't complete SOCKS5 connection to 127.0.0.1. (5)", .unknown, "proxyConnectFailed", "SOCKS proxy"),
            (
                "No authentication method was acceptable.", .unknown, "proxyAuthenticationFailed",
                "asked for credentials"
            ),
            (
                "User was rejected by the SOCKS5 server (1 2).", .unknown, "proxyAuthenticationFailed",
                "User was rejected"
            ),
            (
                "Could not resolve proxy: proxy.internal", .unknown, "proxyConnectFailed",
                "host name could not be resolved"
            ),
            (
                "Failed to connect to 127.0.0.1 port 1 after 0 ms: Couldn't connect to server", .cannotConnectToHost,
                "proxyConnectFailed", "no connection to the proxy"
            ),
        ])
    func libcurlTexts(text: String, code: URLError.Code, expected: String, phrase: String) throws {
        let request = HTTPRequest(url: URL(string: "https://origin.example/")!)
        let proxy = Proxy(host: "127.0.0.1", port: 3128)
        let mapped = URLSessionTransport.mapError(
            Self.urlError(code, text), request: request, response: HTTPResponse(status: .ok), proxy: proxy)
        let error = try #require(mapped as? ClientError)
        #expect(error.code.rawValue == expected, "\(error)")
        #expect(error.message.contains(phrase) && error.message.contains("127.0.0.1:3128"), "\(error.message)")
        // The head libcurl passed on was the proxy's answer to CONNECT, not the origin's.
        #expect(error.response == nil)
    }

    @Test("without a proxy the same texts keep their ordinary meaning")
    func noProxyNoProxyError() throws {
        let request = HTTPRequest(url: URL(string: "https://origin.example/")!)
        let refused = URLSessionTransport.mapError(
            Self.urlError(.cannotConnectToHost, "Failed to connect to origin.example port 443"), request: request,
            response: nil)
        #expect((refused as? ClientError)?.code == .cannotConnect)
        #expect((refused as? ClientError)?.message.contains("proxy") == false)
        let tunnel = URLSessionTransport.mapError(
            Self.urlError(.unknown, "CONNECT tunnel failed, response 403"), request: request, response: nil)
        #expect((tunnel as? ClientError)?.code == .transport)
    }

    @Test("a certificate refused through a proxy is still serverTrustFailed")
    func trustThroughProxy() throws {
        let mapped = URLSessionTransport.mapError(
            Self.urlError(.unknown, "SSL certificate problem: unable to get local issuer certificate"),
            request: HTTPRequest(url: URL(string: "https://origin.example/")!), response: nil, proxy: Self.proxy)
        #expect((mapped as? ClientError)?.code == .serverTrustFailed)
    }
}
