import Foundation
import HTTPMultipart
import Testing

@Suite("Missing, unreadable and changing files")
struct FileErrorTests {
    static func isError(_ error: any Error, _ code: MultipartError.Code, naming path: String) -> Bool {
        guard let error = error as? MultipartError else { return false }
        return error.code == code && error.value == path && error.description.contains(path)
    }

    @Test("adding a missing file throws at once, naming its path")
    func missingAtAdd() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("missing.png")
        var form = MultipartForm()
        #expect {
            try form.append(name: "f", fileAt: url)
        } throws: { Self.isError($0, .unreadableFile, naming: url.path) }
        #expect(form.parts.isEmpty)
    }

    @Test("adding a directory throws, naming it")
    func directoryAtAdd() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var form = MultipartForm()
        #expect {
            try form.append(name: "f", fileAt: directory.url)
        } throws: { Self.isError($0, .unreadableFile, naming: directory.url.path) }
    }

    @Test("adding an unreadable file throws, naming it")
    func unreadableAtAdd() throws {
        // root can read any file whatever its mode; only check when the mode is enforced.
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = try directory.file("secret.txt", Data("s".utf8))
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: url.path)
        var form = MultipartForm()
        if FileManager.default.isReadableFile(atPath: url.path) {
            // Running as root: the file really is readable, so adding it must succeed.
            try form.append(name: "f", fileAt: url)
            #expect(form.parts.count == 1)
        } else {
            #expect {
                try form.append(name: "f", fileAt: url)
            } throws: { Self.isError($0, .unreadableFile, naming: url.path) }
        }
    }

    @Test("a file that disappears before encoding fails every output, naming it")
    func disappearsBeforeEncoding() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = try directory.file("gone.bin", Data(repeating: 1, count: 5000))
        var form = MultipartForm()
        try form.append(name: "f", fileAt: url)
        try FileManager.default.removeItem(at: url)
        let output = directory.url.appendingPathComponent("out.form")
        await #expect { _ = try await form.encodedInMemory() } throws: {
            Self.isError($0, .unreadableFile, naming: url.path)
        }
        await #expect {
            _ = try await form.encode(toFileAt: output)
        } throws: { Self.isError($0, .unreadableFile, naming: url.path) }
        await #expect {
            _ = try await form.streamingBody().body.collect(upTo: 1 << 20)
        } throws: { Self.isError($0, .unreadableFile, naming: url.path) }
        #expect(try directory.contents().isEmpty, "the failed encode-to-disk left its partial file")
    }

    @Test("a file whose size changed since it was added fails, naming it")
    func changedSize() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = try directory.file("grows.bin", Data(repeating: 1, count: 100))
        var form = MultipartForm()
        try form.append(name: "f", fileAt: url)
        try Data(repeating: 2, count: 50).write(to: url)
        await #expect { _ = try await form.encodedInMemory() } throws: {
            Self.isError($0, .fileChanged, naming: url.path)
        }
    }

    @Test("a failed encode to disk removes its partial output and leaves an existing file untouched")
    func failedDiskEncodeCleansUp() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let output = try directory.file("out.form", Data("previous".utf8))
        let good = try directory.file("good.bin", Data(repeating: 3, count: 300_000))
        let doomed = try directory.file("doomed.bin", Data(repeating: 4, count: 10))
        var form = MultipartForm()
        try form.append(name: "good", fileAt: good)
        try form.append(name: "doomed", fileAt: doomed)
        try FileManager.default.removeItem(at: doomed)
        await #expect {
            _ = try await form.encode(toFileAt: output, chunkSize: 4096)
        } throws: { Self.isError($0, .unreadableFile, naming: doomed.path) }
        #expect(try directory.contents() == ["good.bin", "out.form"])
        #expect(try Data(contentsOf: output) == Data("previous".utf8))
    }

    @Test("encoding to a directory that does not exist fails naming the output")
    func missingOutputDirectory() async throws {
        var form = MultipartForm()
        form.append(name: "a", value: "b")
        let output = URL(fileURLWithPath: "/nonexistent-heron-dir/out.form")
        await #expect {
            _ = try await form.encode(toFileAt: output)
        } throws: { error in
            guard let error = error as? MultipartError else { return false }
            // The value is the destination the caller gave, not the hidden temporary file.
            return error.code == .writeFailed && error.value == output.path
                && error.underlyingError is POSIXError
        }
    }

    @Test("encoding to disk replaces an existing file")
    func replacesExisting() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let output = try directory.file("out.form", Data(repeating: 9, count: 100_000))
        var form = MultipartForm()
        form.append(name: "a", value: "b")
        let encoded = try await form.encode(toFileAt: output)
        #expect(try Data(contentsOf: output) == (try await form.encodedInMemory().data))
        #expect(encoded.fileURL == output)
        #expect(try directory.contents() == ["out.form"])
    }
}
