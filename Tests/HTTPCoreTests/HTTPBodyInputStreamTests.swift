import Foundation
import HTTPCore
import TestSupport
import Testing

/// Reads an open `stream` to its end or first failure: the bytes and the last `read` result.
private func drain(_ stream: InputStream, bufferSize: Int = 4096) -> (bytes: Data, last: Int) {
    var bytes = Data()
    var buffer = [UInt8](repeating: 0, count: bufferSize)
    while true {
        let count = stream.read(&buffer, maxLength: buffer.count)
        if count <= 0 { return (bytes, count) }
        bytes.append(contentsOf: buffer[0..<count])
    }
}

@Suite("HTTPBody from InputStreams")
struct HTTPBodyInputStreamTests {
    struct Refused: Error {}

    /// A body over `data`, one new `InputStream(data:)` per read.
    private func body(_ data: Data, length: HTTPBody.Length, _ use: HTTPBody.IterationBehavior = .multiple) -> HTTPBody
    {
        HTTPBody(length: length, iterationBehavior: use) { InputStream(data: data) }
    }

    @Test("chunks equal the stream's bytes, in chunks of at most the size asked", arguments: [1, 1000, 65_536])
    func chunksEqualTheStream(chunkSize: Int) async throws {
        let data = patternBytes(150_001)
        let sizes = try await chunkSizes(body(data, length: .known(150_001)), chunkSize: chunkSize)
        #expect(sizes.reduce(0, +) == data.count)
        #expect(sizes.allSatisfy { $0 > 0 && $0 <= chunkSize })
        #expect(try await readAll(body(data, length: .unknown), chunkSize: chunkSize) == data)
    }

    @Test("a multiple-use body makes a new stream per read and reads the same bytes each time")
    func multipleUse() async throws {
        let data = patternBytes(10_000)
        let made = Counter()
        let body = HTTPBody(length: .known(10_000), iterationBehavior: .multiple) {
            made.increment()
            return InputStream(data: data)
        }
        #expect(body.makesInputStreams)
        #expect(body.isReplayable)
        guard case .stream = body.source else {
            Issue.record("expected a stream source, got \(body.source)")
            return
        }
        #expect(try await readAll(body) == data)
        #expect(try await readAll(body) == data)
        let stream = try #require(try body.makeInputStream())
        stream.open()
        #expect(drain(stream).bytes == data)
        #expect(made.value == 3)
    }

    @Test("a single-use body gives one stream; the second read of any kind is refused")
    func singleUse() async throws {
        let body = body(Data("once".utf8), length: .known(4), .single)
        let stream = try #require(try body.makeInputStream())
        stream.open()
        #expect(drain(stream).bytes == Data("once".utf8))
        let error = #expect(throws: HTTPCoreError.self) { _ = try body.makeInputStream() }
        #expect(error?.code == .bodyAlreadyConsumed)
        await #expect(throws: HTTPCoreError.self) { _ = try await readAll(body) }
    }

    @Test("other bodies make no input stream")
    func otherBodies() throws {
        #expect(HTTPBody("text").makesInputStreams == false)
        #expect(try HTTPBody("text").makeInputStream() == nil)
        let streamed = HTTPBody(stream: stream(["a"]), length: .unknown)
        #expect(streamed.makesInputStreams == false)
        #expect(try streamed.makeInputStream() == nil)
    }

    @Test("a stream shorter than the declared length fails with bodyLengthMismatch, in chunks and as a stream")
    func shorterThanDeclared() async throws {
        let short = body(patternBytes(900), length: .known(1000))
        let error = await #expect(throws: HTTPCoreError.self) { _ = try await readAll(short) }
        #expect(error?.code == .bodyLengthMismatch)
        #expect(error?.reason.contains("900 of its declared 1000") == true)

        let stream = try #require(try short.makeInputStream())
        stream.open()
        let (bytes, last) = drain(stream)
        #expect(bytes.count == 900)
        #expect(last == -1)
        #expect(stream.streamStatus == .error)
        #expect((stream.streamError as? HTTPCoreError)?.code == .bodyLengthMismatch)
    }

    @Test("a stream longer than the declared length fails instead of being cut or sent long")
    func longerThanDeclared() async throws {
        let long = body(patternBytes(1001), length: .known(1000))
        let error = await #expect(throws: HTTPCoreError.self) { _ = try await readAll(long, chunkSize: 300) }
        #expect(error?.code == .bodyLengthMismatch)
        #expect(error?.reason.contains("more than its declared 1000") == true)

        let stream = try #require(try long.makeInputStream())
        stream.open()
        let (bytes, last) = drain(stream, bufferSize: 4096)
        #expect(bytes.count == 1000)
        #expect(last == -1)
        #expect((stream.streamError as? HTTPCoreError)?.code == .bodyLengthMismatch)
    }

    @Test("exactly the declared length ends cleanly, and the stream stays available until then")
    func exactLength() throws {
        let stream = try #require(try body(patternBytes(5000), length: .known(5000)).makeInputStream())
        #expect(stream.streamStatus == .notOpen)
        stream.open()
        #expect(stream.hasBytesAvailable)
        let (bytes, last) = drain(stream, bufferSize: 5000)
        #expect(bytes.count == 5000)
        #expect(last == 0)
        #expect(stream.streamStatus == .atEnd)
        #expect(stream.hasBytesAvailable == false)
        #expect(stream.streamError == nil)
    }

    @Test("a factory that throws fails the read with unreadableStream naming its error")
    func factoryThrows() async throws {
        let body = HTTPBody(length: .unknown, iterationBehavior: .multiple) { () throws -> InputStream in
            throw Refused()
        }
        let error = await #expect(throws: HTTPCoreError.self) { _ = try await readAll(body) }
        #expect(error?.code == .unreadableStream)
        #expect(error?.reason.contains("Refused") == true)
        let direct = #expect(throws: HTTPCoreError.self) { _ = try body.makeInputStream() }
        #expect(direct?.code == .unreadableStream)
    }

    @Test("a stream over a missing file fails with unreadableStream, not a trap or an empty body")
    func missingFile() async throws {
        let missing = TemporaryPath().url
        let body = HTTPBody(length: .unknown, iterationBehavior: .multiple) {
            InputStream(fileAtPath: missing.path) ?? InputStream(data: Data())
        }
        let error = await #expect(throws: HTTPCoreError.self) { _ = try await readAll(body) }
        #expect(error?.code == .unreadableStream)
    }

    @Test("a stream closed before the read fails with unreadableStream saying so, without reading streamError")
    func closedBeforeRead() async throws {
        // A closed stream's read returns -1 with no error set; reading its streamError then
        // traps on Linux, so this test crashes unless the status is checked first.
        let closed = InputStream(data: Data("abc".utf8))
        closed.open()
        closed.close()
        nonisolated(unsafe) let stream = closed
        let body = HTTPBody(length: .known(3), iterationBehavior: .single) { stream }
        let error = await #expect(throws: HTTPCoreError.self) { _ = try await readAll(body) }
        #expect(error?.code == .unreadableStream)
        #expect(error?.reason.contains("closed") == true)
    }

    @Test("a stream already open is read from where it is, not opened again")
    func alreadyOpen() async throws {
        let open = InputStream(data: Data("abc".utf8))
        open.open()
        nonisolated(unsafe) let stream = open
        let body = HTTPBody(length: .known(3), iterationBehavior: .single) { stream }
        #expect(try await readAll(body) == Data("abc".utf8))
    }

    @Test("a pipe whose writer is slow is read whole: reads wait for bytes")
    func slowPipe() async throws {
        let pipe = TestPipe()
        let body = HTTPBody(length: .known(5 * 3000), iterationBehavior: .single) {
            guard let stream = InputStream(fileAtPath: pipe.path) else { throw Refused() }
            return stream
        }
        pipe.feedSlowly(chunks: 5, size: 3000, every: 0.05)
        let bytes = try await body.collect(upTo: 1 << 20)
        #expect(bytes.count == 15_000)
        #expect(bytes.last == 4)
    }
}

/// A thread-safe count.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }

    func increment() {
        lock.lock()
        count += 1
        lock.unlock()
    }
}
