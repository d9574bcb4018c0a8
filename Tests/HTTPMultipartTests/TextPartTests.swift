import Foundation
import HTTPCore
import HTTPMultipart
import Testing

@Suite("Text parts appended without try")
struct TextPartTests {
    /// A form with a fixed boundary, a valid text part, a refused one, then another valid one.
    static func formWithRefusedName() throws -> MultipartForm {
        var form = MultipartForm(boundary: try MultipartBoundary("b"))
        form.append(name: "title", value: "Heron")
        form.append(name: "nul\u{0}", value: "x")
        form.append(name: "bell\u{7}", value: "y")
        form.append(name: "note", value: "after")
        return form
    }

    @Test("a text part needs no try and is encoded as UTF-8 without a Content-Type")
    func appendsWithoutTry() async throws {
        var form = MultipartForm(boundary: try MultipartBoundary("b"))
        form.append(name: "title", value: "Héron")
        #expect(form.pendingError == nil)
        #expect(form.parts.count == 1)
        let data = try #require(try await form.encodedInMemory().data)
        let expected = "--b\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nHéron\r\n--b--\r\n"
        #expect(String(decoding: data, as: UTF8.self) == expected)
    }

    @Test("a name that cannot be sent is not appended and is kept as the first pending error")
    func refusedNameIsKept() throws {
        let form = try Self.formWithRefusedName()
        let error = try #require(form.pendingError)
        #expect(error.code == .invalidName)
        #expect(error.value == "nul\u{0}")
        #expect(form.parts.count == 2)
    }

    @Test("CR, LF and quotes in a name are escaped, not refused")
    func escapedNameIsNoError() {
        var form = MultipartForm()
        form.append(name: "say \"hi\"\r\n", value: "v")
        #expect(form.pendingError == nil)
        #expect(form.parts.count == 1)
    }

    @Test("encoding in memory, to disk or by size throws the pending error and writes nothing")
    func encodingThrowsPendingError() async throws {
        let form = try Self.formWithRefusedName()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("form.bin")

        await #expect(throws: MultipartError.self) { try await form.encodedInMemory() }
        let toDisk = await #expect(throws: MultipartError.self) { try await form.encode(toFileAt: url) }
        #expect(toDisk?.code == .invalidName && toDisk?.value == "nul\u{0}")
        let bySize = await #expect(throws: MultipartError.self) {
            try await form.encoded(memoryThreshold: 0, temporaryDirectory: directory.url)
        }
        #expect(bySize?.code == .invalidName)
        #expect(try directory.contents().isEmpty)
    }

    @Test("a streaming body of a form with a pending error throws it before yielding a byte")
    func streamingBodyThrowsPendingError() async throws {
        let form = try Self.formWithRefusedName()
        let body = form.streamingBody().body
        var received = 0
        let error = await #expect(throws: MultipartError.self) {
            for try await chunk in body.chunks(size: 1 << 16) { received += chunk.count }
        }
        #expect(error?.code == .invalidName && error?.value == "nul\u{0}")
        #expect(received == 0)
    }

    @Test("HTTPRequest.multipart keeps the form's pending error as the request's, with no body")
    func requestKeepsPendingError() throws {
        let request = HTTPRequest.post("upload").multipart { form in
            form.append(name: "title", value: "Heron")
            form.append(name: "del\u{7F}", value: "x")
        }
        let error = try #require(request.pendingError as? MultipartError)
        #expect(error.code == .invalidName && error.value == "del\u{7F}")
        #expect(request.body == nil)
        #expect(request.headerFields[.contentType] == nil)
        #expect(throws: MultipartError.self) { try request.validated() }
    }

    @Test("HTTPRequest.multipart with valid text parts needs no try and sets the body")
    func requestWithTextParts() async throws {
        let request = HTTPRequest.post("upload").multipart(boundary: try MultipartBoundary("b")) { form in
            form.append(name: "title", value: "Heron")
        }
        #expect(request.pendingError == nil)
        #expect(request.headerFields[.contentType] == "multipart/form-data; boundary=b")
        let data = try await #require(request.body).collect(upTo: 1024)
        #expect(String(decoding: data, as: UTF8.self).contains("name=\"title\"\r\n\r\nHeron\r\n"))
    }

    @Test("the Codable encoder still throws at encode for a key that cannot be a part name")
    func codableEncoderThrows() {
        let error = #expect(throws: MultipartError.self) { try MultipartFormEncoder().encode(["a\u{0}b": "x"]) }
        #expect(error?.code == .invalidName)
    }

    @Test("the DocC example of append(name:value:)")
    func docExample() {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        var form = MultipartForm()
        form.append(name: "title", value: "Holiday")
        form.append(name: "bell\u{7}", value: "x")  // not appended: kept as pendingError
        print(form.parts.count, form.pendingError?.code == .invalidName)  // 1 true

        #expect(printed == ["1 true"])
    }
}
