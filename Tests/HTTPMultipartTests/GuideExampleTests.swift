import Foundation
import HTTPCore
import HTTPMultipart
import Testing

/// The examples of Docs/HTTPMultipart.md, run with real files.
@Suite("Guide examples")
struct GuideExampleTests {
    @Test("the opening example builds a streaming form with an inferred file part")
    func openingExample() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let photo = try directory.file("heron.jpg", Data([0xFF, 0xD8, 0xFF, 0xE0]))

        var form = MultipartForm()
        form.append(name: "title", value: "Heron at dawn")
        try form.append(name: "photo", fileAt: photo)
        form.append(name: "notes", data: Data("shot at 6am".utf8), filename: "notes.txt")
        let encoded = form.streamingBody()

        #expect(encoded.contentType.description.hasPrefix("multipart/form-data; boundary=Heron-"))
        let bytes = try await encoded.body.collect(upTo: 1 << 20)
        #expect(Int64(bytes.count) == encoded.contentLength)
        let parts = try await MultipartPeer.parse(bytes, boundary: form.boundary).multipart
        #expect(parts.map(\.name) == ["title", "photo", "notes"])
        #expect(parts[1].filename == "heron.jpg")
        #expect(parts[1].contentType == "image/jpeg")
        #expect(parts[2].contentType == "text/plain")
    }

    @Test("the text-part example: no try, and a refused name kept as the pending error")
    func textPartExample() {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        var fields = MultipartForm()
        fields.append(name: "title", value: "Heron at dawn")
        fields.append(name: "bad\u{0}", value: "x")  // not appended
        print(fields.parts.count, fields.pendingError?.code == .invalidName)  // 1 true

        let request = HTTPRequest.post("upload").multipart { form in
            form.append(name: "title", value: "Heron at dawn")
            form.append(name: "caption", value: "shot at 6am")
        }
        print(request.pendingError == nil)  // true

        #expect(printed == ["1 true", "true"])
    }

    @Test("the three ways out and the best one give the same bytes")
    func threeWaysOut() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var form = MultipartForm()
        form.append(name: "title", value: "Heron at dawn")
        let url = directory.url.appendingPathComponent("form.bin")

        let small = try await form.encodedInMemory()
        let big = try await form.encode(toFileAt: url, chunkSize: 1 << 20)
        let streamed = form.streamingBody(chunkSize: 1 << 20)
        let best = try await form.encoded()

        #expect(big.fileURL == url)
        #expect(try Data(contentsOf: url) == small.data)
        #expect(try await streamed.body.collect(upTo: 1 << 20) == small.data)
        #expect(best.data == small.data)
    }

    @Test("the Codable example writes the documented names")
    func codableExample() async throws {
        struct Profile: Encodable {
            struct Address: Encodable { var city: String }
            var name: String
            var address: Address
            var tags: [String]
            var avatar: MultipartFile
        }
        let profile = Profile(
            name: "Ada", address: .init(city: "London"), tags: ["math", "code"],
            avatar: MultipartFile(data: Data([0x89, 0x50]), filename: "ada.png"))
        let form = try MultipartFormEncoder().encode(profile)
        let data = try #require(try await form.encodedInMemory().data)
        let parts = try await MultipartPeer.parse(data, boundary: form.boundary).multipart
        #expect(parts.map(\.name) == ["address[city]", "avatar", "name", "tags[]", "tags[]"])
        #expect(parts[1].filename == "ada.png")
        #expect(parts[1].contentType == "image/png")
    }
}
