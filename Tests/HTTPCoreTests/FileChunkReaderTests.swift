import Foundation
import HTTPCore
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The package-wide file reader that HTTPCore's file bodies, HTTPMultipart's file parts and
/// HTTPClient's uploads share.
@Suite("FileChunkReader")
struct FileChunkReaderTests {
    /// A reader of a new file of `fileSize` pattern bytes declared to hold `expectedSize`, and
    /// the file's path for the caller to clean up.
    static func reader(fileSize: Int, expectedSize: Int64) throws -> (FileChunkReader, TemporaryPath) {
        let path = TemporaryPath()
        try path.write(patternBytes(fileSize))
        return (try FileChunkReader(url: path.url, expectedSize: expectedSize), path)
    }

    /// The results of `read(into:)` with a buffer of `size` bytes until it returns 0.
    static func readCounts(_ reader: FileChunkReader, size: Int) throws -> [Int] {
        var buffer = [UInt8](repeating: 0, count: size)
        var counts: [Int] = []
        while true {
            let count = try buffer.withUnsafeMutableBytes { raw throws(HTTPCoreError) in try reader.read(into: raw) }
            counts.append(count)
            if count == 0 { return counts }
        }
    }

    @Test("reads into a buffer up to the declared length and returns 0 there")
    func readsToDeclaredEnd() throws {
        let (reader, path) = try Self.reader(fileSize: 10, expectedSize: 10)
        defer { path.cleanUp() }
        #expect(try Self.readCounts(reader, size: 4) == [4, 4, 2, 0])
        reader.close()
        reader.close()
    }

    @Test("a file with a byte past the declared length fails at the end, naming the path")
    func extraByte() throws {
        let (reader, path) = try Self.reader(fileSize: 10, expectedSize: 9)
        defer { path.cleanUp() }
        #expect(try reader.read(upTo: 100)?.count == 9)
        let error = #expect(throws: HTTPCoreError.self) { try reader.read(upTo: 100) }
        #expect(error?.code == .bodyLengthMismatch)
        #expect(error?.value == path.url.path)
    }

    @Test("a file shorter than the declared length fails when it ends")
    func shortFile() throws {
        let (reader, path) = try Self.reader(fileSize: 10, expectedSize: 20)
        defer { path.cleanUp() }
        let error = #expect(throws: HTTPCoreError.self) { try Self.readCounts(reader, size: 8) }
        #expect(error?.code == .bodyLengthMismatch)
        #expect(error?.reason.contains("10 of its 20 bytes") == true)
    }

    @Test("bytes moved without read(into:) count toward the declared length")
    func advance() throws {
        let (reader, path) = try Self.reader(fileSize: 10, expectedSize: 10)
        defer { path.cleanUp() }
        #expect(lseek(reader.fileDescriptor, 6, SEEK_SET) == 6)
        reader.advance(by: 6)
        #expect(try reader.read(upTo: 100) == patternBytes(10).suffix(4))
        #expect(try reader.read(upTo: 100) == nil)
    }

    @Test("reading after close fails instead of reading whatever the descriptor became")
    func readAfterClose() throws {
        let (reader, path) = try Self.reader(fileSize: 10, expectedSize: 10)
        defer { path.cleanUp() }
        reader.close()
        #expect(reader.fileDescriptor == -1)
        let error = #expect(throws: HTTPCoreError.self) { try reader.read(upTo: 10) }
        #expect(error?.code == .unreadableFile)
    }

    @Test("a FIFO is refused when opened instead of waiting for a writer")
    func fifo() throws {
        let path = TemporaryPath()
        defer { path.cleanUp() }
        try #require(mkfifo(path.url.path, 0o600) == 0)
        let error = #expect(throws: HTTPCoreError.self) { try FileChunkReader(url: path.url, expectedSize: 0) }
        #expect(error?.code == .unreadableFile)
        #expect(error?.value == path.url.path)
    }
}
