import Foundation
import HTTPCore
import HTTPMultipart
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Forms POSTed to the local httpbin (`HERON_HTTPBIN_URL`, started by scripts/test) come
/// back in its `form` and `files` fields.
@Suite("httpbin reads posted forms")
struct HTTPBinTests {
    struct Echo: Decodable {
        let form: [String: String]
        let files: [String: String]
        let headers: [String: String]
    }

    static func post(
        _ encoded: EncodedForm, upload: (URLSession, URLRequest) async throws -> (Data, URLResponse)
    )
        async throws -> Echo
    {
        var request = URLRequest(url: try TestServers.httpbin().appendingPathComponent("post"))
        request.httpMethod = "POST"
        request.setValue(encoded.contentType.description, forHTTPHeaderField: "Content-Type")
        request.setValue(String(encoded.contentLength), forHTTPHeaderField: "Content-Length")
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await upload(session, request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        return try JSONDecoder().decode(Echo.self, from: data)
    }

    static func sampleForm(in directory: TemporaryDirectory) throws -> MultipartForm {
        var form = MultipartForm()
        form.append(name: "title", value: "Héron au bord de l'eau")
        form.append(name: "multi\nline", value: "first\r\nsecond")
        form.append(name: "say \"hi\"", value: "quoted")
        form.append(name: "notes", data: Data("plain notes".utf8), filename: "notes.txt")
        try form.append(name: "config", fileAt: try directory.file("config.json", Data(#"{"a":1}"#.utf8)))
        return form
    }

    static func expectSample(_ echo: Echo) {
        #expect(echo.form["title"] == "Héron au bord de l'eau")
        // Werkzeug (httpbin's parser) decodes %22 back to a quote but keeps %0A as sent.
        #expect(echo.form["multi%0Aline"] == "first\r\nsecond")
        #expect(echo.form["say \"hi\""] == "quoted")
        #expect(echo.files["notes"] == "plain notes")
        #expect(echo.files["config"] == #"{"a":1}"#)
        #expect(echo.headers["Content-Type"]?.hasPrefix("multipart/form-data; boundary=Heron-") == true)
    }

    @Test("a form encoded in memory is read by httpbin")
    func inMemory() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let encoded = try await Self.sampleForm(in: directory).encodedInMemory()
        let body = try #require(encoded.data)
        let echo = try await Self.post(encoded) { session, request in try await session.upload(for: request, from: body)
        }
        Self.expectSample(echo)
    }

    @Test("a form encoded to disk is uploaded from its file and read by httpbin")
    func fromDisk() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let encoded = try await Self.sampleForm(in: directory).encode(
            toFileAt: directory.url.appendingPathComponent("upload.form"))
        let file = try #require(encoded.fileURL)
        let echo = try await Self.post(encoded) { session, request in
            try await session.upload(for: request, fromFile: file)
        }
        Self.expectSample(echo)
    }

    @Test("a streaming body's bytes are read by httpbin, binary file parts included")
    func streamed() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var form = try Self.sampleForm(in: directory)
        let binary = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0) })
        form.append(name: "blob", stream: InputStream(data: binary), length: Int64(binary.count), filename: "b.bin")
        let encoded = form.streamingBody(chunkSize: 1000)
        let body = try await encoded.body.collect(upTo: 1 << 20)
        let echo = try await Self.post(encoded) { session, request in try await session.upload(for: request, from: body)
        }
        Self.expectSample(echo)
        #expect(echo.files["blob"] == "data:application/octet-stream;base64," + binary.base64EncodedString())
    }
}
