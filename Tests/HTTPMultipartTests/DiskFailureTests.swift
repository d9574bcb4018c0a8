import Foundation
import HTTPMultipart
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Every way an encode to disk can fail after it has started writing: the error names the
/// culprit, the partial output is removed and an existing destination is left as it was.
@Suite("Failed encodes to disk clean up")
struct DiskFailureTests {
    /// A failure that strikes after a first part of 100 kB has gone to the output file.
    enum Failure: String, CaseIterable, CustomStringConvertible {
        case fileVanished, fileShrank, inputStreamFails, inputStreamShort, chunksThrow, chunksTooLong
        case boundaryInContent, cancelled

        var description: String { rawValue }

        var code: MultipartError.Code {
            switch self {
            case .fileVanished: return .unreadableFile
            case .fileShrank: return .fileChanged
            case .inputStreamFails, .chunksThrow: return .streamFailed
            case .inputStreamShort, .chunksTooLong: return .lengthMismatch
            case .boundaryInContent: return .boundaryInContent
            case .cancelled: return .cancelled
            }
        }

        /// Appends the failing part after the large first one; files it needs go in `directory`.
        func appendFailingPart(to form: inout MultipartForm, in directory: TemporaryDirectory) throws {
            switch self {
            case .fileVanished:
                let url = try directory.file("vanishing.bin", Data(repeating: 1, count: 10))
                try form.append(name: "culprit", fileAt: url)
                try FileManager.default.removeItem(at: url)
            case .fileShrank:
                let url = try directory.file("shrinking.bin", Data(repeating: 1, count: 50_000))
                try form.append(name: "culprit", fileAt: url)
                try Data(repeating: 2, count: 10).write(to: url)
            case .inputStreamFails:
                let stream = try #require(InputStream(url: directory.url.appendingPathComponent("absent.bin")))
                form.append(name: "culprit", stream: stream, length: 10)
            case .inputStreamShort:
                form.append(name: "culprit", stream: InputStream(data: Data(count: 10)), length: 20_000)
            case .chunksThrow:
                struct Broken: Error {}
                let chunks = AsyncThrowingStream<Data, any Error> { continuation in
                    continuation.yield(Data(count: 9000))
                    continuation.finish(throwing: Broken())
                }
                form.append(name: "culprit", chunks: chunks, length: 20_000)
            case .chunksTooLong:
                form.append(name: "culprit", chunks: FormSpec.chunked(Data(count: 20_000)), length: 10_000)
            case .boundaryInContent:
                form.append(name: "culprit", data: Data("x\r\n--fixed-boundary--\r\n".utf8))
            case .cancelled:
                form.append(name: "culprit", chunks: SelfCancellingChunks(), length: 20_000)
            }
        }
    }

    /// Yields two chunks, cancelling the task that reads them before the first.
    struct SelfCancellingChunks: AsyncSequence, Sendable {
        typealias Element = Data

        struct AsyncIterator: AsyncIteratorProtocol {
            var sent = 0
            mutating func next() async -> Data? {
                withUnsafeCurrentTask { $0?.cancel() }
                guard sent < 2 else { return nil }
                sent += 1
                return Data(count: 10_000)
            }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator() }
    }

    @Test(
        "a failure part-way through removes the partial output and keeps the previous file", arguments: Failure.allCases
    )
    func cleansUp(failure: Failure) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let output = try directory.file("out.form", Data("previous".utf8))
        var form = MultipartForm(boundary: try MultipartBoundary("fixed-boundary"))
        form.append(name: "first", data: Data(repeating: 7, count: 100_000))
        try failure.appendFailingPart(to: &form, in: directory)
        let inputs = try directory.contents()
        let task = Task { () async throws(MultipartError) -> EncodedForm in
            try await form.encode(toFileAt: output, chunkSize: 4096)
        }
        await #expect {
            _ = try await task.value
        } throws: { error in
            guard let error = error as? MultipartError, error.code == failure.code else { return false }
            return failure == .cancelled || failure == .boundaryInContent || error.value.contains("culprit")
                || error.value.hasSuffix(".bin")
        }
        #expect(try directory.contents() == inputs, "the partial output file was left behind")
        #expect(try Data(contentsOf: output) == Data("previous".utf8))
    }

    /// The size of the encoder's temporary `.partial` file in `directory`, 0 when there is none.
    static func partialSize(in directory: URL) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        guard let partial = names.first(where: { $0.hasSuffix(".partial") }) else { return 0 }
        let path = directory.appendingPathComponent(partial).path
        return ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    @Test("cancelling while a large file part is being copied stops the copy and removes the partial output")
    func cancelledDuringFileCopy() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // A sparse 1 GiB file: made at once, read as zeros. Copying it takes many in-kernel
        // copy calls of at most 64 MiB, and cancellation must be noticed between them.
        let source = directory.url.appendingPathComponent("large.bin")
        try #require(FileManager.default.createFile(atPath: source.path, contents: nil))
        try #require(truncate(source.path, 1 << 30) == 0)
        var form = MultipartForm()
        try form.append(name: "large", fileAt: source)
        let output = directory.url.appendingPathComponent("out.form")
        let url = directory.url
        let task = Task { () async throws(MultipartError) -> EncodedForm in try await form.encode(toFileAt: output) }
        // Cancel once the copy has begun: the partial output holds more than the part headers.
        var started = 0
        for _ in 0..<10_000 where started <= 4096 {
            started = Self.partialSize(in: url)
            if started <= 4096 { try await Task.sleep(nanoseconds: 1_000_000) }
        }
        try #require(started > 4096, "the copy did not start")
        task.cancel()
        // Watch how far the copy goes after the cancellation: one more in-kernel copy at most,
        // not the rest of the file (the check before the closing delimiter would come too late).
        let watcher = Task { () -> Int in
            var largest = 0
            while !Task.isCancelled {
                largest = max(largest, Self.partialSize(in: url))
                try? await Task.sleep(nanoseconds: 1_000_000)
            }
            return largest
        }
        let result = await task.result
        watcher.cancel()
        let largest = await watcher.value
        #expect(largest < started + (256 << 20), "the copy went on to \(largest) bytes after the cancellation")
        if case .failure(let error) = result {
            #expect((error as? MultipartError)?.code == .cancelled)
        } else {
            Issue.record("the encode finished despite the cancellation")
        }
        #expect(try directory.contents() == ["large.bin"])
    }

    @Test("a file replaced by a FIFO after it was added fails naming it instead of blocking in open")
    func replacedByFIFO() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = try directory.file("pipe.bin", Data())
        var form = MultipartForm()
        try form.append(name: "f", fileAt: url)
        try FileManager.default.removeItem(at: url)
        try #require(mkfifo(url.path, 0o600) == 0)
        // Were the encoder to block opening the FIFO, a writer opening it every few seconds
        // releases it (the FIFO then reads as empty), so the test fails instead of hanging.
        // On a thread of its own: on Linux `DispatchQueue.global()` runs on the cooperative
        // pool, and 30 s of sleeping there starved the other tests of one of its threads.
        let path = url.path
        Thread {
            for _ in 0..<10 {
                sleep(3)
                let writer = open(path, O_WRONLY | O_NONBLOCK)
                if writer >= 0 { close(writer) }
            }
        }.start()
        let output = directory.url.appendingPathComponent("out.form")
        await #expect {
            _ = try await form.encode(toFileAt: output)
        } throws: { error in
            guard let error = error as? MultipartError else { return false }
            return error.code == .unreadableFile && error.value == path
        }
        await #expect {
            _ = try await form.streamingBody().body.collect(upTo: 1 << 20)
        } throws: { ($0 as? MultipartError)?.code == .unreadableFile }
        #expect(try directory.contents() == ["pipe.bin"])
    }
}
