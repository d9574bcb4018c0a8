import Foundation
import HTTPCore
import Testing

/// The hidden partial file that HTTPMultipart's encode to disk and HTTPClient's downloads
/// write and then rename into place.
@Suite("PartialFile")
struct PartialFileTests {
    /// A new empty directory for one test, removed by `cleanUp()`.
    static func directory(_ label: String = #function) throws -> TemporaryPath {
        let directory = TemporaryPath(label)
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: false)
        return directory
    }

    /// A partial file beside `destination` that throws its problems as they are.
    static func partial(_ destination: URL) throws -> PartialFile<RegularFile.Problem> {
        try PartialFile(destination: destination) { $0 }
    }

    /// A partial file holding `new` beside `out.bin` in `directory`, which holds `old`.
    static func newOverOld(in directory: TemporaryPath) throws -> (PartialFile<RegularFile.Problem>, URL) {
        let destination = directory.url.appendingPathComponent("out.bin")
        try Data("old".utf8).write(to: destination)
        let file = try partial(destination)
        try file.write(Data("new".utf8))
        return (file, destination)
    }

    /// The names in `directory`, sorted.
    static func contents(_ directory: TemporaryPath) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
    }

    @Test("a hidden file is created beside the destination and written in full")
    func writesBesideTheDestination() throws {
        let directory = try Self.directory()
        defer { directory.cleanUp() }
        let file = try Self.partial(directory.url.appendingPathComponent("out.bin"))
        try file.write(patternBytes(3 << 20))
        try file.write([UInt8]("tail".utf8))
        let name = URL(fileURLWithPath: file.path).lastPathComponent
        #expect(name.hasPrefix(".out.bin.") && name.hasSuffix(".partial"))
        #expect(try Self.contents(directory) == [name])
        #expect(try Data(contentsOf: URL(fileURLWithPath: file.path)) == patternBytes(3 << 20) + Data("tail".utf8))
        file.discard()
    }

    @Test("commit renames the file over an existing destination and leaves nothing beside it")
    func commitReplacesTheDestination() throws {
        let directory = try Self.directory()
        defer { directory.cleanUp() }
        let (file, destination) = try Self.newOverOld(in: directory)
        #expect(try file.commit() == destination)
        #expect(try Data(contentsOf: destination) == Data("new".utf8))
        #expect(try Self.contents(directory) == ["out.bin"])
        file.discard()
        #expect(try Self.contents(directory) == ["out.bin"], "discard after commit removed the destination")
    }

    @Test("discard removes the partial file, keeps the destination, and may be called twice")
    func discardKeepsTheDestination() throws {
        let directory = try Self.directory()
        defer { directory.cleanUp() }
        let (file, destination) = try Self.newOverOld(in: directory)
        file.discard()
        file.discard()
        #expect(try Self.contents(directory) == ["out.bin"])
        #expect(try Data(contentsOf: destination) == Data("old".utf8))
    }

    @Test("a partial file neither committed nor discarded is removed when released")
    func releaseRemovesTheFile() throws {
        let directory = try Self.directory()
        defer { directory.cleanUp() }
        var file: PartialFile<RegularFile.Problem>? = try Self.partial(directory.url.appendingPathComponent("out.bin"))
        try file?.write(Data("abandoned".utf8))
        #expect(try Self.contents(directory).count == 1)
        file = nil
        #expect(try Self.contents(directory) == [])
    }

    @Test("creating in a missing directory fails naming the destination, the partial file and ENOENT")
    func missingDirectory() throws {
        let directory = TemporaryPath()
        let destination = directory.url.appendingPathComponent("out.bin")
        #expect {
            _ = try Self.partial(destination)
        } throws: { error in
            guard let problem = error as? RegularFile.Problem else { return false }
            return problem.path == destination.path && problem.errorNumber == ENOENT
                && problem.reason.contains(directory.url.path) && problem.underlyingError?.code == .ENOENT
        }
    }

    @Test("a destination that is not a file URL is refused")
    func notAFileURL() throws {
        let destination = try #require(URL(string: "https://example.com/out.bin"))
        #expect {
            _ = try Self.partial(destination)
        } throws: { error in
            guard let problem = error as? RegularFile.Problem else { return false }
            return problem.path == destination.absoluteString && problem.errorNumber == nil
        }
    }

    @Test("a rename that fails names the destination, removes the partial file and keeps what was there")
    func failedCommitCleansUp() throws {
        let directory = try Self.directory()
        defer { directory.cleanUp() }
        // rename(2) cannot replace a non-empty directory with a file.
        let destination = directory.url.appendingPathComponent("taken")
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: false)
        try Data().write(to: destination.appendingPathComponent("inside"))
        let file = try Self.partial(destination)
        try file.write(Data("new".utf8))
        #expect {
            _ = try file.commit()
        } throws: { error in
            guard let problem = error as? RegularFile.Problem else { return false }
            return problem.path == destination.path && problem.errorNumber != nil
        }
        #expect(try Self.contents(directory) == ["taken"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: destination.path) == ["inside"])
    }
}
