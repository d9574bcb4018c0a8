import Foundation
import HTTPCore
import Testing

@testable import HTTPClient

/// The pieces between a request body and URLSession's blocking reads, without a server.
@Suite("URLSessionTransport: body sources")
struct URLSessionTransportBodyTests {
    /// Records the errors a source reports.
    final class Failures: @unchecked Sendable {
        // Invariant: `errors` is only touched under `lock`.
        private let lock = NSLock()
        private var errors: [any Error] = []

        var callback: @Sendable (any Error) -> Void { { [self] error in lock.withLock { errors.append(error) } } }
        var all: [any Error] { lock.withLock { errors } }
    }

    /// Reads once from `source` on a dispatch thread (reads block).
    private func read(_ source: any URLSessionBodySource, max: Int = 1 << 16) async throws -> Data? {
        try await TransportFixture.offThePool {
            var buffer = [UInt8](repeating: 0, count: max)
            let count = buffer.withUnsafeMutableBufferPointer { source.read(into: $0.baseAddress!, maxLength: max) }
            return count < 0 ? nil : Data(buffer.prefix(count))
        }
    }

    @Test func pumpReadWaitsForTheProducerAndNeverReportsNoBytesMidBody() async throws {
        let (chunks, continuation) = AsyncStream<Data>.makeStream()
        let pump = URLSessionBodyPump(
            body: HTTPBody(stream: chunks, length: .unknown), chunkSize: 1024, onFailure: Failures().callback)
        pump.start()
        let pending = Task { try await read(pump) }
        try await Task.sleep(for: .milliseconds(200))
        #expect(pump.hasBytesAvailable)  // nothing yet, but the body has not ended
        continuation.yield(Data("hello".utf8))
        #expect(try await pending.value == Data("hello".utf8))
        continuation.finish()
        #expect(try await read(pump) == Data())
        #expect(!pump.hasBytesAvailable)
    }

    @Test func pumpHandsChunksOverInPiecesOfTheReadSize() async throws {
        let body = HTTPBody(Data(repeating: 9, count: 10_000))
        let pump = URLSessionBodyPump(body: body, chunkSize: 4096, onFailure: Failures().callback)
        var total = Data()
        while let piece = try await read(pump, max: 3000), !piece.isEmpty {
            #expect(piece.count <= 3000)
            total.append(piece)
        }
        #expect(total == Data(repeating: 9, count: 10_000))
    }

    @Test func pumpReportsAFailingBodyOnceAndFailsTheRead() async throws {
        struct Broken: Error {}
        let failures = Failures()
        let stream = AsyncThrowingStream<Data, any Error> { $0.finish(throwing: Broken()) }
        let pump = URLSessionBodyPump(
            body: HTTPBody(stream: stream, length: .unknown), chunkSize: 1024, onFailure: failures.callback)
        #expect(try await read(pump) == nil)
        #expect(pump.hasBytesAvailable)  // so that URLSession reads again and sees the failure
        #expect(failures.all.count == 1)
        #expect(failures.all.first is Broken)
    }

    @Test func closingThePumpReleasesABlockedRead() async throws {
        let (chunks, _) = AsyncStream<Data>.makeStream()
        let failures = Failures()
        let pump = URLSessionBodyPump(
            body: HTTPBody(stream: chunks, length: .unknown), chunkSize: 1024, onFailure: failures.callback)
        let pending = Task { try await read(pump) }
        try await Task.sleep(for: .milliseconds(100))
        pump.close()
        #expect(try await withWatchdog(seconds: 20) { try await pending.value } == nil)
        #expect(failures.all.isEmpty)
    }

    @Test func fileReaderSendsExactlyTheDeclaredLength() async throws {
        let file = TransportFixture.temporaryFile()
        try TransportFixture.pattern(60).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let reader = URLSessionDirectBodyReader(.file(file, size: 60), onFailure: Failures().callback)
        #expect(try await read(reader, max: 50) == TransportFixture.pattern(50))
        #expect(try await read(reader, max: 50) == TransportFixture.pattern(10, offset: 50))
        #expect(try await read(reader) == Data())
        #expect(!reader.hasBytesAvailable)
    }

    @Test func fileReaderSendsNoMoreThanDeclaredAndFailsAFileThatGrew() async throws {
        let file = TransportFixture.temporaryFile()
        try TransportFixture.pattern(100).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let failures = Failures()
        let reader = URLSessionDirectBodyReader(.file(file, size: 60), onFailure: failures.callback)
        #expect(try await read(reader, max: 50) == TransportFixture.pattern(50))
        #expect(try await read(reader, max: 50) == TransportFixture.pattern(10, offset: 50))
        // The one file reader's rule: a file that no longer holds its declared length fails
        // the body rather than sending part of a different file.
        #expect(try await read(reader) == nil)
        #expect((failures.all.first as? HTTPCoreError)?.code == .bodyLengthMismatch)
    }

    @Test func fileReaderFailsWhenTheFileIsShorterThanDeclared() async throws {
        let file = TransportFixture.temporaryFile()
        try TransportFixture.pattern(10).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let failures = Failures()
        let reader = URLSessionDirectBodyReader(.file(file, size: 20), onFailure: failures.callback)
        #expect(try await read(reader) == TransportFixture.pattern(10))
        #expect(try await read(reader) == nil)
        #expect((failures.all.first as? HTTPCoreError)?.code == .bodyLengthMismatch)
    }
}
