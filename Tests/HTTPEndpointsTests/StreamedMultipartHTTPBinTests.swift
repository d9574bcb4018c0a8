import Foundation
import HTTPClient
import HTTPEndpoints
import HTTPMultipart
import TestSupport
import Testing

/// A multipart form sent through ``Client`` as its streaming body (`streamingBody()`: exact
/// length, no temporary file) reaches the local httpbin whole, framed by its length.
@Suite("Streamed multipart forms against httpbin")
struct StreamedMultipartHTTPBinTests {
    /// What httpbin's `/post` says it received.
    struct Echo: Decodable, Sendable {
        /// The text fields.
        var form: [String: String]
        /// The file parts: text, or a `data:` URL when the content is not UTF-8.
        var files: [String: String]
        /// The request's header fields.
        var headers: [String: String]
    }

    @Test("a streamed form with a 1 MiB file part reaches httpbin whole, with its exact Content-Length, not chunked")
    func streamedFormWithFilePart() async throws {
        try await EndpointHTTPBinTests.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("noise.bin")
            let bytes = EndpointHTTPBinTests.randomBytes((1 << 20) + 17)
            try bytes.write(to: file)
            var form = MultipartForm()
            form.append(name: "caption", value: "héron ☕")
            try form.append(name: "upload", fileAt: file)
            let encoded = form.streamingBody()
            guard case .stream = encoded.body.source else {
                Issue.record("streamingBody() gave a body of \(encoded.body.source), not a stream")
                return
            }

            let client = Client(baseURL: try TestServers.httpbin(), retry: .none)
            let echo = try await client.send(.post("post").body(encoded), decoding: Echo.self)
            #expect(echo.form == ["caption": "héron ☕"])
            #expect(echo.files.keys.sorted() == ["upload"])
            let received = try #require(echo.files["upload"].flatMap(EndpointHTTPBinTests.fileContent))
            #expect(received.count == bytes.count)
            #expect(received == bytes)
            #expect(echo.headers["Content-Type"] == encoded.contentType.description)
            #expect(echo.headers["Content-Length"] == String(encoded.contentLength))
            #expect(echo.headers["Transfer-Encoding"] == nil)
        }
    }
}
