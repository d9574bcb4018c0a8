import Foundation
import HTTPEncoding
import Testing

@Suite("Appending queries to URLs")
struct QueryAppendTests {
    @Test(
        "existing items and fragments are kept",
        arguments: [
            ("https://example.com/s", "https://example.com/s?page=2&q=a%20b"),
            ("https://example.com/s?lang=en", "https://example.com/s?lang=en&page=2&q=a%20b"),
            ("https://example.com/s?", "https://example.com/s?page=2&q=a%20b"),
            ("https://example.com/s?a=1&", "https://example.com/s?a=1&page=2&q=a%20b"),
            ("https://example.com/s?x=a+b&y=%2B#top", "https://example.com/s?x=a+b&y=%2B&page=2&q=a%20b#top"),
            ("https://example.com/s#frag", "https://example.com/s?page=2&q=a%20b#frag"),
            ("/relative/path?k=v", "/relative/path?k=v&page=2&q=a%20b"),
        ])
    func keepsExisting(base: String, expected: String) throws {
        let url = try FormEncoder().appendQuery(parameters: ["page": 2, "q": "a b"], to: #require(URL(string: base)))
        #expect(url.absoluteString == expected)
    }

    @Test("nothing to append leaves the URL as it was")
    func nothing() throws {
        let base = try #require(URL(string: "https://example.com/s?lang=en"))
        #expect(try FormEncoder().appendQuery(parameters: [:], to: base) == base)
        #expect(try FormEncoder().appendQuery(["list": [String]()], to: base) == base)
    }

    @Test("a Codable value is appended and reads back from the URL")
    func codable() throws {
        struct Search: Codable, Equatable {
            var q: String
            var tags: [String]
        }
        let value = Search(q: "swift & http?", tags: ["a/b", "c"])
        let url = try FormEncoder().appendQuery(value, to: #require(URL(string: "https://example.com/s?lang=en")))
        #expect(
            url.absoluteString == "https://example.com/s?lang=en&q=swift%20%26%20http%3F&tags%5B%5D=a%2Fb&tags%5B%5D=c")
        #expect(try FormDecoder().decode(Search.self, fromQueryOf: url) == value)
        #expect(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first?.value == "en")
    }
}
