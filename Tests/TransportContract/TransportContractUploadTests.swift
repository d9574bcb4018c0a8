import Foundation
import HTTPClient
import HTTPCore
import Testing

/// What the fault server's `/hash` saw of an upload.
struct ReceivedUpload {
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

extension TransportFixture {
    /// Uploads `body` to the fault server's `/hash` through `transport` and returns what it saw.
    static func upload(
        _ body: HTTPBody, using transport: any ClientTransport, fields: KeyValuePairs<String, String> = [:],
        recorder: ProgressRecorder? = nil
    ) async throws -> ReceivedUpload {
        let request = try TransportFixture.request(.post, TransportFixture.fault("/hash"), fields: fields, body: body)
        let response = try await transport.send(request, options: TransportOptions(progress: recorder?.callback))
        #expect(response.head.status == .ok)
        return ReceivedUpload(try await TransportFixture.json(response))
    }

    /// Starts uploading `body`, cancels the call 300 ms later and expects it to end with
    /// `CancellationError` within 2 s, whatever the body's stream is doing.
    static func expectCancelledAtOnce(uploading body: HTTPBody, using transport: any ClientTransport) async throws {
        let call = Task { try await upload(body, using: transport) }
        try await Task.sleep(for: .milliseconds(300))
        let clock = ContinuousClock()
        let cancelledAt = clock.now
        call.cancel()
        await #expect(throws: CancellationError.self) { _ = try await call.value }
        #expect(clock.now - cancelledAt < .seconds(2))
    }
}

@Suite("Transport contract: uploads", .serialized)
struct TransportContractUploadTests {
    @Test(arguments: ContractTransports.all)
    func dataBodyArrivesWithContentLength(_ subject: any ContractTransport) async throws {
        let data = TransportFixture.randomData(200_000)
        let recorder = ProgressRecorder()
        let received = try await TransportFixture.upload(HTTPBody(data), using: subject.shared, recorder: recorder)
        #expect(received.bytes == data.count)
        #expect(received.sha256 == (try await TransportFixture.sha256(data)))
        #expect(received.contentLength == data.count)
        #expect(received.chunked == false)
        recorder.expectUploadComplete(count: data.count)
    }

    @Test(arguments: ContractTransports.all)
    func fileBodyGoesWithContentLength(_ subject: any ContractTransport) async throws {
        let data = TransportFixture.randomData(1_000_000)
        let file = TransportFixture.temporaryFile()
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let recorder = ProgressRecorder()
        let received = try await TransportFixture.upload(
            try HTTPBody(fileAt: file), using: subject.shared, recorder: recorder)
        #expect(received.bytes == data.count)
        #expect(received.sha256 == (try await TransportFixture.sha256(data)))
        #expect(received.chunked == false)
        #expect(received.contentLength == data.count)
        recorder.expectUploadComplete(count: data.count)
    }

    @Test(arguments: ContractTransports.all)
    func streamBodyOfKnownLengthGoesWithContentLengthAndProgressAgainstIt(
        _ subject: any ContractTransport
    ) async throws {
        let data = TransportFixture.randomData(2_000_000)
        let chunks = stride(from: 0, to: data.count, by: 100_000).map { data[$0..<min($0 + 100_000, data.count)] }
        let body = HTTPBody(stream: chunks.map { Data($0) }.asyncChunks, length: .known(Int64(data.count)))
        let recorder = ProgressRecorder()
        let received = try await TransportFixture.upload(
            body, using: subject.shared, fields: ["Content-Length": "2000000"], recorder: recorder)
        #expect(received.bytes == data.count)
        #expect(received.sha256 == (try await TransportFixture.sha256(data)))
        #expect(received.chunked == false)
        #expect(received.contentLength == data.count)
        recorder.expectUploadComplete(count: data.count)
    }

    @Test(arguments: ContractTransports.all)
    func streamBodyOfUnknownLengthArrivesChunked(_ subject: any ContractTransport) async throws {
        let parts = (0..<50).map { Data(repeating: UInt8($0), count: 3000 + $0) }
        let whole = parts.reduce(Data(), +)
        let recorder = ProgressRecorder()
        let received = try await TransportFixture.upload(
            HTTPBody(stream: parts.asyncChunks, length: .unknown), using: subject.shared, recorder: recorder)
        #expect(received.bytes == whole.count)
        #expect(received.sha256 == (try await TransportFixture.sha256(whole)))
        #expect(received.chunked == true)
        let last = try #require(recorder.reports(.upload).last)
        #expect(last.completed == Int64(whole.count))
        #expect(last.fractionCompleted == 1)
    }

    @Test(arguments: ContractTransports.all)
    func slowStreamIsSentWholeNotCutShort(_ subject: any ContractTransport) async throws {
        let (stream, continuation) = AsyncStream<Data>.makeStream()
        let producer = Task {
            for index in 0..<10 {
                try await Task.sleep(for: .milliseconds(30))
                continuation.yield(Data(repeating: UInt8(index), count: 1000))
            }
            continuation.finish()
        }
        let received = try await TransportFixture.upload(
            HTTPBody(stream: stream, length: .unknown), using: subject.shared)
        try await producer.value
        #expect(received.bytes == 10_000)
    }

    @Test(arguments: ContractTransports.all)
    func failingStreamBodyIsInvalidRequestWithItsError(_ subject: any ContractTransport) async throws {
        struct Broken: Error {}
        let stream = AsyncThrowingStream<Data, any Error> { continuation in
            continuation.yield(Data(repeating: 1, count: 5000))
            continuation.finish(throwing: Broken())
        }
        let error = await #expect(throws: ClientError.self) {
            _ = try await TransportFixture.upload(HTTPBody(stream: stream, length: .unknown), using: subject.shared)
        }
        #expect(error?.code == .invalidRequest, "got \(String(describing: error))")
        #expect(error?.underlying is Broken)
    }

    @Test(arguments: ContractTransports.all)
    func streamShorterThanItsDeclaredLengthIsNotSentAsComplete(_ subject: any ContractTransport) async throws {
        let body = HTTPBody(stream: [Data(repeating: 7, count: 1000)].asyncChunks, length: .known(5000))
        let error = await #expect(throws: ClientError.self) {
            _ = try await TransportFixture.upload(body, using: subject.shared)
        }
        #expect(error?.code == .invalidRequest, "got \(String(describing: error))")
        #expect((error?.underlying as? HTTPCoreError)?.code == .bodyLengthMismatch)
    }

    @Test(arguments: ContractTransports.all)
    func fileThatShrankSinceItWasDescribedIsNotSentShort(_ subject: any ContractTransport) async throws {
        let file = TransportFixture.temporaryFile()
        try TransportFixture.randomData(100_000).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let body = try HTTPBody(fileAt: file)
        try TransportFixture.randomData(10_000).write(to: file)
        let error = await #expect(throws: ClientError.self) {
            _ = try await TransportFixture.upload(body, using: subject.shared)
        }
        #expect(error?.code == .invalidRequest, "got \(String(describing: error))")
        #expect((error?.underlying as? HTTPCoreError)?.code == .bodyLengthMismatch)
        #expect(error?.message.contains(file.path) == true)
    }

    /// Nothing of an upload outlives it.
    @Test(arguments: ContractTransports.all)
    func streamBodyIsReleasedOnceTheUploadEnds(_ subject: any ContractTransport) async throws {
        final class Marker: Sendable {}
        weak var released: Marker?
        do {
            let marker = Marker()
            released = marker
            let body = HTTPBody(length: .known(3000), iterationBehavior: .single) {
                withExtendedLifetime(marker) { [Data(repeating: 1, count: 3000)].asyncChunks }
            }
            let received = try await TransportFixture.upload(body, using: subject.shared)
            #expect(received.bytes == 3000)
        }
        for _ in 0..<200 where released != nil { try await Task.sleep(for: .milliseconds(10)) }
        #expect(released == nil, "the body of a finished upload is still held")
    }

    @Test(arguments: ContractTransports.all)
    func inputStreamBodyArrivesIntactWithContentLengthAndProgressAgainstIt(
        _ subject: any ContractTransport
    ) async throws {
        let data = TransportFixture.randomData(3_000_000)
        let file = TransportFixture.temporaryFile()
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let body = HTTPBody(length: .known(Int64(data.count)), iterationBehavior: .multiple) {
            guard let stream = InputStream(url: file) else { throw CocoaError(.fileReadNoSuchFile) }
            return stream
        }
        let recorder = ProgressRecorder()
        let received = try await TransportFixture.upload(body, using: subject.shared, recorder: recorder)
        #expect(received.bytes == data.count)
        #expect(received.sha256 == (try await TransportFixture.sha256(data)))
        #expect(received.chunked == false)
        #expect(received.contentLength == data.count)
        recorder.expectUploadComplete(count: data.count)
        // A multiple-use body goes again, from a new stream.
        #expect(try await TransportFixture.upload(body, using: subject.shared).sha256 == received.sha256)
    }

    /// Cancelling closes the body's reader, which must not wait for an application's stream
    /// factory that is still running (a FIFO's `open` blocks until a writer comes).
    @Test(arguments: ContractTransports.all)
    func cancellingWhileTheStreamIsBeingMadeReturnsAtOnce(_ subject: any ContractTransport) async throws {
        let release = DispatchSemaphore(value: 0)
        let body = HTTPBody(length: .unknown, iterationBehavior: .single) {
            _ = release.wait(timeout: .now() + 10)
            return InputStream(data: Data("late".utf8))
        }
        try await TransportFixture.expectCancelledAtOnce(uploading: body, using: subject.shared)
        release.signal()
        #expect(try await TransportFixture.upload(HTTPBody("after"), using: subject.shared).bytes == 5)
    }

    @Test(arguments: ContractTransports.all)
    func inputStreamShorterThanItsDeclaredLengthIsNotSentAsComplete(_ subject: any ContractTransport) async throws {
        let body = HTTPBody(length: .known(5000), iterationBehavior: .single) {
            InputStream(data: Data(repeating: 7, count: 1000))
        }
        let error = await #expect(throws: ClientError.self) {
            _ = try await TransportFixture.upload(body, using: subject.shared)
        }
        #expect(error?.code == .invalidRequest, "got \(String(describing: error))")
        #expect((error?.underlying as? HTTPCoreError)?.code == .bodyLengthMismatch)
    }

    @Test(arguments: ContractTransports.all)
    func inputStreamThatCannotBeMadeIsInvalidRequestWithItsError(_ subject: any ContractTransport) async throws {
        struct Refused: Error {}
        let body = HTTPBody(length: .unknown, iterationBehavior: .single) { () throws -> InputStream in
            throw Refused()
        }
        let error = await #expect(throws: ClientError.self) {
            _ = try await TransportFixture.upload(body, using: subject.shared)
        }
        #expect(error?.code == .invalidRequest, "got \(String(describing: error))")
        let underlying = error?.underlying as? HTTPCoreError
        #expect(underlying?.code == .unreadableStream)
        #expect(underlying?.reason.contains("Refused") == true)
    }

    @Test(arguments: ContractTransports.all)
    func missingFileIsInvalidRequestNamingIt(_ subject: any ContractTransport) async throws {
        let file = TransportFixture.temporaryFile()
        try Data("abc".utf8).write(to: file)
        let body = try HTTPBody(fileAt: file)
        try FileManager.default.removeItem(at: file)
        let error = await #expect(throws: ClientError.self) {
            _ = try await TransportFixture.upload(body, using: subject.shared)
        }
        #expect(error?.code == .invalidRequest, "got \(String(describing: error))")
        #expect((error?.underlying as? HTTPCoreError)?.code == .unreadableFile)
    }

    /// A 64 MiB file goes out intact. (Memory is measured by the 1 GiB upload benchmarks and
    /// `LargeUploadTests`, in processes of their own: peak RSS is process-wide.)
    @Test(arguments: ContractTransports.all)
    func largeFileUploadArrivesIntact(_ subject: any ContractTransport) async throws {
        let size = 64 * 1024 * 1024
        let file = TransportFixture.temporaryFile("large")
        try await TransportFixture.offThePool { try TransportFixture.writePatternFile(to: file, size: size) }
        defer { try? FileManager.default.removeItem(at: file) }
        let expected = try await TransportFixture.sha256(ofFile: file)
        let received = try await TransportFixture.upload(try HTTPBody(fileAt: file), using: subject.shared)
        #expect(received.bytes == size)
        #expect(received.sha256 == expected)
        #expect(received.contentLength == size)
    }
}
