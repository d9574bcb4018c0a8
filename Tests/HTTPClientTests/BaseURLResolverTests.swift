import Foundation
import HTTPCore
import Testing

@testable import HTTPClient

@Suite("Base URL resolution")
struct BaseURLResolverTests {
    @Test(
        "relative paths keep the base URL's path prefix",
        arguments: [
            ("https://api.test/v2", "users", "https://api.test/v2/users"),
            ("https://api.test/v2", "/users", "https://api.test/v2/users"),
            ("https://api.test/v2/", "users", "https://api.test/v2/users"),
            ("https://api.test/v2/", "/users", "https://api.test/v2/users"),
            ("https://api.test", "users", "https://api.test/users"),
            ("https://api.test/", "/users/42", "https://api.test/users/42"),
            ("https://api.test/v2", "users?page=2", "https://api.test/v2/users?page=2"),
            ("https://api.test/v2?key=k", "users?page=2", "https://api.test/v2/users?key=k&page=2"),
            ("https://api.test/v2", "?page=2", "https://api.test/v2?page=2"),
            ("https://api.test/v2", "a%20b/c", "https://api.test/v2/a%20b/c"),
            ("http://127.0.0.1:8080/api/v1/", "items/", "http://127.0.0.1:8080/api/v1/items/"),
        ])
    func resolvesAgainstPrefix(base: String, path: String, expected: String) throws {
        let resolver = BaseURLResolver(baseURL: URL(string: base)!)
        let url = URL(string: path)!
        let resolved = try resolver.resolve(url, for: HTTPRequest(url: url))
        #expect(resolved.absoluteString == expected)
    }

    @Test("an absolute URL is used as it is")
    func absoluteURLUnchanged() throws {
        let resolver = BaseURLResolver(baseURL: URL(string: "https://api.test/v2")!)
        let url = URL(string: "http://other.test:81/x?y=1")!
        #expect(try resolver.resolve(url, for: HTTPRequest(url: url)).absoluteString == "http://other.test:81/x?y=1")
    }

    @Test("a scheme-relative URL takes the base URL's scheme")
    func schemeRelative() throws {
        let resolver = BaseURLResolver(baseURL: URL(string: "https://api.test/v2")!)
        let url = URL(string: "//cdn.test/a.png")!
        #expect(try resolver.resolve(url, for: HTTPRequest(url: url)).absoluteString == "https://cdn.test/a.png")
    }

    @Test("a relative URL without a base URL fails with invalidRequest naming it")
    func relativeWithoutBase() {
        let resolver = BaseURLResolver(baseURL: nil)
        let url = URL(string: "users")!
        let error = #expect(throws: ClientError.self) { try resolver.resolve(url, for: HTTPRequest(url: url)) }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("'users'") == true)
    }
}
