import Foundation
import HTTPCore
import Testing

/// A uniquely named path in the temporary directory, removed (with anything at it) by `cleanUp()`.
struct TemporaryPath {
    let url: URL

    init(_ label: String = #function) {
        let safe = label.filter { $0.isLetter || $0.isNumber }
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("heron-core-\(safe)-\(UUID().uuidString)")
    }

    /// Writes `data` at the path.
    func write(_ data: Data) throws { try data.write(to: url) }

    /// Removes whatever is at the path.
    func cleanUp() { try? FileManager.default.removeItem(at: url) }
}

/// Deterministic, non-repeating-looking content of `count` bytes.
func patternBytes(_ count: Int) -> Data {
    var state: UInt32 = 2_463_534_242
    return Data(
        (0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            return UInt8(truncatingIfNeeded: state)
        })
}

@Suite("HTTPBody from a file")
struct HTTPBodyFileTests {
    @Test("a file body read in chunks equals the file", arguments: [1, 7, 4096, 65_536, 1 << 20])
    func readsWholeFile(chunkSize: Int) async throws {
        let path = TemporaryPath()
        defer { path.cleanUp() }
        let content = patternBytes(200_003)
        try path.write(content)
        let body = try HTTPBody(fileAt: path.url)
        #expect(body.length == .known(200_003))
        #expect(body.iterationBehavior == .multiple)
        let sizes = try await chunkSizes(body, chunkSize: chunkSize)
        #expect(sizes.allSatisfy { $0 <= chunkSize && $0 > 0 })
        #expect(sizes.reduce(0, +) == 200_003)
        #expect(try await readAll(body, chunkSize: chunkSize) == content)
    }

    @Test("a file body can be read again, from the start")
    func readsTwice() async throws {
        let path = TemporaryPath()
        defer { path.cleanUp() }
        try path.write(Data("again".utf8))
        let body = try HTTPBody(fileAt: path.url)
        #expect(try await body.collect(upTo: 5) == Data("again".utf8))
        #expect(try await body.collect(upTo: 5) == Data("again".utf8))
        guard case .file(let url) = body.source else {
            Issue.record("expected a file source, got \(body.source)")
            return
        }
        #expect(url == path.url)
    }

    @Test("an empty file is a body of length zero")
    func emptyFile() async throws {
        let path = TemporaryPath()
        defer { path.cleanUp() }
        try path.write(Data())
        let body = try HTTPBody(fileAt: path.url)
        #expect(body.length == .known(0))
        #expect(try await chunkSizes(body, chunkSize: 10).isEmpty)
    }

    @Test("a missing file throws unreadableFile naming the path")
    func missingFile() {
        let path = TemporaryPath()
        let error = #expect(throws: HTTPCoreError.self) { try HTTPBody(fileAt: path.url) }
        #expect(error?.code == .unreadableFile)
        #expect(error?.value == path.url.path)
        #expect(error?.description.contains(path.url.path) == true)
    }

    @Test("a directory throws unreadableFile naming the path")
    func directory() throws {
        let path = TemporaryPath()
        defer { path.cleanUp() }
        try FileManager.default.createDirectory(at: path.url, withIntermediateDirectories: false)
        let error = #expect(throws: HTTPCoreError.self) { try HTTPBody(fileAt: path.url) }
        #expect(error?.code == .unreadableFile)
        #expect(error?.value == path.url.path)
        #expect(error?.reason == "not a regular file")
    }

    @Test("a URL that is not a file URL throws unreadableFile naming it")
    func notAFileURL() throws {
        let url = try #require(URL(string: "https://example.com/file.txt"))
        let error = #expect(throws: HTTPCoreError.self) { try HTTPBody(fileAt: url) }
        #expect(error?.code == .unreadableFile)
        #expect(error?.value == "https://example.com/file.txt")
    }

    @Test("a symbolic link to a regular file is read as that file")
    func symbolicLink() async throws {
        let target = TemporaryPath("target")
        let link = TemporaryPath("link")
        defer {
            link.cleanUp()
            target.cleanUp()
        }
        try target.write(Data("linked".utf8))
        try FileManager.default.createSymbolicLink(at: link.url, withDestinationURL: target.url)
        let body = try HTTPBody(fileAt: link.url)
        #expect(body.length == .known(6))
        #expect(try await body.collect(upTo: 6) == Data("linked".utf8))
    }

    @Test("a symbolic link to a directory is rejected")
    func symbolicLinkToDirectory() throws {
        let target = TemporaryPath("dir")
        let link = TemporaryPath("dirlink")
        defer {
            link.cleanUp()
            target.cleanUp()
        }
        try FileManager.default.createDirectory(at: target.url, withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(at: link.url, withDestinationURL: target.url)
        let error = #expect(throws: HTTPCoreError.self) { try HTTPBody(fileAt: link.url) }
        #expect(error?.code == .unreadableFile)
    }

    @Test("a file that shrinks after the body was made throws bodyLengthMismatch naming the path")
    func fileShrinks() async throws {
        let path = TemporaryPath()
        defer { path.cleanUp() }
        try path.write(patternBytes(1000))
        let body = try HTTPBody(fileAt: path.url)
        try path.write(patternBytes(400))
        let error = await #expect(throws: HTTPCoreError.self) { try await readAll(body, chunkSize: 256) }
        #expect(error?.code == .bodyLengthMismatch)
        #expect(error?.value == path.url.path)
        #expect(error?.reason.contains("400 of its 1000 bytes") == true)
    }

    @Test("after a failure the iteration is over: the file is not read again from its start")
    func endsAfterFailure() async throws {
        let path = TemporaryPath()
        defer { path.cleanUp() }
        try path.write(patternBytes(10))
        let body = try HTTPBody(fileAt: path.url)
        try path.write(patternBytes(4))
        var iterator = body.chunks(size: 100).makeAsyncIterator()
        #expect(try await iterator.next()?.count == 4)
        await #expect(throws: HTTPCoreError.self) { try await iterator.next() }
        #expect(try await iterator.next() == nil)
        #expect(try await iterator.next() == nil)
    }

    @Test("a file that grows after the body was made throws bodyLengthMismatch naming the path")
    func fileGrows() async throws {
        let path = TemporaryPath()
        defer { path.cleanUp() }
        try path.write(patternBytes(100))
        let body = try HTTPBody(fileAt: path.url)
        try path.write(patternBytes(101))
        let error = await #expect(throws: HTTPCoreError.self) { try await body.collect(upTo: 1000) }
        #expect(error?.code == .bodyLengthMismatch)
        #expect(error?.value == path.url.path)
    }

    @Test("a file deleted after the body was made throws unreadableFile on reading")
    func fileDeleted() async throws {
        let path = TemporaryPath()
        try path.write(Data("gone".utf8))
        let body = try HTTPBody(fileAt: path.url)
        path.cleanUp()
        let error = await #expect(throws: HTTPCoreError.self) { try await readAll(body) }
        #expect(error?.code == .unreadableFile)
        #expect(error?.value == path.url.path)
    }

    @Test("collect(upTo:) refuses a file larger than the limit before reading it")
    func collectFileOverLimit() async throws {
        let path = TemporaryPath()
        defer { path.cleanUp() }
        try path.write(patternBytes(2048))
        let error = await #expect(throws: HTTPCoreError.self) {
            try await HTTPBody(fileAt: path.url).collect(upTo: 2047)
        }
        #expect(error?.code == .bodyTooLarge)
        #expect(error?.value == "2048")
    }
}
