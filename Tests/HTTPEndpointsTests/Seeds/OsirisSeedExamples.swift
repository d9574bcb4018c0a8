import HTTPClientTesting
import HTTPEndpoints
import Testing

// The usage examples of Osiris's README, each rewritten with Heron's public API.
// Between `// seed:` and `// end seed` is only the code that does the example's job.

// seed: Osiris 1
// what: a multipart form with two text fields and a JPEG part
// differs: no UIKit helper turns an image into JPEG bytes: the caller passes them
func osiris1(avatarData: Data) throws -> MultipartForm {
    var form = MultipartForm()
    form.append(name: "email", value: "somebody@example.com")
    form.append(name: "password", value: "secret")
    form.append(name: "avatar.jpg", data: avatarData, contentType: .jpeg)
    return form
}
// end seed

// seed: Osiris 2
// what: the form encoded in memory, as the body of a POST
func osiris2(form: MultipartForm) async throws -> HTTPRequest {
    let encoded = try await form.encodedInMemory()
    // The body knows its length: the transport sends Content-Length from it.
    return HTTPRequest.post("https://example.com/accounts").body(encoded.body, contentType: encoded.contentType)
}
// end seed

// seed: Osiris 3
// what: the form encoded to a file, and uploaded from it
func osiris3(form: MultipartForm, client: Client) async throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("form.data")
    let encoded = try await form.encode(toFileAt: path)
    // A file body is read from disk as it is sent, never loaded whole.
    let request = HTTPRequest.post("https://example.com/accounts").body(encoded.body, contentType: encoded.contentType)
    _ = try await client.send(request)
}
// end seed

// seed: Osiris 4
// what: a GET request for a URL
func osiris4() -> HTTPRequest {
    HTTPRequest.get("https://example.com")
}
// end seed

// seed: Osiris 5
// what: a POST with parameters, a header field of your own and a JPEG part
// differs: a body is one thing: with a file part it is multipart, so the parameters are text
// fields (without one, `.json(["email": …, "password": …])` sends them as JSON); and no UIKit
// helper turns an image into JPEG bytes: the caller passes them
func osiris5(jpeg: Data) -> HTTPRequest {
    HTTPRequest.post("https://example.com")
        .header("x-custom", "42")
        .multipart { form in
            form.append(name: "email", value: "someone@example.com")
            form.append(name: "password", value: "secret")
            form.append(name: "avatar", data: jpeg, filename: "avatar.jpg")
        }
}
// end seed

// seed: Osiris 6
// what: a URLRequest made from a request, for code that calls URLSession itself
func osiris6(request: HTTPRequest) {
    let urlRequest: URLRequest
    do {
        urlRequest = try URLRequest(request)
    } catch {
        print("Invalid request \(request): \(error)")
        return
    }
    print(urlRequest)
}
// end seed

// seed: Osiris 7
// what: a dictionary encoded as application/x-www-form-urlencoded text
func osiris7() throws -> String {
    try FormEncoder().encodeQuery(parameters: ["email": "someone@example.com", "password": "secret"])
    // "email=someone%40example.com&password=secret"
}
// end seed

// MARK: Running the examples

@Suite("Osiris's README examples, in Heron")
struct OsirisSeedExamples {
    @Test("1-3: a form with text and a JPEG, sent from memory and from a file")
    func multipart() async throws {
        let form = try osiris1(avatarData: Data([0xFF, 0xD8, 0xFF]))
        let request = try await osiris2(form: form)
        #expect(request.body?.length == .known(form.contentLength))
        #expect(request.headerFields[.contentType] == form.contentType.description)
        let stub = StubTransport(fallback: .status(.created))
        try await osiris3(form: form, client: Client(transport: stub))
        try? FileManager.default.removeItem(
            at: FileManager.default.temporaryDirectory.appendingPathComponent("form.data"))
        #expect(stub.recordedRequests.first?.body?.count == Int(form.contentLength))
        #expect(stub.requests.first?.url.absoluteString == "https://example.com/accounts")
    }

    @Test("4-6: a GET, a multipart POST with a header field, and its URLRequest")
    func requests() throws {
        #expect(osiris4().method == .get)
        let request = osiris5(jpeg: Data([0xFF, 0xD8]))
        #expect(request.headerFields[try HTTPFieldName("x-custom")] == "42")
        #expect(request.headerFields[.contentType]?.hasPrefix("multipart/form-data") == true)
        let urlRequest = try URLRequest(osiris4())
        #expect(urlRequest.url?.absoluteString == "https://example.com")
        osiris6(request: osiris4())
    }

    @Test("7: a form-encoded dictionary")
    func formEncoding() throws {
        #expect(try osiris7() == "email=someone%40example.com&password=secret")
    }
}
