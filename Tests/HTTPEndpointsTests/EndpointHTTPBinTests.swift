import Foundation
import HTTPClient
import HTTPCore
import HTTPEndpoints
import HTTPMultipart
import TestSupport
import Testing

/// Endpoints called through a real client against the local httpbin (and, where httpbin
/// cannot answer as needed, the fault server) that `scripts/test` starts. Each test checks
/// what the server says it received, or what it really sent back.
@Suite("Endpoints against httpbin")
struct EndpointHTTPBinTests {
    let client: Client

    init() throws {
        client = Client(baseURL: try TestServers.httpbin())
    }

    struct NewPost: Encodable, Sendable {
        var blog: String
        var title: String
        var tags: [String]
    }

    struct SentPost: Decodable, Sendable, Equatable {
        var title: String
        var tags: [String]
        var blog: String?
    }

    // MARK: Templates

    @Test(
        "a path variable that needs encoding is sent as one segment and nothing of it leaks into the query",
        arguments: [("a b/c?d#e", "a%20b%2Fc%3Fd%23e"), ("../admin", "..%2Fadmin"), ("café", "caf%C3%A9")])
    func pathVariableIsOneSegment(value: String, encoded: String) async throws {
        let endpoint = Endpoint<Empty, Echo>(.get, "/anything/{id}/end")
        let response = try await client.response(for: endpoint, variables: ["id": value])
        #expect(response.request.url.path(percentEncoded: true) == "/anything/\(encoded)/end")
        let echo = response.body
        #expect(echo.args.isEmpty)
        #expect(!echo.path.contains("?"))
        // httpbin rebuilds its URL from the decoded path (WSGI PATH_INFO), where %2F is
        // already a slash; decoded, the path is the value whole between the two fixed segments,
        // and the call reached /anything (a resolved ../ would have asked for /admin, a 404).
        #expect(echo.path.removingPercentEncoding == "/anything/\(value)/end")
    }

    @Test("a query template with a list and an exploded associative array gives httpbin those arguments")
    func queryTemplate() async throws {
        let search = Endpoint<Empty, Echo>(.get, "/anything/search{?q,tags*}{&filter*}")
        let echo = try await client.call(
            search,
            variables: [
                "q": "swift & nio=fast", "tags": ["http", "a b", "ünï"], "filter": ["state": "open", "sort": "new"],
            ])
        #expect(echo.path.hasPrefix("/anything/search?"))
        #expect(
            echo.args == [
                "q": "swift & nio=fast", "tags": ["http", "a b", "ünï"], "state": "open", "sort": "new",
            ])
    }

    // MARK: Request bodies

    @Test("a JSON body leaves out the property the path consumed and is sent as application/json")
    func jsonBody() async throws {
        let create = Endpoint<NewPost, Echo>(.post, "/anything/blogs/{blog}/posts", body: .json)
        let echo = try await client.call(create, NewPost(blog: "heron", title: "Hi ☕", tags: ["a", "b"]))
        #expect(echo.method == "POST")
        #expect(echo.path == "/anything/blogs/heron/posts")
        #expect(echo.json == ["tags": ["a", "b"], "title": "Hi ☕"])
        #expect(echo.headers["Content-Type"] == "application/json")
    }

    @Test("a response read at a key path decodes the JSON httpbin echoes into a typed value")
    func jsonAtKeyPath() async throws {
        let create = Endpoint<NewPost, SentPost>(
            .put, "/anything/blogs/{blog}/posts", body: .json, response: .json(at: "json"))
        let sent = try await client.call(create, NewPost(blog: "heron", title: "Typed", tags: ["x"]))
        #expect(sent == SentPost(title: "Typed", tags: ["x"], blog: nil))
    }

    @Test("a form body arrives as httpbin's form fields, without the property the path consumed")
    func formBody() async throws {
        struct Login: Encodable, Sendable {
            var realm: String
            var user: String
            var password: String
        }
        let login = Endpoint<Login, Echo>(.post, "/anything/realms/{realm}/login", body: .form)
        let echo = try await client.call(login, Login(realm: "staff", user: "ada", password: "p a&s=s+wörd"))
        #expect(echo.path == "/anything/realms/staff/login")
        #expect(echo.form == ["user": "ada", "password": "p a&s=s+wörd"])
        #expect(echo.headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(echo.json == nil)
    }

    @Test("a multipart body streams a 2 MB file from disk to httpbin's files, with a text field in form")
    func multipartFile() async throws {
        struct Upload: Encodable, Sendable {
            var album: String
            var caption: String
            var photo: MultipartFile
        }
        let upload = Endpoint<Upload, Echo>(.post, "/anything/albums/{album}/photos", body: .multipart)
        try await Self.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("noise.bin")
            let bytes = Self.randomBytes(2 * 1024 * 1024 + 17)
            try bytes.write(to: file)
            let echo = try await client.call(
                upload, Upload(album: "trip", caption: "café ☕", photo: MultipartFile(fileAt: file)))
            #expect(echo.path == "/anything/albums/trip/photos")
            #expect(echo.form == ["caption": "café ☕"])
            #expect(echo.files.keys.sorted() == ["photo"])
            guard case .one(let content) = try #require(echo.files["photo"]) else {
                Issue.record("httpbin echoed more than one photo part: \(String(describing: echo.files["photo"]))")
                return
            }
            let received = try #require(Self.fileContent(content))
            #expect(received.count == bytes.count)
            #expect(received == bytes)
            #expect(echo.headers["Content-Type"]?.hasPrefix("multipart/form-data; boundary=") == true)
        }
    }

    // MARK: Header fields and variables

    @Test("header fields declared on the endpoint are received, with the Accept its response type asks for")
    func declaredHeaderFields() async throws {
        let endpoint = Endpoint<Empty, Echo>(.get, "/anything/headers")
            .header(.acceptLanguage, "it-it")
            .header("X-Api-Version", "2")
        let echo = try await client.call(endpoint)
        #expect(echo.headers["Accept-Language"] == "it-it")
        #expect(echo.headers["X-Api-Version"] == "2")
        #expect(echo.headers["Accept"] == "application/json")
    }

    /// A client whose endpoint defaults provide `{user}` as `ada`, recording each run of the provider.
    static func providingClient(runs: Recorder<String>) throws -> Client {
        var defaults = EndpointDefaults()
        defaults.provide("user") { () -> String in
            runs.append("user")
            return "ada"
        }
        return Client(baseURL: try TestServers.httpbin(), values: RequestValues(defaults))
    }

    @Test("a client-wide provider fills a template variable the call does not give")
    func providerFillsVariable() async throws {
        let runs = Recorder<String>()
        let client = try Self.providingClient(runs: runs)
        let posts = Endpoint<Empty, Echo>(.get, "/anything/users/{user}/posts")
        let echo = try await client.call(posts)
        #expect(echo.path == "/anything/users/ada/posts")
        #expect(runs.values == ["user"])
    }

    @Test("a call-time variable wins over the provider, which then does not run")
    func callVariableBeatsProvider() async throws {
        let runs = Recorder<String>()
        let client = try Self.providingClient(runs: runs)
        let posts = Endpoint<Empty, Echo>(.get, "/anything/users/{user}/posts")
        let echo = try await client.call(posts, variables: ["user": "bob"])
        #expect(echo.path == "/anything/users/bob/posts")
        #expect(runs.values.isEmpty)
    }

    @Test("the provider wins over a request value's property of the same name, which is then not sent at all")
    func providerBeatsValueProperty() async throws {
        struct Draft: Encodable, Sendable {
            var user: String
            var title: String
        }
        let client = try Self.providingClient(runs: Recorder())
        let create = Endpoint<Draft, Echo>(.post, "/anything/users/{user}/posts", body: .json)
        let echo = try await client.call(create, Draft(user: "carol", title: "T"))
        #expect(echo.path == "/anything/users/ada/posts")
        #expect(echo.json == ["title": "T"])
    }

    // MARK: Responses without content

    @Test("an Optional response is nil for a 204")
    func optionalNoContent() async throws {
        let endpoint = Endpoint<Empty, Echo?>(.get, "/status/{code}")
        let response = try await client.response(for: endpoint, variables: ["code": 204])
        #expect(response.status.code == 204)
        #expect(response.body == nil)
    }

    @Test("an Empty response takes a 204")
    func emptyNoContent() async throws {
        let endpoint = Endpoint<Empty, Empty>(.get, "/status/{code}")
        let response = try await client.response(for: endpoint, variables: ["code": 204])
        #expect(response.status.code == 204)
        #expect(response.body == Empty())
    }

    @Test("a non-Optional Decodable response fails a 204 with decodingFailed")
    func decodableNoContent() async throws {
        let endpoint = Endpoint<Empty, Echo>(.get, "/status/{code}")
        let error = await #expect(throws: EndpointError.self) {
            _ = try await client.call(endpoint, variables: ["code": 204])
        }
        #expect(error?.code == .decodingFailed)
        #expect(error?.status?.code == 204)
    }

    // MARK: Error statuses

    @Test("a 418 whose body is not JSON is unacceptableStatus with the status and the body's start")
    func teapotIsUnacceptable() async throws {
        let brew = Endpoint<Empty, Echo>(.get, "/status/{code}").errorBody(ProblemDetails.self)
        let error = await #expect(throws: EndpointError.self) {
            _ = try await client.call(brew, variables: ["code": 418])
        }
        #expect(error?.code == .unacceptableStatus)
        #expect(error?.status?.code == 418)
        #expect(error?.errorBody == nil)
        let body = String(decoding: try #require(error?.body), as: UTF8.self)
        #expect(body.contains("teapot"))
        #expect(error?.description.contains("teapot") == true)
    }

    @Test("a JSON error body from the server becomes errorResponse carrying the decoded ProblemDetails")
    func jsonErrorBody() async throws {
        // httpbin sends no JSON with an error status; the fault server's /flaky answers
        // {"attempt": 1, "status": S} as application/json with status S.
        let fault = Client(baseURL: try TestServers.faultServer(), retry: .none)
        let endpoint = Endpoint<Empty, Echo>(.post, "/flaky{?key,fail,status}").errorBody(ProblemDetails.self)
        let key = "endpoint-problem-\(UUID().uuidString)"
        let error = await #expect(throws: EndpointError.self) {
            _ = try await fault.call(endpoint, variables: ["key": key, "fail": 1, "status": 422])
        }
        #expect(error?.code == .errorResponse)
        #expect(error?.status?.code == 422)
        #expect(error?.response?.headerFields[.contentType] == "application/json")
        let problem = try #require(error?.body(as: ProblemDetails.self))
        #expect(problem.status == 422)
        #expect(problem.type == "about:blank")
        #expect(problem.extensions == ["attempt": "1"])
    }

    @Test("the decoded error body holds what the server wrote about this request")
    func errorBodyContent() async throws {
        // The fault server answers an unknown path with 404 {"error": "unknown path '<path>'"}.
        let fault = Client(baseURL: try TestServers.faultServer(), retry: .none)
        let endpoint = Endpoint<Empty, Echo>(.get, "/missing/{name}").errorBody(ProblemDetails.self)
        let name = "n-\(UUID().uuidString)"
        let error = await #expect(throws: EndpointError.self) {
            _ = try await fault.call(endpoint, variables: ["name": name])
        }
        #expect(error?.code == .errorResponse)
        #expect(error?.status?.code == 404)
        #expect(error?.body(as: ProblemDetails.self)?.extensions["error"] == "unknown path '/missing/\(name)'")
    }

    // MARK: Text

    @Test("a String response from /encoding/utf8 is the UTF-8 decoding of the bytes httpbin sent")
    func utf8Text() async throws {
        let text = try await client.call(Endpoint<Empty, String>(.get, "/encoding/utf8"))
        let raw = try await client.call(Endpoint<Empty, Data>(.get, "/encoding/utf8"))
        #expect(raw.count > 1000)
        #expect(text == String(decoding: raw, as: UTF8.self))
        #expect(text.unicodeScalars.contains { !$0.isASCII })
    }

    // MARK: Downloads

    @Test("a file endpoint downloads /bytes/n to the destination, progress reaching n")
    func downloadToFile() async throws {
        // httpbin caps /bytes at 100 KiB (102 400 bytes), so n stays below that.
        let count = 100_000
        let endpoint = Endpoint<Empty, URL>(.get, "/bytes/{n}", response: .file)
        let progress = Recorder<TransferProgress>()
        var options = RequestOptions()
        options.progress = .callback { progress.append($0) }
        try await Self.withTemporaryDirectory { directory in
            let destination = directory.appendingPathComponent("bytes.bin")
            let url = try await client.call(endpoint, to: destination, variables: ["n": count], options: options)
            #expect(url == destination)
            #expect(try Data(contentsOf: destination).count == count)
            #expect(try Self.contents(of: directory) == ["bytes.bin"])
            let downloaded = progress.values.filter { $0.direction == .download }.map(\.completed)
            #expect(downloaded.max() == Int64(count))
        }
    }

    @Test("a download answered 404 throws unacceptableStatus and leaves no file, partial or whole")
    func failedDownloadLeavesNothing() async throws {
        let endpoint = Endpoint<Empty, URL>(.get, "/status/{code}", response: .file)
        try await Self.withTemporaryDirectory { directory in
            let destination = directory.appendingPathComponent("missing.bin")
            let error = await #expect(throws: EndpointError.self) {
                _ = try await client.call(endpoint, to: destination, variables: ["code": 404])
            }
            #expect(error?.code == .unacceptableStatus)
            #expect(error?.status?.code == 404)
            #expect(!FileManager.default.fileExists(atPath: destination.path))
            let left = try Self.contents(of: directory)
            #expect(left.isEmpty)
        }
    }

    @Test("a failed download leaves an existing file at the destination as it was")
    func failedDownloadKeepsExistingFile() async throws {
        let endpoint = Endpoint<Empty, URL>(.get, "/status/{code}", response: .file)
        try await Self.withTemporaryDirectory { directory in
            let destination = directory.appendingPathComponent("kept.bin")
            let original = Data("the file before the call".utf8)
            try original.write(to: destination)
            let error = await #expect(throws: EndpointError.self) {
                _ = try await client.call(endpoint, to: destination, variables: ["code": 404])
            }
            #expect(error?.code == .unacceptableStatus)
            #expect(try Data(contentsOf: destination) == original)
            let names = try Self.contents(of: directory)
            #expect(names == ["kept.bin"])
        }
    }

    @Test("a download the client gives up on (retries of a 500 exhausted) leaves no partial file")
    func clientFailedDownloadLeavesNothing() async throws {
        let endpoint = Endpoint<Empty, URL>(.get, "/status/{code}", response: .file)
        let client = Client(
            baseURL: try TestServers.httpbin(),
            retry: [.status([500], max: 1), .backoff(.constant(0.01), jitter: .none)])
        try await Self.withTemporaryDirectory { directory in
            let destination = directory.appendingPathComponent("retried.bin")
            let error = await #expect(throws: ClientError.self) {
                _ = try await client.call(endpoint, to: destination, variables: ["code": 500])
            }
            #expect(error?.code == .tooManyRetries)
            let names = try Self.contents(of: directory)
            #expect(names.isEmpty)
        }
    }

    // MARK: Responses and errors

    @Test("response(for:) returns the head, with the header fields httpbin set, along with the value")
    func responseHead() async throws {
        let endpoint = Endpoint<Empty, [String: StringOrArray]>(.get, "/response-headers{?fields*}")
        let probe = UUID().uuidString
        let response = try await client.response(for: endpoint, variables: ["fields": ["X-Heron-Probe": probe]])
        #expect(response.status == .ok)
        #expect(response.headerFields[try HTTPFieldName("X-Heron-Probe")] == probe)
        #expect(response.body["X-Heron-Probe"] == .one(probe))
    }

    @Test("a body that is not the response type fails with decodingFailed naming the endpoint, status and body")
    func decodingFailureDescription() async throws {
        let numbers = Endpoint<Empty, [Int]>(.get, "/anything/x")
        let error = await #expect(throws: EndpointError.self) { _ = try await client.call(numbers) }
        #expect(error?.code == .decodingFailed)
        #expect(error?.status?.code == 200)
        let description = error?.description ?? ""
        #expect(description.contains("GET /anything/x"))
        #expect(description.contains("response: 200"))
        #expect(description.contains("body: {"))
        #expect(description.contains("\"args\""))
    }

    // MARK: Any status, type and body (the fault server's /content)

    static func hex(_ text: String, encoding: String.Encoding = .utf8) -> String {
        (text.data(using: encoding) ?? Data()).map { String(format: "%02x", $0) }.joined()
    }

    @Test("an application/problem+json error body is thrown typed, with the title and detail the server wrote")
    func problemJSON() async throws {
        let fault = Client(baseURL: try TestServers.faultServer(), retry: .none)
        let problem =
            #"{"type":"https://example.com/probs/out-of-credit","title":"You do not have enough credit.","#
            + #""detail":"Your balance is 30, but that costs 50.","status":403,"balance":30}"#
        let endpoint = Endpoint<Empty, Echo>(.get, "/content{?status,type,hex}").errorBody(ProblemDetails.self)
        let error = await #expect(throws: EndpointError.self) {
            _ = try await fault.call(
                endpoint,
                variables: ["status": 403, "type": "application/problem+json", "hex": Self.hex(problem)])
        }
        #expect(error?.code == .errorResponse)
        #expect(error?.status == .forbidden)
        #expect(error?.response?.headerFields[.contentType] == "application/problem+json")
        let details = try #require(error?.body(as: ProblemDetails.self))
        #expect(details.title == "You do not have enough credit.")
        #expect(details.detail == "Your balance is 30, but that costs 50.")
        #expect(details.type == "https://example.com/probs/out-of-credit")
        #expect(details.extensions == ["balance": "30"])
    }

    @Test("a String response in ISO-8859-1 decodes by its charset, not as UTF-8")
    func latin1Text() async throws {
        let fault = Client(baseURL: try TestServers.faultServer(), retry: .none)
        let text = "Grüße aus Köln: 10 €uro? ¿Sí!".replacingOccurrences(of: "€", with: "E")
        let endpoint = Endpoint<Empty, String>(.get, "/content{?type,hex}")
        let decoded = try await fault.call(
            endpoint,
            variables: ["type": "text/plain; charset=iso-8859-1", "hex": Self.hex(text, encoding: .isoLatin1)])
        #expect(decoded == text)
        // The same bytes are not valid UTF-8: reading them as such is refused, not garbled.
        let error = await #expect(throws: EndpointError.self) {
            _ = try await fault.call(
                endpoint, variables: ["type": "text/plain; charset=utf-8", "hex": Self.hex(text, encoding: .isoLatin1)])
        }
        #expect(error?.code == .decodingFailed)
    }
}
