import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import HTTPClient

@Suite("URLSessionTransport: uploads", .serialized)
struct URLSessionTransportUploadTests {
    let transport = TransportFixture.transport

    private func upload(
        _ body: HTTPBody, using transport: URLSessionTransport = TransportFixture.transport,
        fields: KeyValuePairs<String, String> = [:], recorder: ProgressRecorder? = nil
    ) async throws -> ReceivedUpload {
        try await TransportFixture.upload(body, using: transport, fields: fields, recorder: recorder)
    }

    private static func randomData(_ count: Int) -> Data { TransportFixture.randomData(count) }

    /// A single-use body of unknown length read from `pipe`.
    private static func inputStreamBody(from pipe: TestPipe) -> HTTPBody {
        HTTPBody(length: .unknown, iterationBehavior: .single) {
            guard let stream = InputStream(fileAtPath: pipe.path) else { throw CocoaError(.fileReadNoSuchFile) }
            return stream
        }
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
        recorder.expectUploadComplete(count: data.count)
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
    /// It holds URLSession's work queue meanwhile, so it runs apart from the contract suite's
    /// timed steps (``HoggingStep``).
    @Test func cancellingAnUploadFromAStalledPipeReturnsAtOnce() async throws {
        try await HoggingStep.alone {
            let pipe = TestPipe()
            let body = Self.inputStreamBody(from: pipe)
            pipe.write(Data(repeating: 1, count: 1000))
            try await TransportFixture.expectCancelledAtOnce(uploading: body, using: transport)
            // Ends the blocked read, freeing URLSession's work queue for the other tests.
            pipe.closeWriting()
        }
        let after = try await upload(HTTPBody("after"))
        #expect(after.bytes == 5)
    }

    /// After a stalled pipe's upload is cancelled, its `read` still holds URLSession's work
    /// queue: other requests must not make URLSession calls (which wait for that queue) on
    /// cooperative threads, or they fill the pool. Checked with a task that needs a
    /// cooperative thread while a request per core is pending.
    /// Apart from the contract suite's timed steps, as the test above.
    @Test func requestsWaitingBehindAStalledPipeLeaveTheCooperativePoolFree() async throws {
        try await HoggingStep.alone { try await requestsWaitBehindAStalledPipe() }
    }

    private func requestsWaitBehindAStalledPipe() async throws {
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

}
