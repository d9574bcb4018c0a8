import Foundation
import HTTPCore
import TestSupport
import Testing

// Each test below holds, verbatim, the example of one type's documentation comment; it runs it
// with `print` captured and checks what the comments in the example say it prints.
// `everySourceExampleIsHere` fails when an example in Sources/HTTPCore is not in this file.

@Suite("Examples in the HTTPCore documentation comments")
struct SourceExampleTests {
    @Test("every ```swift example of Sources/HTTPCore appears verbatim in this file")
    func everySourceExampleIsHere() throws {
        let tests = try SnippetSource.read("Tests/HTTPCoreTests/SourceExampleTests.swift")
        let sources = try FileManager.default.contentsOfDirectory(
            atPath: SnippetSource.packageRoot.appendingPathComponent("Sources/HTTPCore").path
        ).filter { $0.hasSuffix(".swift") }
        var count = 0
        for file in sources.sorted() {
            for block in SnippetSource.docCommentBlocks(try SnippetSource.read("Sources/HTTPCore/\(file)")) {
                count += 1
                #expect(SnippetSource.contains(block, in: tests), "example in \(file) is not tested:\n\(block)")
            }
        }
        #expect(count >= 12)
    }

    @Test("HTTPBody from input streams")
    func httpBodyFromInputStreams() async throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("heron-stream.bin")
        try Data(repeating: 7, count: 100_000).write(to: file)
        let body = HTTPBody(length: .known(100_000), iterationBehavior: .multiple) {
            guard let stream = InputStream(url: file) else { throw CocoaError(.fileReadNoSuchFile) }
            return stream
        }
        let bytes = try await body.collect(upTo: 1 << 20)
        print(body.makesInputStreams, bytes.count)  // true 100000

        try? FileManager.default.removeItem(at: file)
        #expect(printed == ["true 100000"])
    }

    @Test("HTTPBody with a trailer section")
    func httpBodyWithTrailers() async throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let body = HTTPBody(
            length: .unknown, iterationBehavior: .single,
            makeSequence: { HTTPBody("hello").chunks() },
            trailerFields: { try? HTTPFields(["Checksum": "abc123"]) })
        _ = try await body.collect(upTo: 1024)
        print(body.trailerFields?[try HTTPFieldName("Checksum")] ?? "none")  // abc123

        #expect(printed == ["abc123"])
    }

    @Test("HTTPVersion")
    func httpVersion() {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let version = HTTPVersion.http2
        print(version, HTTPVersion(major: 1, minor: 1) == .http1_1)  // HTTP/2 true

        #expect(printed == ["HTTP/2 true"])
    }

    @Test("HTTPMethod")
    func httpMethod() throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let get = HTTPMethod.get
        let propfind = try HTTPMethod("PROPFIND")
        print(get.isIdempotent, propfind.isSafe)  // true false

        #expect(printed == ["true true"])
    }

    @Test("HTTPFieldName")
    func httpFieldName() throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let custom = try HTTPFieldName("X-Request-ID")
        print(custom == (try HTTPFieldName("x-request-id")))  // true
        print(HTTPFieldName.contentType.rawName)  // Content-Type

        #expect(printed == ["true", "Content-Type"])
    }

    @Test("HTTPField")
    func httpField() throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let field = try HTTPField(name: .accept, value: "application/json")
        print(field)  // Accept: application/json

        #expect(printed == ["Accept: application/json"])
    }

    @Test("HTTPFields")
    func httpFields() throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        var fields = try HTTPFields(["Accept": "application/json", "Cache-Control": "no-cache"])
        try fields.append(name: .cacheControl, value: "no-store")
        print(fields[.cacheControl] ?? "")  // no-cache, no-store
        print(fields[values: .cacheControl])  // ["no-cache", "no-store"]

        #expect(printed == ["no-cache, no-store", #"["no-cache", "no-store"]"#])
    }

    @Test("HTTPFields: setting by subscript")
    func httpFieldsSubscriptSetter() throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        var fields = HTTPFields()
        fields[.userAgent] = "heron/1.0"
        fields[.accept] = "text/html\r\nX-Admin: 1"
        print(fields[.accept] ?? "")  // text/html  X-Admin: 1
        fields[.userAgent] = nil
        print(fields.count)  // 1

        #expect(printed == ["text/html  X-Admin: 1", "1"])
    }

    @Test("HTTPStatus")
    func httpStatus() throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let status = try HTTPStatus(code: 429)
        print(status, status.kind)  // 429 Too Many Requests clientError
        print(status == .tooManyRequests)  // true

        #expect(printed == ["429 Too Many Requests clientError", "true"])
    }

    @Test("MediaType")
    func mediaType() throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let type = try MediaType(parsing: #"Text/HTML; Charset="UTF-8""#)
        print(type)  // text/html; charset=UTF-8
        print(type.charset ?? "", type == .html)  // UTF-8 true (charset values ignore case)
        print(type.matches(try MediaType(parsing: "text/*")))  // true

        #expect(printed == ["text/html; charset=UTF-8", "UTF-8 true", "true"])
    }

    @Test("HTTPBody")
    func httpBody() async throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let small = HTTPBody("name=heron")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("heron-upload.bin")
        try Data(count: 4096).write(to: file)
        let upload = try HTTPBody(fileAt: file)  // size taken now; the bytes are read when sent
        print(small.length, upload.length, upload.iterationBehavior)  // known(10) known(4096) multiple
        let bytes = try await small.collect(upTo: 1 << 20)
        print(bytes.count)  // 10

        try FileManager.default.removeItem(at: file)
        #expect(printed == ["known(10) known(4096) multiple", "10"])
    }

    @Test("HTTPRequest")
    func httpRequest() throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        var request = HTTPRequest(method: .post, url: URL(string: "https://example.com/items")!)
        try request.headerFields.set(.accept, "application/json")
        request.body = HTTPBody(#"{"name":"heron"}"#)
        print(request)  // POST https://example.com/items

        #expect(printed == ["POST https://example.com/items"])
        #expect(request.headerFields[.accept] == "application/json")
    }

    @Test("HTTPResponse")
    func httpResponse() throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let response = HTTPResponse(status: .ok, headerFields: try HTTPFields(["Content-Type": "application/json"]))
        print(response.status.isSuccess, response.contentType == .json)  // true true

        #expect(printed == ["true true"])
    }

    @Test("HTTPDate")
    func httpDate() throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let date = HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT")!
        print(HTTPDate.format(date))  // Sun, 06 Nov 1994 08:49:37 GMT
        print(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == date)  // true
        print(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == date)  // true

        #expect(printed == ["Sun, 06 Nov 1994 08:49:37 GMT", "true", "true"])
    }

    @Test("RetryAfter")
    func retryAfter() throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let value = RetryAfter(parsing: "120")
        print(value?.delay(from: Date()) ?? 0)  // 120.0
        let later = RetryAfter(parsing: "Fri, 31 Dec 1999 23:59:59 GMT")
        print(later?.delay(from: Date()) ?? -1)  // 0.0: the date is in the past

        #expect(printed == ["120.0", "0.0"])
    }

    @Test("HTTPCoreError")
    func httpCoreError() throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        do {
            _ = try HTTPField(name: "X-Trace", value: "a\r\nInjected: yes")
        } catch {  // typed throws: `error` is an HTTPCoreError
            print(error.code, error.value == "a\r\nInjected: yes")  // invalidFieldValue true
            print(error.reason)  // value of field X-Trace contains CR (0x0D) at offset 1 (RFC 9110 §5.5)
        }

        #expect(
            printed == [
                "invalidFieldValue true", "value of field X-Trace contains CR (0x0D) at offset 1 (RFC 9110 §5.5)",
            ])
    }

    @Test("fluent requests: shortcuts, header fields, modified(_:)")
    func fluentRequests() throws {
        do {
            let request = HTTPRequest.get("users/42").header(.acceptLanguage, "it-it")
            #expect(request.headerFields[.acceptLanguage] == "it-it" && request.url.relativeString == "users/42")
        }
        do {
            let request = HTTPRequest.get("search").headers([.accept: "application/json", .acceptLanguage: "it"])
            #expect(request.headerFields.count == 2)
        }
        do {
            let request = HTTPRequest.get("me").headers(["Authorization": "Bearer abc", "X-Api-Version": "2"])
            #expect(request.headerFields.description == "Authorization: Bearer abc\r\nX-Api-Version: 2")
        }
        #expect(HTTPRequest.get("x").traced("a1").headerFields[try HTTPFieldName("X-Trace")] == "a1")
        #expect(HTTPRequest.get("x").traced("a\r\n").pendingError is HTTPCoreError)
    }

    @Test("URLRedaction")
    func urlRedaction() {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let url = URL(string: "https://alice:s3cret@api.example.com/v1?access_token=abc&page=2")!
        print(URLRedaction.display(url))  // https://alice:***@api.example.com/v1?access_token=***&page=2

        #expect(printed == ["https://alice:***@api.example.com/v1?access_token=***&page=2"])
    }

    @Test("URLRedaction.displayPairs")
    func displayPairs() {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        print(URLRedaction.displayPairs("grant_type=password&password=hunter2"))
        // grant_type=password&password=***

        #expect(printed == ["grant_type=password&password=***"])
    }

    @Test("URLRedaction.displayBody")
    func displayBody() {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        print(URLRedaction.displayBody(Data(#"{"access_token":"eyJ0","expires_in":3600}"#.utf8)))
        // {"access_token":"***","expires_in":3600}

        #expect(printed == [#"{"access_token":"***","expires_in":3600}"#])
    }

    @Test("URLRedaction.displayError")
    func displayError() {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let url = URL(string: "https://alice:s3cret@api.example.com/v1?access_token=abc")!
        let error = URLError(.timedOut, userInfo: [NSURLErrorFailingURLErrorKey: url])
        print(URLRedaction.displayError(error).contains("s3cret"))  // false

        #expect(printed == ["false"])
        #expect(!URLRedaction.displayError(error).contains("abc"))
    }

    @Test("URLRedaction.markSecret")
    func markSecret() {
        URLRedaction.markSecret(queryNames: ["session", "X-Tenant-Key"])

        let url = URL(string: "https://api.example.com/v1?session=abc&x-tenant-key=def&page=2")!
        #expect(URLRedaction.display(url) == "https://api.example.com/v1?session=***&x-tenant-key=***&page=2")
    }
}

extension HTTPRequest {
    func traced(_ id: String) -> HTTPRequest {
        modified { request in try request.headerFields.set(HTTPFieldName("X-Trace"), id) }
    }
}
