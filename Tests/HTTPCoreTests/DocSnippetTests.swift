import Foundation
import HTTPCore
import TestSupport
import Testing

// The snippets of Docs/HTTPCore.md and Sources/HTTPCore/HTTPCore.docc/HTTPCore.md, verbatim,
// run with `print` captured; `everyGuideSnippetIsHere` fails when a snippet there is not here.

@Suite("Snippets of the HTTPCore guide and catalog")
struct DocSnippetTests {
    @Test(
        "every ```swift snippet of the guide and the catalog appears verbatim in this file",
        arguments: ["Docs/HTTPCore.md", "Sources/HTTPCore/HTTPCore.docc/HTTPCore.md"])
    func everyGuideSnippetIsHere(document: String) throws {
        let tests = try SnippetSource.read("Tests/HTTPCoreTests/DocSnippetTests.swift")
        let blocks = SnippetSource.markdownBlocks(try SnippetSource.read(document))
        #expect(!blocks.isEmpty)
        for block in blocks {
            #expect(SnippetSource.contains(block, in: tests), "snippet of \(document) is not tested:\n\(block)")
        }
    }

    @Test("guide: a request, checked as it is built")
    func guideRequest() throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        var request = HTTPRequest(method: .post, url: URL(string: "https://api.example.com/v2/posts")!)
        try request.headerFields.set(.contentType, MediaType.json.description)
        try request.headerFields.append(name: .accept, value: "application/json")
        try request.headerFields.append(name: .accept, value: "text/plain;q=0.5")
        request.body = HTTPBody(#"{"title":"Hi"}"#)
        print(request)  // POST https://api.example.com/v2/posts
        print(request.headerFields[.accept] ?? "")  // application/json, text/plain;q=0.5
        print(request.body?.length ?? .unknown, request.method.isIdempotent)  // known(14) false

        do {
            try request.headerFields.append(name: .userAgent, value: "heron\r\nX-Admin: 1")
        } catch {
            print(error.code, error.value == "heron\r\nX-Admin: 1")  // invalidFieldValue true
        }
        print(request.headerFields.count)  // 3: the rejected field was not added

        #expect(
            printed == [
                "POST https://api.example.com/v2/posts",
                "application/json, text/plain;q=0.5",
                "known(14) false",
                "invalidFieldValue true",
                "3",
            ])
    }

    @Test("guide: fields given as text, and a setter that never traps")
    func guideFieldsAsText() throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let fromURLSession: [String: String] = ["X-Api-Version": "2", "Accept": "application/json"]
        let me = HTTPRequest.get("https://api.example.com/me").headers(fromURLSession)
        print(me.headerFields.map(\.name.rawName))  // ["Accept", "X-Api-Version"]: sorted by name
        print(HTTPRequest.get("me").headers(["Bad Name": "x"]).pendingError != nil)  // true

        var fields = HTTPFields()
        fields[.userAgent] = "heron/1.0"  // replaces every User-Agent field
        fields[.accept] = "text/html\r\nX-Admin: 1"  // never traps, never adds a field
        print(fields["accept"] ?? "")  // text/html  X-Admin: 1
        fields[.userAgent] = nil  // removes them
        print(fields.count, fields["Bad Name"] == nil)  // 1 true

        #expect(printed == [#"["Accept", "X-Api-Version"]"#, "true", "text/html  X-Admin: 1", "1 true"])
    }

    @Test("guide: reading a response head")
    func guideResponse() throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let response = HTTPResponse(
            status: try HTTPStatus(code: 503),
            headerFields: try HTTPFields([
                "Content-Type": #"text/plain; charset="UTF-8""#,
                "Retry-After": "Sun, 06 Nov 1994 08:49:37 GMT",
            ]))
        print(response.status, response.status.kind)  // 503 Service Unavailable serverError
        print(response.contentType == .plainText, response.contentType?.stringEncoding == .utf8)  // true true
        let received = HTTPDate.parse("Sun, 06 Nov 1994 08:48:07 GMT")!
        print(RetryAfter(response.headerFields)?.delay(from: received) ?? 0)  // 90.0

        #expect(printed == ["503 Service Unavailable serverError", "true true", "90.0"])
    }

    @Test("guide: bodies")
    func guideBodies() async throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let fileURL = FileManager.default.temporaryDirectory.appendingPathComponent("heron-guide-\(UUID()).txt")
        try Data("hello, file".utf8).write(to: fileURL)
        defer { try? FileManager.default.removeItem(at: fileURL) }

        let fileBody = try HTTPBody(fileAt: fileURL)  // size from the file system; bytes read when sent
        print(fileBody.length, fileBody.isReplayable)  // known(11) true
        var received = Data()
        for try await chunk in fileBody.chunks(size: 4) { received.append(chunk) }
        print(String(decoding: received, as: UTF8.self))  // hello, file

        let once = AsyncStream<Data> { continuation in
            continuation.yield(Data("once".utf8))
            continuation.finish()
        }
        let streamed = HTTPBody(stream: once, length: .known(4))
        print(try await streamed.collect(upTo: 1024).count, streamed.isReplayable)  // 4 false
        do {
            _ = try await streamed.collect(upTo: 1024)
        } catch let error as HTTPCoreError {
            print(error.code)  // bodyAlreadyConsumed
        }

        #expect(printed == ["known(11) true", "hello, file", "4 false", "bodyAlreadyConsumed"])
    }

    @Test("guide: the error description shown in the Errors section")
    func guideErrorDescription() throws {
        var fields = HTTPFields()
        let error = #expect(throws: HTTPCoreError.self) {
            try fields.append(name: .userAgent, value: "heron\r\nX-Admin: 1")
        }
        let guide = try SnippetSource.read("Docs/HTTPCore.md")
        let shown = try #require(error?.description)
        #expect(shown.hasPrefix(#"invalidFieldValue: "heron\r\nX-Admin: 1": value of field User-Agent"#))
        #expect(guide.contains("```text\n\(shown)\n```"))
    }

    @Test("catalog: overview")
    func catalogOverview() throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        var fields = try HTTPFields(["Accept": "application/json"])
        try fields.append(name: .authorization, value: "Bearer abc123")
        let request = HTTPRequest(method: .get, url: URL(string: "https://example.com/me")!, headerFields: fields)
        print(request, request.headerFields.count)  // GET https://example.com/me 2
        print((try? HTTPFieldName("Bad Name")) == nil)  // true: not an RFC 9110 token

        #expect(printed == ["GET https://example.com/me 2", "true"])
    }
}
