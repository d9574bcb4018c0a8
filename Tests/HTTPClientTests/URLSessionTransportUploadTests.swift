import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import HTTPClient

@Suite("URLSessionTransport: uploads", .serialized)
struct URLSessionTransportUploadTests {
    let transport = TransportFixture.transport

    /// What the fault server's `/hash` saw.
    struct Received {
        let bytes: Int
        let sha256: String
        let chunked: Bool
        let contentLength: Int?

        init(_ json: [String: Any]) {
            bytes = json["bytes"] as? Int ?? -1
            sha256 = json["sha256"] as? String ?? ""
            chunked = json["chunked"] as? Bool ?? false
            contentLength = json["content_length"] as? Int
        }
    }

    private func upload(
        _ body: HTTPBody, using transport: URLSessionTransport = TransportFixture.transport,
        fields: KeyValuePairs<String, String> = [:], recorder: ProgressRecorder? = nil
    ) async throws -> Received {
        let request = try TransportFixture.request(.post, TransportFixture.fault("/hash"), fields: fields, body: body)
        let response = try await transport.send(request, options: TransportOptions(progress: recorder?.callback))
        #expect(response.head.status == .ok)
        return Received(try await TransportFixture.json(response))
    }

    private static func randomData(_ count: Int) -> Data { TransportFixture.randomData(count) }

    /// Starts uploading `body`, cancels the call 300 ms later and expects it to end with
    /// `CancellationError` within 2 s, whatever the body's stream is doing.
    private func expectCancelledAtOnce(uploading body: HTTPBody) async throws {
        let call = Task { try await upload(body) }
        try await Task.sleep(for: .milliseconds(300))
        let clock = ContinuousClock()
        let cancelledAt = clock.now
        call.cancel()
        await #expect(throws: CancellationError.self) { _ = try await call.value }
        #expect(clock.now - cancelledAt < .seconds(2))
    }

    /// A single-use body of unknown length read from `pipe`.
    private static func inputStreamBody(from pipe: TestPipe) -> HTTPBody {
        HTTPBody(length: .unknown, iterationBehavior: .single) {
            guard let stream = InputStream(fileAtPath: pipe.path) else { throw CocoaError(.fileReadNoSuchFile) }
            return stream
        }
    }

    /// Checks that upload reports end at `count` of `count`.
    private func expectUploadComplete(_ recorder: ProgressRecorder, count: Int) {
        let reports = recorder.reports(.upload)
        #expect(reports.last?.completed == Int64(count))
        #expect(reports.last?.expected == Int64(count))
        #expect(reports.allSatisfy { $0.expected == Int64(count) })
    }

    @Test func dataBodyArrivesWithContentLength() async throws {
        let data = Self.randomData(200_000)
        let recorder = ProgressRecorder()
        let received = try await upload(HTTPBody(data), recorder: recorder)
        #expect(received.bytes == data.count)
        #expect(received.sha256 == (try await TransportFixture.sha256(data)))
        #expect(received.contentLength == data.count)
        #expect(received.chunked == false)
        expectUploadComplete(recorder, count: data.count)
    }

    @Test func fileBodyInStreamModeGoesChunked() async throws {
        let data = Self.randomData(3_000_000)
        let file = TransportFixture.temporaryFile()
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let transport = URLSessionTransport(configuration: .init(fileUploadMode: .stream))
        let recorder = ProgressRecorder()
        let received = try await upload(try HTTPBody(fileAt: file), using: transport, recorder: recorder)
        #expect(received.bytes == data.count)
        #expect(received.sha256 == (try await TransportFixture.sha256(ofFile: file)))
        #expect(received.chunked == true)
        #expect(received.contentLength == nil)
        expectUploadComplete(recorder, count: data.count)
    }

    @Test func fileBodyGoesWithContentLengthByDefault() async throws {
        #expect(URLSessionTransport.Configuration().fileUploadMode == .contentLength)
        let data = Self.randomData(1_000_000)
        let file = TransportFixture.temporaryFile()
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let recorder = ProgressRecorder()
        let received = try await upload(try HTTPBody(fileAt: file), recorder: recorder)
        #expect(received.bytes == data.count)
        #expect(received.sha256 == (try await TransportFixture.sha256(data)))
        #expect(received.chunked == false)
        #expect(received.contentLength == data.count)
        expectUploadComplete(recorder, count: data.count)
    }

    @Test func streamBodyOfKnownLengthGoesWithContentLengthAndProgressAgainstIt() async throws {
        let data = Self.randomData(2_000_000)
        let chunks = stride(from: 0, to: data.count, by: 100_000).map { data[$0..<min($0 + 100_000, data.count)] }
        let body = HTTPBody(stream: chunks.map { Data($0) }.asyncChunks, length: .known(Int64(data.count)))
        let recorder = ProgressRecorder()
        let received = try await upload(body, fields: ["Content-Length": "2000000"], recorder: recorder)
        #expect(received.bytes == data.count)
        #expect(received.sha256 == (try await TransportFixture.sha256(data)))
        #expect(received.chunked == false)
        #expect(received.contentLength == data.count)
        expectUploadComplete(recorder, count: data.count)
    }

    @Test func streamBodyOfUnknownLengthArrivesChunked() async throws {
        let parts = (0..<50).map { Data(repeating: UInt8($0), count: 3000 + $0) }
        let whole = parts.reduce(Data(), +)
        let recorder = ProgressRecorder()
        let received = try await upload(HTTPBody(stream: parts.asyncChunks, length: .unknown), recorder: recorder)
        #expect(received.bytes == whole.count)
        #expect(received.sha256 == (try await TransportFixture.sha256(whole)))
        #expect(received.chunked == true)
        let last = try #require(recorder.reports(.upload).last)
        #expect(last.completed == Int64(whole.count))
        #expect(last.fractionCompleted == 1)
    }

    @Test func slowStreamIsSentWholeNotCutShort() async throws {
        let (stream, continuation) = AsyncStream<Data>.makeStream()
        let producer = Task {
            for index in 0..<10 {
                try await Task.sleep(for: .milliseconds(30))
                continuation.yield(Data(repeating: UInt8(index), count: 1000))
            }
            continuation.finish()
        }
        let received = try await upload(HTTPBody(stream: stream, length: .unknown))
        try await producer.value
        #expect(received.bytes == 10_000)
    }

    @Test func failingStreamBodyIsInvalidRequestWithItsError() async throws {
        struct Broken: Error {}
        let stream = AsyncThrowingStream<Data, any Error> { continuation in
            continuation.yield(Data(repeating: 1, count: 5000))
            continuation.finish(throwing: Broken())
        }
        let error = await #expect(throws: ClientError.self) {
            _ = try await upload(HTTPBody(stream: stream, length: .unknown))
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.underlying is Broken)
    }

    @Test func streamShorterThanItsDeclaredLengthIsNotSentAsComplete() async throws {
        let body = HTTPBody(stream: [Data(repeating: 7, count: 1000)].asyncChunks, length: .known(5000))
        let error = await #expect(throws: ClientError.self) { _ = try await upload(body) }
        #expect(error?.code == .invalidRequest)
        #expect((error?.underlying as? HTTPCoreError)?.code == .bodyLengthMismatch)
    }

    @Test(arguments: [URLSessionTransport.FileUploadMode.stream, .contentLength])
    func fileThatShrankSinceItWasDescribedIsNotSentShort(mode: URLSessionTransport.FileUploadMode) async throws {
        let file = TransportFixture.temporaryFile()
        try Self.randomData(100_000).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let body = try HTTPBody(fileAt: file)
        try Self.randomData(10_000).write(to: file)
        let transport =
            mode == .contentLength ? transport : URLSessionTransport(configuration: .init(fileUploadMode: mode))
        let error = await #expect(throws: ClientError.self) { _ = try await upload(body, using: transport) }
        #expect(error?.code == .invalidRequest)
        #expect((error?.underlying as? HTTPCoreError)?.code == .bodyLengthMismatch)
        #expect(error?.message.contains(file.path) == true)
    }

    /// Nothing of an upload outlives it: the body source once held the transfer that holds
    /// the task that holds the source, so every stream or file upload leaked all three.
    @Test func streamBodyIsReleasedOnceTheUploadEnds() async throws {
        final class Marker: Sendable {}
        weak var released: Marker?
        do {
            let marker = Marker()
            released = marker
            let body = HTTPBody(length: .known(3000), iterationBehavior: .single) {
                withExtendedLifetime(marker) { [Data(repeating: 1, count: 3000)].asyncChunks }
            }
            let received = try await upload(body)
            #expect(received.bytes == 3000)
        }
        // URLSession lets go of a finished task on its work queue, just after the response.
        for _ in 0..<200 where released != nil { try await Task.sleep(for: .milliseconds(10)) }
        #expect(released == nil, "the body of a finished upload is still held")
    }

    @Test func inputStreamBodyArrivesIntactWithContentLengthAndProgressAgainstIt() async throws {
        let data = Self.randomData(3_000_000)
        let file = TransportFixture.temporaryFile()
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let body = HTTPBody(length: .known(Int64(data.count)), iterationBehavior: .multiple) {
            guard let stream = InputStream(url: file) else { throw CocoaError(.fileReadNoSuchFile) }
            return stream
        }
        let recorder = ProgressRecorder()
        let received = try await upload(body, recorder: recorder)
        #expect(received.bytes == data.count)
        #expect(received.sha256 == (try await TransportFixture.sha256(data)))
        #expect(received.chunked == false)
        #expect(received.contentLength == data.count)
        expectUploadComplete(recorder, count: data.count)
        // A multiple-use body goes again, from a new stream.
        #expect(try await upload(body).sha256 == received.sha256)
    }

    /// URLSession on Linux ends a body at the first `hasBytesAvailable == false`: a pipe
    /// that is empty for a while must still go out whole.
    @Test func inputStreamFromASlowPipeIsSentWhole() async throws {
        let pipe = TestPipe()
        pipe.feedSlowly(chunks: 8, size: 5000, every: 0.04)
        let body = Self.inputStreamBody(from: pipe)
        let received = try await upload(body)
        #expect(received.bytes == 40_000)
        #expect(received.chunked == true)
    }

    /// A stalled pipe blocks its `read`, which nothing can interrupt; the call still ends
    /// at once when cancelled, and the upload is abandoned when the `read` returns.
    @Test func cancellingAnUploadFromAStalledPipeReturnsAtOnce() async throws {
        let pipe = TestPipe()
        let body = Self.inputStreamBody(from: pipe)
        pipe.write(Data(repeating: 1, count: 1000))
        try await expectCancelledAtOnce(uploading: body)
        // Ends the blocked read, freeing URLSession's work queue for the other tests.
        pipe.closeWriting()
        let after = try await upload(HTTPBody("after"))
        #expect(after.bytes == 5)
    }

    /// After a stalled pipe's upload is cancelled, its `read` still holds URLSession's work
    /// queue: other requests must not make URLSession calls (which wait for that queue) on
    /// cooperative threads, or they fill the pool. Checked with a task that needs a
    /// cooperative thread while a request per core is pending.
    @Test func requestsWaitingBehindAStalledPipeLeaveTheCooperativePoolFree() async throws {
        let pipe = TestPipe()
        pipe.write(Data(repeating: 1, count: 1000))
        let stalled = Task { try await upload(Self.inputStreamBody(from: pipe)) }
        try await Task.sleep(for: .milliseconds(300))
        stalled.cancel()
        _ = try? await stalled.value
        let others = (0..<ProcessInfo.processInfo.activeProcessorCount).map { _ in
            Task { try await upload(HTTPBody("other")) }
        }
        let ran = DispatchSemaphore(value: 0)
        Task.detached { ran.signal() }
        // Waits on this thread, not with `await`: a full pool could not resume the test.
        let poolFree = ran.wait(timeout: .now() + 5) == .success
        pipe.closeWriting()
        #expect(poolFree, "requests blocked the cooperative pool behind a stalled body stream")
        for other in others { #expect(try await other.value.bytes == 5) }
    }

    /// Cancelling closes the body's reader, which must not wait for an application's stream
    /// factory that is still running (a FIFO's `open` blocks until a writer comes).
    @Test func cancellingWhileTheStreamIsBeingMadeReturnsAtOnce() async throws {
        let release = DispatchSemaphore(value: 0)
        let body = HTTPBody(length: .unknown, iterationBehavior: .single) {
            _ = release.wait(timeout: .now() + 10)
            return InputStream(data: Data("late".utf8))
        }
        try await expectCancelledAtOnce(uploading: body)
        release.signal()
        #expect(try await upload(HTTPBody("after")).bytes == 5)
    }

    @Test func inputStreamShorterThanItsDeclaredLengthIsNotSentAsComplete() async throws {
        let body = HTTPBody(length: .known(5000), iterationBehavior: .single) {
            InputStream(data: Data(repeating: 7, count: 1000))
        }
        let error = await #expect(throws: ClientError.self) { _ = try await upload(body) }
        #expect(error?.code == .invalidRequest)
        #expect((error?.underlying as? HTTPCoreError)?.code == .bodyLengthMismatch)
    }

    @Test func inputStreamThatCannotBeMadeIsInvalidRequestWithItsError() async throws {
        struct Refused: Error {}
        let body = HTTPBody(length: .unknown, iterationBehavior: .single) { () throws -> InputStream in
            throw Refused()
        }
        let error = await #expect(throws: ClientError.self) { _ = try await upload(body) }
        #expect(error?.code == .invalidRequest)
        let underlying = error?.underlying as? HTTPCoreError
        #expect(underlying?.code == .unreadableStream)
        #expect(underlying?.reason.contains("Refused") == true)
    }

    @Test func missingFileIsInvalidRequestNamingIt() async throws {
        let file = TransportFixture.temporaryFile()
        try Data("abc".utf8).write(to: file)
        let body = try HTTPBody(fileAt: file)
        try FileManager.default.removeItem(at: file)
        let error = await #expect(throws: ClientError.self) { _ = try await upload(body) }
        #expect(error?.code == .invalidRequest)
        #expect((error?.underlying as? HTTPCoreError)?.code == .unreadableFile)
    }

    /// A 64 MiB file goes out intact, through the transport the other tests share. Memory is
    /// not measured here: peak RSS is process-wide, and the suite's other tests, running
    /// alongside, move it by as much (this check once saw 61 MiB of growth under load).
    /// `LargeUploadTests` measures it, for the 1 GiB, in a child process of its own.
    @Test func largeFileUploadArrivesIntact() async throws {
        let size = 64 * 1024 * 1024
        let file = TransportFixture.temporaryFile("large")
        try await TransportFixture.offThePool { try PatternFile.write(to: file, size: size) }
        defer { try? FileManager.default.removeItem(at: file) }
        let expected = try await TransportFixture.sha256(ofFile: file)
        let received = try await upload(try HTTPBody(fileAt: file))
        #expect(received.bytes == size)
        #expect(received.sha256 == expected)
        #expect(received.contentLength == size)
    }
}

extension Array where Element == Data {
    /// The chunks as an asynchronous sequence.
    var asyncChunks: AsyncStream<Data> {
        AsyncStream { continuation in
            for chunk in self { continuation.yield(chunk) }
            continuation.finish()
        }
    }
}
