import Foundation
import HTTPCore
import HTTPMultipart
import TestSupport
import TestTraits
import Testing

@Suite("Memory, disk and stream outputs", .heavyWork)
struct OutputEquivalenceTests {
    static func mixedSpec() -> FormSpec {
        var random = SplitMix64(seed: 7)
        let big = Data((0..<300_000).map { _ in UInt8.random(in: 0...255, using: &random) })
        return FormSpec(
            parts: [
                .init(name: "title", filename: nil, contentType: nil, bytes: Data("Holiday".utf8), source: .text),
                .init(name: "photo", filename: "beach.jpg", contentType: nil, bytes: big, source: .file),
                .init(name: "raw", filename: nil, contentType: nil, bytes: big.prefix(1000), source: .data),
                .init(
                    name: "log", filename: "log.txt", contentType: nil, bytes: big.suffix(70_000), source: .inputStream),
                .init(name: "feed", filename: nil, contentType: .json, bytes: big.prefix(5000), source: .chunks),
            ], boundary: try! MultipartBoundary("fixed-test-boundary"))
    }

    @Test("the three outputs are byte-identical for the same form and boundary", arguments: [1, 7, 4096, 1 << 20])
    func identicalBytes(chunkSize: Int) async throws {
        let spec = Self.mixedSpec()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let outputs = try await Outputs(chunkSize: chunkSize) { try spec.build(in: directory) }
        #expect(outputs.memoryBytes == outputs.diskBytes)
        #expect(outputs.memoryBytes == outputs.streamBytes)
        try await PeerParserTests.expectParsed(outputs.streamBytes, matches: spec)
    }

    @Test("every output reports the content type with its boundary and the exact length")
    func typeAndLength() async throws {
        let spec = Self.mixedSpec()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let form = try spec.build(in: directory)
        let outputs = try await Outputs { try spec.build(in: directory) }
        for encoded in [outputs.memory, outputs.disk, outputs.stream] {
            #expect(encoded.contentType.description == "multipart/form-data; boundary=fixed-test-boundary")
            #expect(encoded.contentLength == Int64(outputs.memoryBytes.count))
            #expect(encoded.body.length == .known(Int64(outputs.memoryBytes.count)))
        }
        #expect(form.contentLength == Int64(outputs.memoryBytes.count))
    }

    @Test("the body follows RFC 2046 §5.1.1 delimiters exactly")
    func exactLayout() async throws {
        var form = MultipartForm(boundary: try MultipartBoundary("b"))
        form.append(name: "a", value: "1")
        form.append(name: "f", data: Data("xy".utf8), filename: "f.txt")
        let bytes = try #require(try await form.encodedInMemory().data)
        let expected =
            "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n"
            + "--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"f.txt\"\r\n"
            + "Content-Type: text/plain\r\n\r\nxy\r\n--b--\r\n"
        #expect(String(decoding: bytes, as: UTF8.self) == expected)
    }

    @Test("an empty form is just the closing delimiter")
    func emptyForm() async throws {
        let form = MultipartForm(boundary: try MultipartBoundary("b"))
        #expect(try await form.encodedInMemory().data == Data("--b--\r\n".utf8))
        #expect(form.contentLength == 7)
    }

    @Test("a form of bytes and files gives a replayable stream that reads the same twice")
    func replayableStream() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var form = MultipartForm()
        try form.append(name: "f", fileAt: try directory.file("a.bin", Data(repeating: 7, count: 10_000)))
        form.append(name: "t", value: "text")
        let body = form.streamingBody(chunkSize: 1000).body
        #expect(body.iterationBehavior == .multiple)
        let first = try await body.collect(upTo: 1 << 20)
        let second = try await body.collect(upTo: 1 << 20)
        #expect(first == second)
        #expect(Int64(first.count) == form.contentLength)
    }

    @Test("a form with a one-shot stream part gives a single-use stream body")
    func singleUseStream() async throws {
        var form = MultipartForm()
        form.append(name: "s", stream: InputStream(data: Data("abc".utf8)), length: 3)
        let body = form.streamingBody().body
        #expect(body.iterationBehavior == .single)
        _ = try await body.collect(upTo: 1 << 20)
        await #expect(throws: HTTPCoreError.self) { _ = try await body.collect(upTo: 1 << 20) }
    }

    @Test("streaming chunks are all of the chunk size but the last", arguments: [1000, 4096])
    func chunkSizes(chunkSize: Int) async throws {
        var form = MultipartForm()
        form.append(name: "d", data: Data(repeating: 1, count: 20_000))
        var sizes: [Int] = []
        for try await chunk in form.streamingBody(chunkSize: chunkSize).body.chunks() { sizes.append(chunk.count) }
        #expect(sizes.dropLast().allSatisfy { $0 == chunkSize })
        #expect(sizes.reduce(0, +) == Int(form.contentLength))
    }

    @Test("the best encoding stays in memory below the threshold and goes to disk at or above it")
    func bestEncoding() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var form = MultipartForm()
        form.append(name: "d", data: Data(repeating: 1, count: 1000))
        let small = try await form.encoded(memoryThreshold: form.contentLength + 1, temporaryDirectory: directory.url)
        #expect(small.data != nil)
        #expect(small.fileURL == nil)
        let large = try await form.encoded(memoryThreshold: form.contentLength, temporaryDirectory: directory.url)
        let file = try #require(large.fileURL)
        #expect(file.deletingLastPathComponent().standardizedFileURL.path == directory.url.standardizedFileURL.path)
        #expect(try Data(contentsOf: file) == small.data)
        #expect(MultipartForm.defaultMemoryThreshold == 10_000_000)
    }
}
