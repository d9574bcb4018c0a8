import Foundation
import HTTPClient
import HTTPCore
import Testing

@Suite("Transport contract: downloads")
struct TransportContractDownloadTests {
    /// A client over the subject's shared transport, no retries, so each failure shows as it is.
    private func client(_ subject: any ContractTransport) -> Client { Client(transport: subject.shared, retry: .none) }

    @Test(arguments: ContractTransports.all)
    func bufferedDownloadHasTheBytesAndReportsProgressAgainstContentLength(
        _ subject: any ContractTransport
    ) async throws {
        let count = 300_000
        let recorder = ProgressRecorder()
        let response = try await client(subject).send(
            try TransportFixture.request(.get, TransportFixture.fault("/bytes?n=\(count)")),
            options: RequestOptions(progress: recorder.destination))
        #expect(response.body == TransportFixture.pattern(count))
        #expect(recorder.reports(.download).allSatisfy { $0.expected == Int64(count) })
        recorder.expectDownloadComplete(count: count)
    }

    @Test(arguments: ContractTransports.all)
    func chunkedDownloadWithoutLengthReachesFullProgressAtTheEnd(_ subject: any ContractTransport) async throws {
        let recorder = ProgressRecorder()
        let response = try await client(subject).send(
            try TransportFixture.request(.get, TransportFixture.httpbin("/stream-bytes/80000?seed=3&chunk_size=4096")),
            options: RequestOptions(progress: recorder.destination))
        #expect(response.head.contentLength == nil)
        #expect(response.body.count == 80000)
        #expect(recorder.reports(.download).dropLast().allSatisfy { $0.expected == nil })
        recorder.expectDownloadComplete(count: 80000)
    }

    @Test(arguments: ContractTransports.all)
    func streamedDownloadYieldsEveryByteInOrder(_ subject: any ContractTransport) async throws {
        let response = try await subject.shared.send(
            try TransportFixture.request(.get, TransportFixture.fault("/slow?bytes=200000&chunks=20&interval=0.01")),
            options: TransportOptions())
        #expect(response.head.status == .ok)
        var data = Data()
        for try await chunk in try #require(response.body).chunks() { data.append(chunk) }
        #expect(data == TransportFixture.pattern(200_000))
    }

    @Test(arguments: ContractTransports.all)
    func fileDownloadIsMovedIntoPlaceComplete(_ subject: any ContractTransport) async throws {
        let directory = try TransportFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("download.bin")
        let recorder = ProgressRecorder()
        let count = 1_500_000
        let response = try await client(subject).download(
            try TransportFixture.request(.get, TransportFixture.fault("/bytes?n=\(count)")), to: destination,
            options: RequestOptions(progress: recorder.destination))
        #expect(response.body == destination)
        #expect(response.metrics.bytesReceived == Int64(count))
        #expect(try Data(contentsOf: destination) == TransportFixture.pattern(count))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["download.bin"])
        recorder.expectDownloadComplete(count: count)
    }

    @Test(arguments: ContractTransports.all)
    func cutFileDownloadResumesWithRangeAndEndsWhole(_ subject: any ContractTransport) async throws {
        let directory = try TransportFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("resumed.bin")
        let size = 3_000_000
        // Cut twice (a reset mid-body), resumed each time with Range and If-Range (the client's
        // work, whatever the transport).
        let client = Client(transport: subject.shared, retry: [.transportErrors(max: 3), .attempts(max: 4)])
        let response = try await client.download(
            try TransportFixture.request(
                .get, TransportFixture.fault("/resumable?key=\(UUID().uuidString)&size=\(size)&cuts=2&seed=31")),
            to: destination)
        #expect(response.status == .partialContent)
        #expect(response.metrics.attempts.count == 3)
        // /resumable's byte p: 7 (p mod 65536) + (p div 65536) + 13 (its version, 1), mod 256.
        let expected = Data((0..<size).map { UInt8(truncatingIfNeeded: 7 * ($0 & 0xFFFF) + ($0 >> 16) + 13) })
        #expect(try Data(contentsOf: destination) == expected)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["resumed.bin"])
    }

    @Test(arguments: ContractTransports.all)
    func truncatedFileDownloadLeavesNoPartialFileAndKeepsTheOldOne(_ subject: any ContractTransport) async throws {
        let directory = try TransportFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fresh = directory.appendingPathComponent("fresh.bin")
        let existing = directory.appendingPathComponent("existing.bin")
        try Data("old content".utf8).write(to: existing)
        for destination in [fresh, existing] {
            let error = await #expect(throws: ClientError.self) {
                try await client(subject).download(
                    try TransportFixture.request(.get, TransportFixture.fault("/truncate?declared=100000&send=5000")),
                    to: destination)
            }
            #expect(error?.code == .truncatedBody, "got \(String(describing: error))")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["existing.bin"])
        #expect(try Data(contentsOf: existing) == Data("old content".utf8))
    }

    @Test(arguments: ContractTransports.all)
    func bufferedBodyOverItsDeclaredLimitIsResponseTooLarge(_ subject: any ContractTransport) async throws {
        let error = await #expect(throws: ClientError.self) {
            try await client(subject).send(
                try TransportFixture.request(.get, TransportFixture.fault("/bytes?n=5000")),
                options: RequestOptions(responseBodyLimit: 1000))
        }
        #expect(error?.code == .responseTooLarge, "got \(String(describing: error))")
        #expect(error?.response?.status == .ok)
    }

    @Test(arguments: ContractTransports.all)
    func chunkedBodyGrowingPastTheLimitIsResponseTooLarge(_ subject: any ContractTransport) async throws {
        let error = await #expect(throws: ClientError.self) {
            try await client(subject).send(
                try TransportFixture.request(.get, TransportFixture.fault("/slow?bytes=50000&chunks=10&interval=0.01")),
                options: RequestOptions(responseBodyLimit: 12000))
        }
        #expect(error?.code == .responseTooLarge, "\(error.map(String.init(describing:)) ?? "no error")")
    }

    /// A reader that falls behind: a transport with backpressure pauses the server and the
    /// body arrives whole; one without fails it past its buffer limit rather than hold more.
    @Test(arguments: ContractTransports.all)
    func unreadBodyPastTheTransportBufferLimit(_ subject: any ContractTransport) async throws {
        let count = 4_000_000
        let response = try await subject.shared.send(
            try TransportFixture.request(.get, TransportFixture.fault("/bytes?n=\(count)")),
            options: TransportOptions(responseBufferLimit: 64 * 1024))
        try await Task.sleep(for: .milliseconds(500))  // the reader falls behind
        if subject.slowsTheServerForASlowReader {
            #expect(try await TransportFixture.data(response) == TransportFixture.pattern(count))
        } else {
            let error = await #expect(throws: ClientError.self) { _ = try await TransportFixture.data(response) }
            #expect(error?.code == .responseTooLarge, "got \(String(describing: error))")
        }
    }

    @Test(arguments: ContractTransports.all)
    func responseReturnsAtTheHeadBeforeTheBody(_ subject: any ContractTransport) async throws {
        let transport = subject.make()
        // The second half of the body comes 20 s after the first: `send` must not wait for it.
        let response = try await HoggingStep.timed {
            try await withWatchdog(seconds: 15) {
                try await transport.send(
                    try TransportFixture.request(.get, TransportFixture.fault("/slow?bytes=2000&chunks=2&interval=20")),
                    options: TransportOptions())
            }
        }
        #expect(response.head.status == .ok)
        #expect(subject.activeTransfers(on: transport) == 1)
        var iterator = try #require(response.body).chunks().makeAsyncIterator()
        var first = Data()
        while first.count < 1000, let chunk = try await iterator.next() { first.append(chunk) }
        #expect(first == TransportFixture.pattern(1000))
    }
}
