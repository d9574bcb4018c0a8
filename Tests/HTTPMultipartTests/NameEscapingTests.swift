import Foundation
import HTTPCore
import HTTPMultipart
import Testing

@Suite("Field names and filenames are escaped as browsers do")
struct NameEscapingTests {
    static func disposition(name: String, filename: String? = nil) throws -> String {
        var form = MultipartForm()
        form.append(name: name, data: Data(), filename: filename)
        return try #require(form.parts.first?.headerFields[.contentDisposition])
    }

    @Test(
        "quote, CR and LF become %22, %0D and %0A (WHATWG), and a backslash %5C (for Python servers' parsers)",
        arguments: [
            ("a\"b", "a%22b"), ("a\rb", "a%0Db"), ("a\nb", "a%0Ab"), ("\r\n\"", "%0D%0A%22"),
            ("plain", "plain"), ("semi;colon=x", "semi;colon=x"), ("back\\slash", "back%5Cslash"),
        ])
    func escapes(raw: String, escaped: String) throws {
        #expect(try Self.disposition(name: raw) == "form-data; name=\"\(escaped)\"")
        #expect(try Self.disposition(name: "n", filename: raw) == "form-data; name=\"n\"; filename=\"\(escaped)\"")
    }

    @Test("non-ASCII names and filenames are sent as raw UTF-8 (RFC 7578 §4.2)")
    func utf8() async throws {
        var form = MultipartForm(boundary: try MultipartBoundary("b"))
        form.append(name: "名前", data: Data(), filename: "café 🦩.png")
        let bytes = try #require(try await form.encodedInMemory().data)
        let expected = Data("Content-Disposition: form-data; name=\"名前\"; filename=\"café 🦩.png\"\r\n".utf8)
        #expect(bytes.range(of: expected) != nil)
    }

    @Test("a hostile name cannot add a header or a part")
    func hostileName() async throws {
        var form = MultipartForm(boundary: try MultipartBoundary("b"))
        form.append(name: "x\"\r\nContent-Type: text/html\r\n\r\n--b\r\n", value: "v")
        let text = String(decoding: try #require(try await form.encodedInMemory().data), as: UTF8.self)
        let lines = text.components(separatedBy: "\r\n")
        #expect(lines.filter { $0.hasPrefix("Content-Type") }.isEmpty)
        #expect(lines.filter { $0.hasPrefix("--b") } == ["--b", "--b--"])
    }

    @Test(
        "names with other control characters are refused naming them",
        arguments: ["nul\u{0}", "bell\u{7}", "del\u{7F}"])
    func controlCharacters(name: String) {
        var form = MultipartForm()
        form.append(name: name, value: "v")
        #expect(form.pendingError?.code == .invalidName && form.pendingError?.value == name)
        #expect(form.parts.isEmpty)
    }

    @Test(
        "data and stream parts need no try: a bad name or negative length is kept as pendingError, the first wins",
        arguments: ["nul\u{0}", "bell\u{7}", "del\u{7F}"])
    func keptErrors(name: String) async throws {
        var form = MultipartForm()
        form.append(name: "ok", data: Data("kept".utf8))
        form.append(name: "ok", data: Data(), filename: name)
        #expect(form.pendingError?.code == .invalidName && form.pendingError?.value == name)
        form.append(name: "later\u{0}", value: "v")
        form.append(name: "s", stream: InputStream(data: Data("abc".utf8)), length: -1)
        form.append(name: "c", chunks: AsyncStream<Data> { $0.finish() }, length: -1)
        form.append(name: name, stream: InputStream(data: Data("abc".utf8)), length: 3)
        #expect(form.pendingError?.value == name)
        #expect(form.parts.count == 1)
        await #expect {
            _ = try await form.encodedInMemory()
        } throws: { error in
            (error as? MultipartError)?.code == .invalidName && (error as? MultipartError)?.value == name
        }

        var lengths = MultipartForm()
        lengths.append(name: "s", stream: InputStream(data: Data("abc".utf8)), length: -1)
        #expect(lengths.pendingError?.code == .invalidLength)
        var chunks = MultipartForm()
        chunks.append(name: "c", chunks: AsyncStream<Data> { $0.finish() }, length: -5)
        #expect(chunks.pendingError?.code == .invalidLength)
        #expect(lengths.parts.isEmpty && chunks.parts.isEmpty)
    }

    @Test("a custom part without Content-Disposition is refused (RFC 7578 §4.2)")
    func customWithoutDisposition() throws {
        let fields = try HTTPFields(["Content-Type": "text/plain"])
        #expect {
            _ = try MultipartPart(headerFields: fields, data: Data())
        } throws: { error in
            (error as? MultipartError)?.code == .invalidHeader
        }
    }
}
