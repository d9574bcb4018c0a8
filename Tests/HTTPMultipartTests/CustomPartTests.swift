import Foundation
import HTTPCore
import HTTPMultipart
import Testing

@Suite("Custom parts and cancellation")
struct CustomPartTests {
    static func fields(_ name: String) throws -> HTTPFields {
        try HTTPFields([
            "Content-Disposition": "form-data; name=\"\(name)\"; filename=\"\(name).bin\"",
            "Content-Type": "application/x-custom",
            "X-Checksum": "abc123",
        ])
    }

    @Test("custom parts take their content from data, a file, a stream or chunks")
    func everyContentKind() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let payload = Data("payload bytes".utf8)
        let file = try directory.file("f.bin", payload)
        var form = MultipartForm()
        form.append(try MultipartPart(headerFields: try Self.fields("data"), data: payload))
        form.append(try MultipartPart(headerFields: try Self.fields("file"), fileAt: file))
        form.append(
            try MultipartPart(
                headerFields: try Self.fields("stream"), stream: InputStream(data: payload),
                length: Int64(payload.count)))
        form.append(
            try MultipartPart(
                headerFields: try Self.fields("chunks"), chunks: FormSpec.chunked(payload), length: Int64(payload.count)
            ))
        #expect(form.parts.map(\.contentLength) == Array(repeating: Int64(payload.count), count: 4))
        #expect(form.parts.map(\.isReplayable) == [true, true, false, false])
        let data = try #require(try await form.encodedInMemory().data)
        let parts = try await MultipartPeer.parse(data, boundary: form.boundary).multipart
        #expect(parts.map(\.name) == ["data", "file", "stream", "chunks"])
        #expect(parts.allSatisfy { $0.data == payload && $0.contentType == "application/x-custom" })
        #expect(parts.allSatisfy { $0.headers.contains(["X-Checksum", "abc123"]) })
    }

    @Test("a custom file part for a missing file fails naming it")
    func missingCustomFile() throws {
        let path = "/nonexistent-heron/part.bin"
        #expect {
            _ = try MultipartPart(headerFields: try Self.fields("f"), fileAt: URL(fileURLWithPath: path))
        } throws: { ($0 as? MultipartError)?.value == path }
    }

    @Test("encoding to disk in a cancelled task throws cancelled and leaves no file")
    func cancelledDiskEncode() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var form = MultipartForm()
        form.append(name: "a", value: "b")
        let output = directory.url.appendingPathComponent("out.form")
        let task = Task { () async throws(MultipartError) -> EncodedForm in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await form.encode(toFileAt: output)
        }
        await #expect {
            _ = try await task.value
        } throws: { ($0 as? MultipartError)?.code == .cancelled }
        #expect(try directory.contents().isEmpty)
    }

    @Test("error messages name the code, the value and the reason")
    func errorDescription() {
        let error = MultipartError(.unreadableFile, value: "/tmp/a\"b\n.png", reason: "no such file")
        #expect(error.description == #"unreadableFile: "/tmp/a\"b\n.png": no such file"#)
    }
}
