import Foundation
import HTTPCore
import HTTPEncoding
import Testing

/// The examples of `Docs/HTTPEncoding.md` and the DocC comments, run with the outputs they claim.
@Suite("Documentation examples")
struct DocExamplesTests {
    struct Search: Codable, Equatable {
        var query: String
        var tags: [String]
        var page: Int
        var exact: Bool
        var since: Date?
    }

    static let search = Search(query: "swift & http", tags: ["z", "a"], page: 2, exact: true, since: nil)

    @Test("guide: the opening example")
    func opening() async throws {
        let encoder = FormEncoder()
        let query = try encoder.encodeQuery(Self.search)
        #expect(query == "exact=1&page=2&query=swift%20%26%20http&tags%5B%5D=z&tags%5B%5D=a")
        let url = try encoder.appendQuery(
            Self.search, to: #require(URL(string: "https://example.com/search?lang=en#results")))
        #expect(
            url.absoluteString
                == "https://example.com/search?lang=en&exact=1&page=2&query=swift%20%26%20http&tags%5B%5D=z&tags%5B%5D=a#results"
        )
        let form = try encoder.encodeBody(Self.search)
        #expect(
            String(decoding: try await form.body.collect(upTo: 1024), as: UTF8.self)
                == "exact=1&page=2&query=swift+%26+http&tags%5B%5D=z&tags%5B%5D=a")
        #expect(form.contentType.description == "application/x-www-form-urlencoded")
        #expect(try FormDecoder().decode(Search.self, from: query) == Self.search)
    }

    @Test("guide: a custom style")
    func customStyle() throws {
        let style = FormStyle(arrays: .indexed, bools: .literal, nesting: .dots, nils: .emptyValue, brackets: .literal)
        let custom = FormEncoder(style: style, keyEncodingStrategy: .convertToSnakeCase)
        #expect(
            try custom.encodeQuery(Self.search)
                == "exact=true&page=2&query=swift%20%26%20http&since=&tags[0]=z&tags[1]=a")
    }

    @Test("guide: strategies on their own")
    func strategies() throws {
        #expect(KeyEncodingStrategy.convertToSnakeCase.encode("homeAddress") == "home_address")
        #expect(
            try DateEncodingStrategy.secondsSince1970.encode(Date(timeIntervalSince1970: 1_700_000_000)) == "1700000000"
        )
    }

    @Test("guide: untyped parameters and their error")
    func untyped() throws {
        let parameters: [String: Any] = [
            "page": 1, "tags": ["a", "b"], "date": Date(timeIntervalSince1970: 0), "disabled": false,
            "filter": ["status": "open", "owner": NSNull()],
        ]
        #expect(
            try FormEncoder().encodeQuery(parameters: parameters)
                == "date=1970-01-01T00%3A00%3A00Z&disabled=0&filter%5Bstatus%5D=open&page=1&tags%5B%5D=a&tags%5B%5D=b")
        let error = #expect(throws: HTTPEncodingError.self) {
            try FormEncoder().encodeQuery(parameters: ["filter": ["ids": [1, NSObject()]]])
        }
        #expect(
            error?.description.hasPrefix(
                #"unsupportedValue at filter[ids][1]: "NSObject": an untyped parameter must be"#) == true)
    }

    @Test("guide and DocC: string fields without try, and the same fields on a request")
    func stringFields() async throws {
        let text = FormEncoder().encode(["user": "ada", "q": "a b&c"])
        #expect(text == "q=a+b%26c&user=ada")
        let login = HTTPRequest.post("login").form(["user": "ada", "password": "s3cret"])
        #expect(login.headerFields[.contentType] == "application/x-www-form-urlencoded")
        let body = try await #require(login.body).collect(upTo: 1024)
        #expect(String(decoding: body, as: UTF8.self) == "password=s3cret&user=ada")
        #expect(FormEncoder().encode(["a[": "1"]) == "a%5B=1")
        #expect(throws: HTTPEncodingError.self) { try FormEncoder().encodeQuery(parameters: ["a[": "1"]) }
    }

    @Test("guide and DocC: decoding errors name the key path")
    func decodingError() {
        struct Page: Decodable { var page: Int }
        let error = #expect(throws: HTTPEncodingError.self) { try FormDecoder().decode(Page.self, from: "page=two") }
        #expect(error?.description == #"typeMismatch at page: "two": expected Int"#)
    }

    @Test("guide: JSON bodies")
    func json() async throws {
        let body = try JSONBodyEncoder().encodeBody(["b": 1, "a": 2])
        #expect(String(decoding: try await body.body.collect(upTo: 1024), as: UTF8.self) == #"{"a":2,"b":1}"#)
        let untyped = try JSONBodyEncoder().encodeBody(jsonObject: ["ids": [1, 2], "none": NSNull()])
        #expect(
            String(decoding: try await untyped.body.collect(upTo: 1024), as: UTF8.self) == #"{"ids":[1,2],"none":null}"#
        )
    }

    @Test("DocC: the module overview")
    func overview() async throws {
        struct Search: Codable {
            var query: String
            var tags: [String]
            var page: Int
        }
        let query = try FormEncoder().encodeQuery(Search(query: "swift & http", tags: ["z", "a"], page: 2))
        #expect(query == "page=2&query=swift%20%26%20http&tags%5B%5D=z&tags%5B%5D=a")
        let back = try FormDecoder().decode(Search.self, from: query)
        let body = try JSONBodyEncoder().encodeBody(back)
        #expect(
            String(decoding: try await body.body.collect(upTo: 1024), as: UTF8.self)
                == #"{"page":2,"query":"swift & http","tags":["z","a"]}"#)
    }

    @Test("DocC: FormEncoder, FormDecoder and HTTPEncodingError examples")
    func typeExamples() throws {
        struct Search: Encodable {
            var query: String
            var tags: [String]
            var page: Int
            var exact: Bool
        }
        let encoder = FormEncoder()
        #expect(
            try encoder.encodeQuery(Search(query: "swift & http", tags: ["a", "b"], page: 2, exact: true))
                == "exact=1&page=2&query=swift%20%26%20http&tags%5B%5D=a&tags%5B%5D=b")
        let url = try encoder.appendQuery(
            parameters: ["page": 2], to: #require(URL(string: "https://example.com/s?lang=en")))
        #expect(url.absoluteString == "https://example.com/s?lang=en&page=2")

        struct Filter: Decodable, Equatable {
            var query: String
            var tags: [String]
            var page: Int
            var exact: Bool
        }
        let filter = try FormDecoder().decode(Filter.self, from: "query=swift+%26+http&tags%5B%5D=a&page=2&exact=1")
        #expect(filter == Filter(query: "swift & http", tags: ["a"], page: 2, exact: true))

        let error = #expect(throws: HTTPEncodingError.self) {
            try FormEncoder().encodeQuery(parameters: ["ratio": Double.nan])
        }
        #expect(error?.description == #"unsupportedValue at ratio: "nan": a form cannot carry a non-finite number"#)
    }

    @Test("DocC: strategy examples")
    func strategyExamples() throws {
        #expect(KeyEncodingStrategy.convertToSnakeCase.encode("userID") == "user_id")
        #expect(KeyEncodingStrategy.convertToKebabCase.encode("createdAt") == "created-at")
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(try DateEncodingStrategy.iso8601.encode(date) == "2023-11-14T22:13:20Z")
        #expect(try DateEncodingStrategy.millisecondsSince1970.encode(date) == "1700000000000")
        #expect(try DataEncodingStrategy.base64.encode(Data("hi".utf8)) == "aGk=")
        #expect(try DataDecodingStrategy.base64.decode("aGk=") == Data("hi".utf8))
        #expect(try DateDecodingStrategy.iso8601.decode("2023-11-14T22:13:20Z") == date)
    }
}
