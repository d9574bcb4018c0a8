import Foundation
import HTTPEndpoints
import TestSupport
import Testing

// Issue 30, second round: inferred `get`, `get(_:query:)`, endpoint groups and bound calls,
// one way to read a body, a client-wide envelope, and `URL` endpoints as downloads; each
// against the local httpbin (or the fault server, for JSON error bodies).

/// What httpbin's `/anything` echoes, as far as these tests read it.
private struct AnythingEcho: Codable, Sendable {
    var method: String
    var url: String
    var args: [String: String]
    var headers: [String: String]
    var json: [String: String]?
}

private struct Profile: Codable, Sendable, Equatable {
    var name: String
}

/// httpbin as an endpoint group: its base URL, a field and defaults declared once.
private enum HTTPBin: EndpointGroup {
    static var baseURL: URL { try! TestServers.httpbin() }
    static var headerFields: KeyValuePairs<HTTPFieldName, String> { [.acceptLanguage: "it-it"] }
    static var defaults: EndpointDefaults {
        var defaults = EndpointDefaults()
        defaults.queryEncoder = FormEncoder(style: FormStyle(bools: .literal))
        return defaults
    }

    static let rename = Endpoint<Profile, AnythingEcho>(.patch, "/anything/users/{id}", body: .json)
    static let user = Endpoint<Empty, AnythingEcho>(.get, "/anything/users/{id}")
}

private enum BrokenGroup: EndpointGroup {
    static var baseURL: URL { try! TestServers.httpbin() }
    static var headerFields: KeyValuePairs<HTTPFieldName, String> { [.accept: "a\r\nX-Admin: 1"] }
}

extension EndpointCall<AnythingEcho> {
    fileprivate static func renameEcho(id: Int, name: String) -> Self {
        HTTPBin.rename.with(Profile(name: name), variables: ["id": id])
    }

    fileprivate static func echoUser(id: Int) -> Self { HTTPBin.user.with(variables: ["id": id]) }
}

@Suite("Everyday API, second round (issue 30)")
struct EverydaySecondRoundTests {
    // MARK: get

    @Test("get infers the type to read from the context")
    func getInfersType() async throws {
        let client = Client(baseURL: try TestServers.httpbin())
        let echo: AnythingEcho = try await client.get("anything/inferred")
        #expect(echo.method == "GET")
        #expect(echo.url.hasSuffix("/anything/inferred"))
        let text: String = try await client.get("encoding/utf8")
        #expect(text.contains("∮ E⋅da = Q"))
    }

    @Test("get(_:query:) encodes an Encodable value with the client's query encoder")
    func getEncodableQuery() async throws {
        struct Filter: Encodable, Sendable {
            var state: String
            var mine: Bool
        }
        var defaults = EndpointDefaults()
        defaults.queryEncoder = FormEncoder(style: FormStyle(bools: .literal))
        let client = Client(baseURL: try TestServers.httpbin(), values: RequestValues(defaults))
        let echo: AnythingEcho = try await client.get("anything/issues", query: Filter(state: "open", mine: true))
        #expect(echo.args == ["state": "open", "mine": "true"])
        let plain = Client(baseURL: try TestServers.httpbin())
        let numeric = try await plain.get(
            "anything/issues", query: Filter(state: "a b", mine: true), as: AnythingEcho.self)
        #expect(numeric.args == ["state": "a b", "mine": "1"])
    }

    @Test("get(_:query:) takes untyped parameters, after the URL's own query")
    func getDictionaryQuery() async throws {
        let client = Client(baseURL: try TestServers.httpbin())
        let echo: AnythingEcho = try await client.get(
            "anything/search?sort=new", query: ["q": "heron & co", "page": 2])
        #expect(echo.args == ["sort": "new", "q": "heron & co", "page": "2"])
    }

    @Test("every send, call and shortcut but get may drop its result")
    func discardableResults() async throws {
        let client = Client(baseURL: try TestServers.httpbin())
        // Each of these is a statement without `_ =`: the build has no warnings.
        try await client.post("anything", json: Profile(name: "Ada"), as: AnythingEcho.self)
        try await client.put("anything", json: Profile(name: "Ada"))
        try await client.patch("anything", json: Profile(name: "Ada"))
        try await client.delete("anything", as: AnythingEcho.self)
        try await client.send(.get("anything"), decoding: AnythingEcho.self)
        try await client.response(.get("anything"), decoding: AnythingEcho.self)
        try await client.call(Endpoint<Empty, AnythingEcho>(.get, "/anything"))
        try await client.response(for: Endpoint<Empty, AnythingEcho>(.get, "/anything"))
        let last = try await client.send(.get("anything"), decoding: AnythingEcho.self)
        #expect(last.method == "GET")
    }

    // MARK: Groups and bound calls

    @Test("a client for a group takes its base URL, header fields and defaults")
    func clientForGroup() async throws {
        let client = Client(for: HTTPBin.self, retry: .none)
        #expect(client.baseURL == HTTPBin.baseURL)
        let echo: AnythingEcho = try await client.get("anything/g", query: ["mine": true])
        #expect(echo.headers["Accept-Language"] == "it-it")
        #expect(echo.args["mine"] == "true")
    }

    @Test("defaults given to the client win over the group's")
    func groupDefaultsYield() async throws {
        let client = Client(for: HTTPBin.self, values: RequestValues(EndpointDefaults()))
        let echo: AnythingEcho = try await client.get("anything/g", query: ["mine": true])
        #expect(echo.args["mine"] == "1")
    }

    @Test("a group's invalid header field fails every call before anything is sent")
    func groupInvalidField() async throws {
        let client = Client(for: BrokenGroup.self, retry: .none)
        let error = await #expect(throws: ClientError.self) { _ = try await client.send(.get("anything")) }
        #expect(error?.response == nil)
        #expect(String(describing: error).contains("HTTPCoreError") || error?.underlying is HTTPCoreError)
    }

    @Test("a bound call reads as the operation and sends its value and variables")
    func boundCall() async throws {
        let client = Client(for: HTTPBin.self)
        let echo = try await client.call(.renameEcho(id: 7, name: "Ada"))
        #expect(echo.method == "PATCH")
        #expect(echo.url.hasSuffix("/anything/users/7"))
        #expect(echo.json == ["name": "Ada"])
        let response = try await client.response(for: .echoUser(id: 3))
        #expect(response.status == .ok)
        #expect(response.body.url.hasSuffix("/anything/users/3"))
        let request = try EndpointCall<AnythingEcho>.renameEcho(id: 7, name: "Ada").makeRequest()
        #expect(request.method == .patch && request.url.relativeString == "/anything/users/7")
        #expect(EndpointCall<AnythingEcho>.echoUser(id: 1).name == "GET /anything/users/{id}")
    }

    // MARK: Reading bodies

    @Test("a client-wide envelope key path reads every JSON response, unless a call or endpoint says otherwise")
    func envelopeKeyPath() async throws {
        var defaults = EndpointDefaults()
        defaults.envelopeKeyPath = "json"
        let client = Client(baseURL: try TestServers.httpbin(), values: RequestValues(defaults))
        let profile = try await client.post("anything", json: Profile(name: "Ada"), as: Profile.self)
        #expect(profile == Profile(name: "Ada"))
        let endpoint = Endpoint<Profile, Profile>(.post, "/anything", body: .json)
        #expect(try await client.call(endpoint, Profile(name: "Bo")) == Profile(name: "Bo"))
        let whole = Endpoint<Profile, AnythingEcho>(.post, "/anything", body: .json, response: .json(at: ""))
        #expect(try await client.call(whole, Profile(name: "Cy")).json == ["name": "Cy"])
        let method = try await client.send(.post("anything").json(["a": "b"]), decoding: String.self, at: "method")
        #expect(method == "POST")
        // Not JSON: text is read whole.
        let text: String = try await client.get("encoding/utf8")
        #expect(text.contains("∮ E⋅da = Q"))
    }

    @Test("decoded(as:) maps a response to its decoded body, keeping head, request and metrics")
    func decodedResponse() async throws {
        let client = Client(baseURL: try TestServers.httpbin())
        let response = try await client.send(.post("anything/x").json(Profile(name: "Ada")))
        let decoded = try response.decoded(as: AnythingEcho.self)
        #expect(decoded.status == .ok && decoded.head.headerFields == response.head.headerFields)
        #expect(decoded.request.url == response.request.url)
        #expect(decoded.metrics.attempts.count == response.metrics.attempts.count)
        #expect(decoded.body.json == ["name": "Ada"])
        #expect(try response.decoded(as: Profile.self, at: "json").body == Profile(name: "Ada"))
        #expect(try response.body(as: String.self, at: "method") == "POST")
        let snake = JSONResponseDecoder {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            return decoder
        }
        struct Shown: Decodable, Sendable { var displayName: String }
        let shown = try await client.send(.get("response-headers?display_name=Ada"))
        #expect(try shown.body(as: Shown.self, decoder: snake).displayName == "Ada")
        // A response read without a decoder or key path takes the client's: its decoder, its envelope.
        var defaults = EndpointDefaults()
        defaults.jsonDecoder = snake
        defaults.envelopeKeyPath = "json"
        let enveloped = Client(baseURL: try TestServers.httpbin(), values: RequestValues(defaults))
        let echoed = try await enveloped.send(.post("anything").json(["display_name": "Ada"]))
        #expect(try echoed.decoded(as: Shown.self).body.displayName == "Ada")
        #expect(try echoed.body(as: Shown.self).displayName == "Ada")
        #expect(try echoed.body(as: String.self, at: "method") == "POST")
        // A call's own values win over the client's.
        var plain = EndpointDefaults()
        plain.envelopeKeyPath = ""
        let own = try await enveloped.send(
            .post("anything").json(["display_name": "Ada"]), options: RequestOptions(values: RequestValues(plain)))
        #expect(try own.body(as: String.self, at: "method") == "POST")
        #expect(throws: HTTPEncodingError.self) { _ = try own.body(as: Shown.self) }
    }

    @Test("decoded(as:) checks the content type: an HTML page is not decoded as JSON")
    func decodedChecksContentType() async throws {
        let client = Client(baseURL: try TestServers.httpbin())
        let page = try await client.send(.get("html"))
        let error = #expect(throws: HTTPEncodingError.self) { _ = try page.decoded(as: AnythingEcho.self) }
        #expect(error?.code == .unexpectedContentType)
        let empty = try await client.send(.get("status/204"))
        #expect(try empty.decoded(as: AnythingEcho?.self).body == nil)
    }

    @Test("body(as:) reads the JSON body of an EndpointError, a ClientError and a response alike")
    func oneWayToReadAnErrorBody() async throws {
        // The fault server answers an unknown path with 404 {"error": "unknown path '<path>'"}.
        struct Missing: Decodable, Sendable { var error: String }
        let fault = try TestServers.faultServer()
        let client = Client(baseURL: fault, retry: .none)

        let endpointError = await #expect(throws: EndpointError.self) {
            _ = try await client.get("missing/a", as: AnythingEcho.self)
        }
        #expect(endpointError?.body(as: Missing.self)?.error == "unknown path '/missing/a'")
        #expect(endpointError?.body(as: Profile.self) == nil)

        let strict = Client(baseURL: fault, interceptors: [ResponseValidation()], retry: .none)
        let clientError = await #expect(throws: ClientError.self) { _ = try await strict.send(.get("missing/b")) }
        #expect(clientError?.body(as: Missing.self)?.error == "unknown path '/missing/b'")

        let response = try await client.send(.get("missing/c"))
        #expect(response.status == .notFound)
        #expect(try response.body(as: Missing.self).error == "unknown path '/missing/c'")
    }

    @Test("an EndpointError's body(as:) returns the declared error body, and decodes with the client's decoder")
    func errorBodyDeclaredAndClientDecoder() async throws {
        struct Missing: Decodable, Sendable { var errorText: String }
        var defaults = EndpointDefaults()
        defaults.jsonDecoder = JSONResponseDecoder {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .custom { path in
                path.last?.stringValue == "error" ? AnyKey("errorText") : path.last ?? AnyKey("")
            }
            return decoder
        }
        let client = Client(baseURL: try TestServers.faultServer(), retry: .none, values: RequestValues(defaults))
        let declared = Endpoint<Empty, AnythingEcho>(.get, "/missing/{name}").errorBody(ProblemDetails.self)
        let error = await #expect(throws: EndpointError.self) {
            _ = try await client.call(declared, variables: ["name": "d"])
        }
        #expect(error?.code == .errorResponse)
        #expect(error?.body(as: ProblemDetails.self)?.extensions["errorText"] == "unknown path '/missing/d'")
        #expect(error?.body(as: Missing.self)?.errorText == "unknown path '/missing/d'")
    }

    // MARK: Downloads

    @Test("an endpoint returning URL downloads to a temporary file without response: .file")
    func urlEndpointDownloads() async throws {
        let client = Client(baseURL: try TestServers.httpbin())
        let bytes = Endpoint<Empty, URL>(.get, "/bytes/{count}")
        let file = try await client.call(bytes, variables: ["count": 4096])
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(file.path.hasPrefix(FileManager.default.temporaryDirectory.path))
        #expect(try Data(contentsOf: file).count == 4096)
    }

    @Test("a URL endpoint puts its file at the call's destination; an explicit .file still does")
    func urlEndpointDestination() async throws {
        let client = Client(baseURL: try TestServers.httpbin())
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("heron-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let implicit = Endpoint<Empty, URL>(.get, "/bytes/{count}")
        let explicit = Endpoint<Empty, URL>(.get, "/bytes/{count}", response: .file)
        let first = try await client.call(implicit, to: directory.appendingPathComponent("a"), variables: ["count": 10])
        let second = try await client.call(
            explicit, to: directory.appendingPathComponent("b"), variables: ["count": 20])
        #expect(try Data(contentsOf: first).count == 10)
        #expect(try Data(contentsOf: second).count == 20)
        let bound = try await client.call(
            implicit.with(variables: ["count": 30]), to: directory.appendingPathComponent("c"))
        #expect(try Data(contentsOf: bound).count == 30)
    }

    @Test("a URL read by a decoding send is still JSON, not a download")
    func urlSendIsJSON() async throws {
        let client = Client(baseURL: try TestServers.httpbin())
        let url = try await client.send(.get("anything/u"), decoding: URL.self, at: "url")
        #expect(url.path.hasSuffix("/anything/u"))
    }
}

/// A coding key made from a string.
private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
