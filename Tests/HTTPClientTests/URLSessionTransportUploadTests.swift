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

}
