import HTTPEndpoints
import TestSupport
import Testing

// The snippets of Docs/EverydayRequests.md, verbatim, run against the local httpbin with
// `print` captured; `everySnippetIsHere` fails when a snippet there is not here.

@Suite("Snippets of the Everyday requests guide")
struct EverydayGuideTests {
    @Test("every ```swift snippet of the guide appears verbatim in this file")
    func everySnippetIsHere() throws {
        let tests = try SnippetSource.read("Tests/HTTPEndpointsTests/EverydayGuideTests.swift")
        let blocks = SnippetSource.markdownBlocks(try SnippetSource.read("Docs/EverydayRequests.md"))
        #expect(blocks.count == 7)
        for block in blocks {
            #expect(SnippetSource.contains(block, in: tests), "snippet is not tested:\n\(block)")
        }
    }

    @Test("guide: one line per call, fluent requests, errors, responses and defaults")
    func guide() async throws {
        let baseURL = try TestServers.httpbin()
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        struct Echo: Decodable, Sendable {
            var method: String
            var args: [String: String]
            var json: [String: String]?
        }
        struct NewUser: Encodable, Sendable {
            var name: String
        }

        let client = Client(baseURL: baseURL)
        let echo = try await client.get("anything/users/42", as: Echo.self)
        let made = try await client.post("anything/users", json: NewUser(name: "Ada"), as: Echo.self)
        print(echo.method, made.method, made.json ?? [:])  // GET POST ["name": "Ada"]
        let searched: Echo = try await client.get("anything/search", query: ["q": "heron", "page": 2])
        print(searched.args["q"] ?? "", searched.args["page"] ?? "")  // heron 2
        try await client.delete("anything/users/42")  // nothing to read

        let request = HTTPRequest.post("anything/search")
            .query(["page": 2, "sort": "new"])
            .header(.acceptLanguage, "it-it")
            .json(["q": "heron"])
            .timeout(.seconds(10))
            .retries(2)
        let found = try await client.send(request, decoding: Echo.self)
        print(found.args["page"] ?? "", found.json?["q"] ?? "")  // 2 heron

        let broken = HTTPRequest.get("anything").header(.accept, "text/plain\r\nX-Admin: 1")
        do {
            _ = try await client.send(broken)
        } catch let error as ClientError {
            print(error.code, error.underlying is HTTPCoreError)  // invalidRequest true
        }

        let response = try await client.send(.get("encoding/utf8"))
        print(response.isSuccess, response.contentType?.charset ?? "")  // true utf-8
        print(try response.text().contains("∮ E⋅da = Q"))  // true
        let envelope = try await client.send(.post("anything").json(["user": "Ada"]))
        print(try envelope.body(as: String.self, at: "json.user"))  // Ada
        print((try envelope.json() as? [String: Any])?["method"] as? String ?? "")  // POST
        let typed = try envelope.decoded(as: Echo.self)
        print(typed.status, typed.body.method)  // 200 OK POST

        struct Failure: Decodable, Sendable {
            var message: String
        }
        do {
            _ = try await client.get("status/404", as: Echo.self)
        } catch let error as EndpointError {
            print(error.status ?? 0, error.body(as: Failure.self) == nil)  // 404 Not Found true
        }

        var defaults = EndpointDefaults()
        defaults.jsonDecoder = JSONResponseDecoder {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            return decoder
        }
        let api = Client(baseURL: baseURL, values: RequestValues(defaults))
        struct Shown: Decodable, Sendable {
            var displayName: String
        }
        print(try await api.get("response-headers?display_name=Ada", as: Shown.self).displayName)  // Ada

        var enveloped = EndpointDefaults()
        enveloped.envelopeKeyPath = "json"
        let unwrapping = Client(baseURL: baseURL, values: RequestValues(enveloped))
        let user = try await unwrapping.post("anything", json: NewUser(name: "Ada"), as: [String: String].self)
        let whole = try await unwrapping.send(.post("anything").json(["a": "b"]), decoding: Echo.self, at: "")
        print(user, whole.method)  // ["name": "Ada"] POST

        #expect(
            printed == [
                #"GET POST ["name": "Ada"]"#, "heron 2", "2 heron", "invalidRequest true", "true utf-8", "true", "Ada",
                "POST", "200 OK POST", "404 Not Found true", "Ada", #"["name": "Ada"] POST"#,
            ])
    }
}
