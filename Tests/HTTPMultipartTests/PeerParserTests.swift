import Foundation
import HTTPCore
import HTTPMultipart
import TestTraits
import Testing

/// Every form is parsed back by two real parsers outside Swift (PyPI `multipart` and
/// `python-multipart`, see Tests/Peers/parse_multipart.py), and what they read must be
/// exactly what was put in.
@Suite("Real multipart parsers read back every form", .heavyWork)
struct PeerParserTests {
    /// Checks both parsers' view of `body` against `spec`.
    static func expectParsed(_ body: Data, matches spec: FormSpec) async throws {
        let result = try await MultipartPeer.parse(body, boundary: spec.boundary)
        try #require(result.multipart.count == spec.parts.count, "multipart saw \(result.multipart)")
        try #require(result.pythonMultipart.count == spec.parts.count, "python-multipart saw \(result.pythonMultipart)")
        for (index, part) in spec.parts.enumerated() {
            let decoded = result.multipart[index]
            let escaped = result.pythonMultipart[index]
            // `multipart` decodes %22, %0D and %0A: it gives back the original names.
            #expect(decoded.name == part.name, "part \(index)")
            #expect(decoded.filename == part.filename, "part \(index)")
            // `python-multipart` keeps them: it gives the WHATWG-escaped form.
            #expect(escaped.name == FormSpec.whatwgEscaped(part.name), "part \(index)")
            #expect(escaped.filename == part.filename.map(FormSpec.whatwgEscaped), "part \(index)")
            #expect(decoded.contentType == part.expectedContentType, "part \(index)")
            #expect(escaped.contentType == part.expectedContentType, "part \(index)")
            #expect(decoded.data == part.bytes, "part \(index): \(decoded.data.count) of \(part.bytes.count) bytes")
            #expect(escaped.data == part.bytes, "part \(index): \(escaped.data.count) of \(part.bytes.count) bytes")
        }
    }

    @Test("seeded random forms are read back exactly from every output", arguments: 0..<40)
    func randomForm(seed: UInt64) async throws {
        let spec = FormSpec.random(seed: seed)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let outputs = try await Outputs(chunkSize: 4096) { try spec.build(in: directory) }
        #expect(outputs.memoryBytes == outputs.diskBytes)
        #expect(outputs.memoryBytes == outputs.streamBytes)
        // The length announced up front is the length of the bytes written, for every output.
        let announced = [outputs.memory, outputs.disk, outputs.stream].map(\.contentLength)
        #expect(announced == Array(repeating: Int64(outputs.memoryBytes.count), count: 3))
        #expect(try spec.build(in: directory).contentLength == Int64(outputs.memoryBytes.count))
        try await Self.expectParsed(outputs.memoryBytes, matches: spec)
    }

    @Test("names and filenames with quotes, CR, LF and non-ASCII text are read back")
    func hostileNames() async throws {
        let boundary = try MultipartBoundary("hostile-names")
        let spec = FormSpec(
            parts: [
                .init(
                    name: "a\"; filename=\"evil.sh", filename: nil, contentType: nil, bytes: Data("x".utf8),
                    source: .text),
                .init(
                    name: "line\r\nContent-Type: text/html\r\n\r\n--hostile-names",
                    filename: "r\u{e9}sum\u{e9} \"final\"\n.pdf",
                    contentType: nil, bytes: Data("%PDF".utf8), source: .data),
                .init(name: "日本語", filename: "写真🦩.jpg", contentType: nil, bytes: Data([0xFF, 0xD8]), source: .data),
            ], boundary: boundary)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let encoded = try await spec.build(in: directory).encodedInMemory()
        try await Self.expectParsed(try #require(encoded.data), matches: spec)
    }

    @Test(
        "a backslash in a name or filename cannot change how Werkzeug, python-multipart or multipart split the part",
        arguments: [#"up\"#, #"up\"; filename="f.txt"#, #"a\\b\"c"#, #"\"#])
    func backslashNames(name: String) async throws {
        let boundary = try MultipartBoundary("backslash-names")
        var form = MultipartForm(boundary: boundary)
        form.append(name: name, value: "field value")
        form.append(name: "file", data: Data("file body".utf8), filename: name + ".txt")
        let body = try #require(try await form.encodedInMemory().data)
        let result = try await MultipartPeer.parse(body, boundary: boundary)
        let expected = FormSpec.whatwgEscaped(name)
        for (parser, parts) in [("multipart", result.multipart), ("python-multipart", result.pythonMultipart)] {
            try #require(parts.count == 2, "\(parser) saw \(parts)")
            // The first part stays a text field, named as sent; the second stays a file.
            #expect(parts[0].filename == nil, "\(parser): \(parts[0])")
            #expect(parts[0].data == Data("field value".utf8), "\(parser)")
            #expect(parts[1].name == "file" && parts[1].filename != nil, "\(parser): \(parts[1])")
        }
        // multipart and Werkzeug decode %22, %0D and %0A but not %5C; python-multipart decodes none.
        let decoded = name.replacingOccurrences(of: "\\", with: "%5C")
        #expect(result.multipart[0].name == decoded && result.multipart[1].filename == decoded + ".txt")
        #expect(result.pythonMultipart[0].name == expected)
        #expect(result.pythonMultipart[1].filename == expected + ".txt")
        let fields = result.werkzeug.filter { $0.filename == nil }
        let files = result.werkzeug.filter { $0.filename != nil }
        #expect(fields.map(\.name) == [decoded], "werkzeug saw \(result.werkzeug)")
        #expect(files.map(\.name) == ["file"] && files.first?.filename == decoded + ".txt")
        #expect(files.first?.data == Data("file body".utf8))
    }

    @Test("empty parts and zero-byte files are read back as empty")
    func emptyParts() async throws {
        let spec = FormSpec(
            parts: [
                .init(name: "", filename: nil, contentType: nil, bytes: Data(), source: .text),
                .init(name: "empty-file", filename: "empty.txt", contentType: nil, bytes: Data(), source: .file),
                .init(name: "empty-stream", filename: nil, contentType: nil, bytes: Data(), source: .inputStream),
                .init(name: "empty-chunks", filename: "", contentType: nil, bytes: Data(), source: .chunks),
            ], boundary: .random())
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let outputs = try await Outputs { try spec.build(in: directory) }
        #expect(outputs.memoryBytes == outputs.streamBytes)
        try await Self.expectParsed(outputs.diskBytes, matches: spec)
    }

    @Test("a custom part's own header fields reach the parser in order")
    func customPartFields() async throws {
        let fields = try HTTPFields([
            "Content-Disposition": #"form-data; name="report"; filename="q3.csv""#,
            "Content-Type": "text/csv",
            "Content-Language": "en",
        ])
        var form = MultipartForm()
        form.append(try MultipartPart(headerFields: fields, data: Data("a,b\n".utf8)))
        let result = try await MultipartPeer.parse(
            try #require(try await form.encodedInMemory().data), boundary: form.boundary)
        let part = try #require(result.multipart.first)
        #expect(part.headers == fields.map { [$0.name.rawName, $0.value] })
        #expect(part.name == "report")
        #expect(part.filename == "q3.csv")
        #expect(part.data == Data("a,b\n".utf8))
    }

    @Test("a literal percent escape in a name is sent unchanged, and decoding parsers turn it into the character")
    func literalPercentEscape() async throws {
        var form = MultipartForm()
        form.append(name: "100%22 sure", value: "v")
        let result = try await MultipartPeer.parse(
            try #require(try await form.encodedInMemory().data), boundary: form.boundary)
        // WHATWG escaping is not reversible: `multipart` reads %22 as a quote, python-multipart keeps it.
        #expect(result.multipart.first?.name == "100\" sure")
        #expect(result.pythonMultipart.first?.name == "100%22 sure")
    }
}
