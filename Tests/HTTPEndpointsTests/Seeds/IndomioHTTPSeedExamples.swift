import HTTPClientTesting
import HTTPEndpoints
import Testing

// The usage examples of IndomioHTTP's README, each rewritten with Heron's public API.
// Between `// seed:` and `// end seed` is only the code that does the example's job.

// seed: IndomioHTTP 1
// what: a GET of a URL given as text, printing the body
// differs: there is no shared client; the app makes one `Client` and passes it around
func indomioHTTP1(client: Client) async throws {
    let response = try await client.send(.get("https://httpbin.org/get"))
    print(response.body)
}
// end seed

// seed: IndomioHTTP 2
// what: the ways to make a request: method and URL, a shortcut per method, a URI template
// differs: a request always has a URL, so there is no empty initializer
func indomioHTTP2() throws -> [HTTPRequest] {
    try [
        // A method and a URL, absolute or relative to the client's base URL.
        HTTPRequest(method: .get, string: "route"),
        // The same with the shortcut of the method (.get, .post, .put, .patch, .delete, .head).
        .get("route"),
        // A URL made from an RFC 6570 template (an Endpoint takes the template itself).
        .get(URITemplate("{type}/{value}").expand(["type": "mac", "value": "15"])),
    ]
}
// end seed

// seed: IndomioHTTP 3
// what: a client with a base URL, and a POST to a path relative to it
func indomioHTTP3() async throws {
    let client = Client(baseURL: URL(string: "https://official-joke-api.appspot.com")!)
    // Sent to https://official-joke-api.appspot.com/new/joke
    _ = try await client.send(.post("new/joke"))
}
// end seed

// seed: IndomioHTTP 4
// what: a GET of an absolute RFC 6570 URI template, its variables expanded at the call
func indomioHTTP4(client: Client) async throws {
    let page = Endpoint<Empty, Data>(.get, "http://www.apple.com/{type}/{value}")
    _ = try await client.call(page, variables: ["type": "mac", "value": 15])
}
// end seed

// seed: IndomioHTTP 5
// what: a POST of a JSON dictionary, retried up to 3 times, its JSON response decoded as a User
// differs: a POST is retried only when it opts in with retriesNonIdempotent()
func indomioHTTP5(user: String, pwd: String) async {
    let client = Client(baseURL: URL(string: "https://myws.com/service/v2")!)
    let req = HTTPRequest.post("/agents/login")
        .retries(3)
        .retriesNonIdempotent()
        .json(["username": user, "password": pwd])

    do {
        let agent = try await client.send(req, decoding: User.self)
        print(agent)
    } catch {
        print(error)
    }
}
// end seed

// seed: IndomioHTTP 6
// what: header fields set one per call
func indomioHTTP6(req: HTTPRequest) -> HTTPRequest {
    req.header(.acceptLanguage, "it-it")
        .header(.contentEncoding, "utf-8")
}
// end seed

// seed: IndomioHTTP 7
// what: several header fields set in one call
func indomioHTTP7(req: HTTPRequest) -> HTTPRequest {
    req.headers([.acceptLanguage: "it-it", .userAgent: "my-agent", .contentEncoding: "utf-8"])
}
// end seed

// seed: IndomioHTTP 8
// what: a header field with a name of your own
func indomioHTTP8(req: HTTPRequest) -> HTTPRequest {
    // Any field name as text; one that is not a valid token fails the call, never sent.
    // headers([...]) takes such names too, as HTTPFieldName("X-MyHeader").
    req.header("X-MyHeader", "SomeValue")
}
// end seed

// seed: IndomioHTTP 9
// what: a POST with query parameters of several types (string, number, date, bool)
func indomioHTTP9() -> (Client, HTTPRequest) {
    let client = Client(baseURL: URL(string: "https://myws.com/service/v2")!)
    // Sent to https://myws.com/service/v2/search?date=…&disabled=0&max=5&type=poi
    return (client, .post("/search").query(["type": "poi", "max": 5, "date": Date(), "disabled": false]))
}
// end seed

// seed: IndomioHTTP 10
// what: query parameters with arrays as repeated keys and bools as true/false
func indomioHTTP10(params: [String: Any]) -> HTTPRequest {
    HTTPRequest.post("/search")
        .query(params, encoder: FormEncoder(style: FormStyle(arrays: .noBrackets, bools: .literal)))
}
// end seed

// seed: IndomioHTTP 11
// what: a POST with a JSON body made from a dictionary
func indomioHTTP11(user: String, pwd: String) -> HTTPRequest {
    HTTPRequest.post("login").json(["username": user, "password": pwd])
}
// end seed

// seed: IndomioHTTP 12
// what: a POST with a JSON body made from a Codable value
private struct User: Codable {
    var username: String
    var pwd: String
}

func indomioHTTP12() -> HTTPRequest {
    let user = User(username: "markdelillo", pwd: "mypass")
    return HTTPRequest.post("login").json(user)
}
// end seed

// seed: IndomioHTTP 13
// what: a POST with an application/x-www-form-urlencoded body made from a dictionary
func indomioHTTP13(user: String, pwd: String) -> HTTPRequest {
    HTTPRequest.post("login").form(["username": user, "password": pwd, "p": 1, "p2": 3])
}
// end seed

// seed: IndomioHTTP 14
// what: a multipart/form-data POST with a file, a text field, bytes and an InputStream
// differs: an InputStream part needs its exact length, so the body's Content-Length is known
func indomioHTTP14(fileURL: URL, myFileName: String, someData: Data, stream: InputStream, size: Int64) -> HTTPRequest {
    HTTPRequest.post("upload").multipart { form in
        try form.append(name: myFileName, fileAt: fileURL)
        form.append(name: "report_type", value: "bug")
        try form.append(name: "binary_data", data: someData)
        try form.append(name: "blob", stream: stream, length: size)
    }
}
// end seed

// MARK: Running the examples

@Suite("IndomioHTTP's README examples, in Heron")
struct IndomioHTTPSeedExamples {
    private static func client(_ stub: StubTransport) -> Client {
        Client(baseURL: URL(string: "https://myws.com/service/v2")!, transport: stub)
    }

    @Test("1, 2, 4: a GET of a URL as text, and requests and endpoints made from URI templates")
    func templates() async throws {
        let get = StubTransport(fallback: .status(.ok, body: Data("{}".utf8)))
        try await indomioHTTP1(client: Self.client(get))
        #expect(get.requests.first?.url.absoluteString == "https://httpbin.org/get")
        #expect(try indomioHTTP2().map(\.url.relativeString) == ["route", "route", "mac/15"])
        let stub = StubTransport(fallback: .status(.ok))
        try await indomioHTTP4(client: Self.client(stub))
        #expect(stub.requests.first?.url.absoluteString == "http://www.apple.com/mac/15")
    }

    @Test("6-8: header fields, one at a time, several at once, and by a name of your own")
    func headers() throws {
        let request = indomioHTTP8(req: indomioHTTP7(req: indomioHTTP6(req: .get("x"))))
        #expect(request.pendingError == nil)
        #expect(request.headerFields[.acceptLanguage] == "it-it")
        #expect(request.headerFields[.userAgent] == "my-agent")
        #expect(request.headerFields[.contentEncoding] == "utf-8")
        #expect(request.headerFields[try HTTPFieldName("X-MyHeader")] == "SomeValue")
    }

    @Test("9, 10: query parameters of several types and styles, and the URLs they make")
    func query() async throws {
        let (_, request) = indomioHTTP9()
        #expect(request.url.absoluteString.hasPrefix("/search?date=20"))
        let fixed = HTTPRequest.post("/search")
            .query(["type": "poi", "max": 5, "date": Date(timeIntervalSince1970: 1_628_862_942), "disabled": false])
        let stub = StubTransport(fallback: .status(.ok))
        _ = try await Self.client(stub).send(fixed)
        // Keys sorted, bools as 0/1, a date as ISO 8601 (dateEncodingStrategy changes it).
        let url = "https://myws.com/service/v2/search?date=2021-08-13T13%3A55%3A42Z&disabled=0&max=5&type=poi"
        #expect(stub.requests.first?.url.absoluteString == url)
        let styled = indomioHTTP10(params: ["ids": [1, 2], "on": true])
        #expect(styled.url.absoluteString == "/search?ids=1&ids=2&on=true")
    }

    @Test("11-13: JSON bodies from a dictionary and a Codable value, and a form body")
    func bodies() throws {
        let json = indomioHTTP11(user: "ada", pwd: "pw")
        #expect(json.headerFields[.contentType] == "application/json")
        #expect(json.body?.length == .known(Int64(#"{"password":"pw","username":"ada"}"#.utf8.count)))
        #expect(indomioHTTP12().headerFields[.contentType] == "application/json")
        let form = indomioHTTP13(user: "ada", pwd: "pw")
        #expect(form.headerFields[.contentType] == "application/x-www-form-urlencoded")
        #expect(form.body?.length == .known(Int64("p=1&p2=3&password=pw&username=ada".utf8.count)))
    }

    @Test("14: a multipart form with a file, text, bytes and a stream")
    func multipart() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("indomio-\(UUID()).txt")
        try Data("file".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let request = indomioHTTP14(
            fileURL: file, myFileName: "doc", someData: Data([1, 2]), stream: InputStream(data: Data("abc".utf8)),
            size: 3)
        #expect(request.pendingError == nil)
        #expect(request.headerFields[.contentType]?.hasPrefix("multipart/form-data; boundary=") == true)
    }
}
