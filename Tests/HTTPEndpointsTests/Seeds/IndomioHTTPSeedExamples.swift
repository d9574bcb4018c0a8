import HTTPClientTesting
import HTTPEndpoints
import Testing

// The usage examples of IndomioHTTP's README, each rewritten with Heron's public API.
// Between `// seed:` and `// end seed` is only the code that does the example's job; what the
// README's snippets take as given (the shared client, `req`, `user`, `pwd`, a file to send) is
// declared below, under "What the examples take as given".

// seed: IndomioHTTP 1
// what: a GET of a URL given as text, printing the body
// differs: there is no shared client; the app makes one `Client` and passes it around
func indomio1() async throws {
    print(try await client.send(.get("https://httpbin.org/get")).body)
}
// end seed

// seed: IndomioHTTP 2
// what: the ways to make a request: method and URL, a shortcut per method, a URI template
// differs: a request always has a URL, so there is no empty initializer
func indomio2() throws -> [HTTPRequest] {
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
func indomio3() async throws {
    let client = Client(baseURL: "https://official-joke-api.appspot.com")
    // Sent to https://official-joke-api.appspot.com/new/joke
    _ = try await client.send(.post("new/joke"))
}
// end seed

// seed: IndomioHTTP 4
// what: a GET of an absolute RFC 6570 URI template, its variables expanded at the call, in the shared client
func indomio4() async throws {
    let page = Endpoint<Empty, Data>(.get, "http://www.apple.com/{type}/{value}")
    try await client.call(page, variables: ["type": "mac", "value": 15])
}
// end seed

// seed: IndomioHTTP 5
// what: a POST of a JSON dictionary, retried up to 3 times, its JSON response decoded as a User
// differs: a POST is retried only when it opts in with retriesNonIdempotent()
func indomio5() async {
    let client = Client(baseURL: "https://myws.com/service/v2")
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
let req6 = req.header(.acceptLanguage, "it-it")
    .header(.contentEncoding, "utf-8")
// end seed

// seed: IndomioHTTP 7
// what: several header fields set in one call
let req7 = req.headers([.acceptLanguage: "it-it", .userAgent: "my-agent", .contentEncoding: "utf-8"])
// end seed

// seed: IndomioHTTP 8
// what: a header field with a name of your own
let req8 = req.header("X-MyHeader", "SomeValue")
// Any field name as text; one that is not a valid token fails the call, never sent.
// headers([...]) takes such names too: req.headers(["X-MyHeader": "SomeValue"]).
// end seed

// seed: IndomioHTTP 9
// what: a client with a base URL, and a POST to a route of it with query parameters of several types
let indomio9Client = Client(baseURL: "https://myws.com/service/v2")
// Sent by it to https://myws.com/service/v2/search?date=…&disabled=0&max=5&type=poi
let indomio9 = HTTPRequest.post("/search").query(["type": "poi", "max": 5, "date": Date(), "disabled": false])
// end seed

// seed: IndomioHTTP 10
// what: query parameters with arrays as repeated keys and bools as true/false
let indomio10 = HTTPRequest.post("/search")
    .query(params, encoder: FormEncoder(style: FormStyle(arrays: .noBrackets, bools: .literal)))
// end seed

// seed: IndomioHTTP 11
// what: a POST with a JSON body made from a dictionary
let indomio11 = HTTPRequest.post("login").json(["username": user, "password": pwd])
// end seed

// seed: IndomioHTTP 12
// what: a POST with a JSON body made from a Codable value
private struct User: Codable {
    var username: String
    var pwd: String
}

func indomio12() -> HTTPRequest {
    let user = User(username: "markdelillo", pwd: "mypass")
    return HTTPRequest.post("login").json(user)
}
// end seed

// seed: IndomioHTTP 13
// what: a POST with an application/x-www-form-urlencoded body made from a dictionary
let indomio13 = HTTPRequest.post("login").form(["username": user, "password": pwd, "p": 1, "p2": 3])
// end seed

// seed: IndomioHTTP 14
// what: a multipart/form-data POST with a file, a text field, bytes and an InputStream
// differs: an InputStream part needs its exact length (`size`), so the body's Content-Length is known
let indomio14 = HTTPRequest.post("upload").multipart { form in
    try form.append(name: myFileName, fileAt: fileURL)
    form.append(name: "report_type", value: "bug")
    form.append(name: "binary_data", data: someData)
    form.append(name: "blob", stream: stream, length: size)
}
// end seed

// MARK: What the examples take as given

/// The shared client, its requests answered by `stub`.
private let stub = StubTransport(fallback: .status(.ok, body: Data("{}".utf8)))
private let client = Client(baseURL: "https://myws.com/service/v2", transport: stub, retry: .none)
private let req = HTTPRequest.get("x")
private let user = "ada"
private let pwd = "pw"
/// Query parameters whose arrays and bools show the encoding style.
private var params: [String: Any] { ["ids": [1, 2], "on": true] }
private let fileURL = FileManager.default.temporaryDirectory.appendingPathComponent("indomio-\(UUID()).txt")
private let myFileName = "doc"
private let someData = Data([1, 2])
/// A stream of `size` bytes (a new one each time: a stream is read once).
private var stream: InputStream { InputStream(data: Data("abc".utf8)) }
private let size: Int64 = 3

// MARK: Running the examples

@Suite("IndomioHTTP's README examples, in Heron", .serialized)
struct IndomioHTTPSeedExamples {
    @Test("1, 2, 4: a GET of a URL as text, and requests and endpoints made from URI templates")
    func templates() async throws {
        try await indomio1()
        #expect(stub.requests.last?.url.absoluteString == "https://httpbin.org/get")
        #expect(try indomio2().map(\.url.relativeString) == ["route", "route", "mac/15"])
        try await indomio4()
        #expect(stub.requests.last?.url.absoluteString == "http://www.apple.com/mac/15")
    }

    @Test("6-8: header fields, one at a time, several at once, and by a name of your own")
    func headers() throws {
        #expect(req6.headerFields[.acceptLanguage] == "it-it")
        #expect(req6.headerFields[.contentEncoding] == "utf-8")
        #expect(req7.pendingError == nil)
        #expect(req7.headerFields[.acceptLanguage] == "it-it")
        #expect(req7.headerFields[.userAgent] == "my-agent")
        #expect(req7.headerFields[.contentEncoding] == "utf-8")
        #expect(req8.pendingError == nil)
        #expect(req8.headerFields[try HTTPFieldName("X-MyHeader")] == "SomeValue")
    }

    @Test("9, 10: query parameters of several types and styles, and the URLs they make")
    func query() async throws {
        #expect(indomio9Client.baseURL?.absoluteString == "https://myws.com/service/v2")
        #expect(indomio9.url.absoluteString.hasPrefix("/search?date=20"))
        _ = try await client.send(indomio9)
        #expect(stub.requests.last?.url.absoluteString.hasPrefix("https://myws.com/service/v2/search?date=20") == true)
        let fixed = HTTPRequest.post("/search")
            .query(["type": "poi", "max": 5, "date": Date(timeIntervalSince1970: 1_628_862_942), "disabled": false])
        _ = try await client.send(fixed)
        // Keys sorted, bools as 0/1, a date as ISO 8601 (dateEncodingStrategy changes it).
        let url = "https://myws.com/service/v2/search?date=2021-08-13T13%3A55%3A42Z&disabled=0&max=5&type=poi"
        #expect(stub.requests.last?.url.absoluteString == url)
        #expect(indomio10.url.absoluteString == "/search?ids=1&ids=2&on=true")
    }

    @Test("11-13: JSON bodies from a dictionary and a Codable value, and a form body")
    func bodies() throws {
        #expect(indomio11.headerFields[.contentType] == "application/json")
        #expect(indomio11.body?.length == .known(Int64(#"{"password":"pw","username":"ada"}"#.utf8.count)))
        #expect(indomio12().headerFields[.contentType] == "application/json")
        #expect(indomio13.headerFields[.contentType] == "application/x-www-form-urlencoded")
        #expect(indomio13.body?.length == .known(Int64("p=1&p2=3&password=pw&username=ada".utf8.count)))
    }

    @Test("14: a multipart form with a file, text, bytes and a stream")
    func multipart() throws {
        try Data("file".utf8).write(to: fileURL)
        defer { try? FileManager.default.removeItem(at: fileURL) }
        #expect(indomio14.pendingError == nil)
        #expect(indomio14.headerFields[.contentType]?.hasPrefix("multipart/form-data; boundary=") == true)
    }
}
