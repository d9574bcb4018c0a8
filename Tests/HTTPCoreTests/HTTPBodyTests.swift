import Foundation
import HTTPCore
import Testing

/// Reads every chunk of `body` into one buffer.
func readAll(_ body: HTTPBody, chunkSize: Int = 256 * 1024) async throws -> Data {
    var result = Data()
    for try await chunk in body.chunks(size: chunkSize) { result.append(chunk) }
    return result
}

/// The chunk sizes `body` is read in.
func chunkSizes(_ body: HTTPBody, chunkSize: Int) async throws -> [Int] {
    var sizes: [Int] = []
    for try await chunk in body.chunks(size: chunkSize) { sizes.append(chunk.count) }
    return sizes
}

/// A finished stream of the UTF-8 bytes of `parts`, one chunk each.
func stream(_ parts: [String]) -> AsyncStream<Data> {
    AsyncStream { continuation in
        for part in parts { continuation.yield(Data(part.utf8)) }
        continuation.finish()
    }
}

@Suite("HTTPBody in memory and streamed")
struct HTTPBodyTests {
    struct StreamFailure: Error, Equatable {}

    @Test("a data body knows its length and can be read many times")
    func dataBody() async throws {
        let data = Data((0..<100).map { UInt8($0) })
        let body = HTTPBody(data)
        #expect(body.length == .known(100))
        #expect(body.iterationBehavior == .multiple)
        #expect(body.isReplayable)
        #expect(try await readAll(body) == data)
        #expect(try await readAll(body) == data)
        #expect(try await body.collect(upTo: 100) == data)
        guard case .data(let source) = body.source else {
            Issue.record("expected a data source, got \(body.source)")
            return
        }
        #expect(source == data)
    }

    @Test("a string body holds its UTF-8 bytes and counts bytes, not characters")
    func stringBody() async throws {
        let body = HTTPBody("héron 🐦")
        #expect(body.length == .known(11))
        #expect(try await body.collect(upTo: 11) == Data("héron 🐦".utf8))
    }

    @Test("a byte-sequence body holds those bytes")
    func bytesBody() async throws {
        let body = HTTPBody(bytes: [1, 2, 3] as [UInt8])
        #expect(body.length == .known(3))
        #expect(try await body.collect(upTo: 3) == Data([1, 2, 3]))
    }

    @Test("the empty body has length zero and no chunks")
    func emptyBody() async throws {
        #expect(HTTPBody.empty.length == .known(0))
        #expect(try await chunkSizes(.empty, chunkSize: 10).isEmpty)
        #expect(try await HTTPBody.empty.collect(upTo: 0).isEmpty)
    }

    @Test(
        "data is sliced into chunks of at most the given size",
        arguments: [(10, 3, [3, 3, 3, 1]), (10, 10, [10]), (10, 100, [10]), (3, 1, [1, 1, 1]), (3, 0, [1, 1, 1])])
    func slicesData(count: Int, size: Int, sizes: [Int]) async throws {
        let body = HTTPBody(Data(repeating: 7, count: count))
        #expect(try await chunkSizes(body, chunkSize: size) == sizes)
    }

    @Test("slices of a data slice whose indices do not start at zero are right")
    func slicesOfSlice() async throws {
        let whole = Data("0123456789".utf8)
        let body = HTTPBody(whole[4..<9])
        #expect(try await readAll(body, chunkSize: 2) == Data("45678".utf8))
    }

    @Test("a stream of known length that matches is read in its chunks")
    func streamKnownLength() async throws {
        let body = HTTPBody(stream: stream(["ab", "cde"]), length: .known(5))
        #expect(body.length == .known(5))
        #expect(body.iterationBehavior == .single)
        #expect(!body.isReplayable)
        #expect(try await chunkSizes(body, chunkSize: 1) == [2, 3])
    }

    @Test("a stream shorter than its declared length throws bodyLengthMismatch")
    func streamTooShort() async {
        let body = HTTPBody(stream: stream(["ab", "c"]), length: .known(5))
        let error = await #expect(throws: HTTPCoreError.self) { try await readAll(body) }
        #expect(error?.code == .bodyLengthMismatch)
        #expect(error?.value == "3")
        #expect(error?.reason.contains("3 of its declared 5") == true)
    }

    @Test("a stream longer than its declared length throws bodyLengthMismatch before the extra bytes")
    func streamTooLong() async {
        let body = HTTPBody(stream: stream(["abc", "def", "g"]), length: .known(4))
        var delivered = Data()
        let error = await #expect(throws: HTTPCoreError.self) {
            for try await chunk in body.chunks() { delivered.append(chunk) }
        }
        #expect(error?.code == .bodyLengthMismatch)
        #expect(error?.value == "6")
        #expect(delivered == Data("abc".utf8))
    }

    @Test("a stream of unknown length yields whatever it has, skipping empty chunks")
    func streamUnknownLength() async throws {
        let body = HTTPBody(stream: stream(["a", "", "bc", ""]), length: .unknown)
        #expect(body.length == .unknown)
        #expect(try await chunkSizes(body, chunkSize: 1) == [1, 2])
    }

    @Test("a single-use stream read twice throws bodyAlreadyConsumed")
    func singleUseReadTwice() async throws {
        let body = HTTPBody(stream: stream(["once"]), length: .known(4))
        #expect(try await readAll(body) == Data("once".utf8))
        let error = await #expect(throws: HTTPCoreError.self) { try await readAll(body) }
        #expect(error?.code == .bodyAlreadyConsumed)
    }

    @Test("a copy of a single-use body shares its one read")
    func singleUseCopyShares() async throws {
        let body = HTTPBody(stream: stream(["x"]), length: .unknown)
        let copy = body
        _ = try await readAll(copy)
        let error = await #expect(throws: HTTPCoreError.self) { try await body.collect(upTo: 10) }
        #expect(error?.code == .bodyAlreadyConsumed)
    }

    @Test("a replayable stream makes a fresh sequence for every read")
    func replayableStream() async throws {
        let body = HTTPBody(length: .known(6), iterationBehavior: .multiple) { stream(["abc", "def"]) }
        #expect(body.isReplayable)
        #expect(try await readAll(body) == Data("abcdef".utf8))
        #expect(try await readAll(body) == Data("abcdef".utf8))
        guard case .stream = body.source else {
            Issue.record("expected a stream source, got \(body.source)")
            return
        }
    }

    @Test("an error thrown by the stream reaches the reader")
    func streamErrorPropagates() async {
        let failing = AsyncThrowingStream<Data, any Error> { continuation in
            continuation.yield(Data("a".utf8))
            continuation.finish(throwing: StreamFailure())
        }
        let body = HTTPBody(stream: failing, length: .unknown)
        await #expect(throws: StreamFailure.self) { try await readAll(body) }
    }

    @Test("after the stream throws, the iteration is over")
    func streamEndsAfterFailure() async throws {
        let failing = AsyncThrowingStream<Data, any Error> { continuation in
            continuation.finish(throwing: StreamFailure())
        }
        var iterator = HTTPBody(stream: failing, length: .known(3)).chunks().makeAsyncIterator()
        await #expect(throws: StreamFailure.self) { try await iterator.next() }
        #expect(try await iterator.next() == nil)
    }

    @Test("collect(upTo:) accepts a body of exactly the limit")
    func collectAtLimit() async throws {
        let body = HTTPBody(stream: stream(["12", "345"]), length: .unknown)
        #expect(try await body.collect(upTo: 5) == Data("12345".utf8))
    }

    @Test("collect(upTo:) rejects a known length over the limit without reading")
    func collectKnownOverLimit() async throws {
        let body = HTTPBody(stream: stream(["123456"]), length: .known(6))
        let error = await #expect(throws: HTTPCoreError.self) { try await body.collect(upTo: 5) }
        #expect(error?.code == .bodyTooLarge)
        #expect(error?.value == "6")
        // The single-use stream was not consumed by the refusal.
        #expect(try await body.collect(upTo: 6) == Data("123456".utf8))
    }

    @Test("collect(upTo:) stops a stream of unknown length once it passes the limit")
    func collectUnknownOverLimit() async {
        let body = HTTPBody(stream: stream(["123", "456", "789"]), length: .unknown)
        let error = await #expect(throws: HTTPCoreError.self) { try await body.collect(upTo: 5) }
        #expect(error?.code == .bodyTooLarge)
        #expect(error?.reason.contains("limit of 5") == true)
    }

    @Test("collect(upTo:) rejects in-memory data over the limit")
    func collectDataOverLimit() async {
        let error = await #expect(throws: HTTPCoreError.self) { try await HTTPBody("abc").collect(upTo: 2) }
        #expect(error?.code == .bodyTooLarge)
        #expect(error?.value == "3")
    }

    @Test("lengths and iteration behaviours describe themselves")
    func descriptions() {
        #expect(HTTPBody.Length.known(3).description == "known(3)")
        #expect(HTTPBody.Length.unknown.description == "unknown")
        #expect(HTTPBody.IterationBehavior.single.description == "single")
        #expect(HTTPBody.IterationBehavior.multiple.description == "multiple")
    }

    @Test("chunks can be read on the main actor")
    @MainActor
    func readsOnMainActor() async throws {
        var result = Data()
        for try await chunk in HTTPBody(stream: stream(["main", "actor"]), length: .known(9)).chunks() {
            result.append(chunk)
        }
        #expect(result == Data("mainactor".utf8))
    }

    @Test("chunks can be read from another task")
    func chunksAreSendable() async throws {
        let chunks = HTTPBody("sendable").chunks(size: 3)
        let task = Task {
            var result = Data()
            for try await chunk in chunks { result.append(chunk) }
            return result
        }
        #expect(try await task.value == Data("sendable".utf8))
    }
}
