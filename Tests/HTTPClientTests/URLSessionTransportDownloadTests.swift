import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import HTTPClient

@Suite("URLSessionTransport: downloads")
struct URLSessionTransportDownloadTests {
    let transport = TransportFixture.transport

    /// A client over the shared transport, no retries, so each failure shows as it is.
    private var client: Client { Client(transport: transport, retry: .none) }

    /// Checks that the download reports end at `count` of `count` and never go backwards.
    private func expectComplete(_ recorder: ProgressRecorder, count: Int) {
        let reports = recorder.reports(.download)
        #expect(reports.last?.completed == Int64(count))
        #expect(reports.last?.expected == Int64(count))
        #expect(reports.last?.fractionCompleted == 1)
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.completed <= $1.completed })
    }

    @Test func bufferedDownloadHasTheBytesAndReportsProgressAgainstContentLength() async throws {
        let count = 300_000
        let recorder = ProgressRecorder()
        let response = try await client.send(
            try TransportFixture.request(.get, TransportFixture.fault("/bytes?n=\(count)")),
            options: RequestOptions(progress: recorder.destination))
        #expect(response.body == TransportFixture.pattern(count))
        let reports = recorder.reports(.download)
        #expect(reports.count > 1)
        #expect(reports.allSatisfy { $0.expected == Int64(count) })
        expectComplete(recorder, count: count)
    }

    @Test func httpbinBytesDownloadInMemoryReachesFullProgress() async throws {
        let recorder = ProgressRecorder()
        let response = try await client.send(
            try TransportFixture.request(.get, TransportFixture.httpbin("/bytes/50000?seed=7")),
            options: RequestOptions(progress: recorder.destination))
        #expect(response.body.count == 50000)
        expectComplete(recorder, count: 50000)
    }

    @Test func chunkedDownloadWithoutLengthReachesFullProgressAtTheEnd() async throws {
        let recorder = ProgressRecorder()
        let response = try await client.send(
            try TransportFixture.request(.get, TransportFixture.httpbin("/stream-bytes/80000?seed=3&chunk_size=4096")),
            options: RequestOptions(progress: recorder.destination))
        #expect(response.head.contentLength == nil)
        #expect(response.body.count == 80000)
        #expect(recorder.reports(.download).dropLast().allSatisfy { $0.expected == nil })
        expectComplete(recorder, count: 80000)
    }

    @Test func streamedDownloadYieldsEveryByteInOrder() async throws {
        let response = try await transport.send(
            try TransportFixture.request(.get, TransportFixture.fault("/slow?bytes=200000&chunks=20&interval=0.01")),
            options: TransportOptions())
        #expect(response.head.status == .ok)
        var data = Data()
        for try await chunk in try #require(response.body).chunks() { data.append(chunk) }
        #expect(data == TransportFixture.pattern(200_000))
    }

    @Test func fileDownloadIsMovedIntoPlaceComplete() async throws {
        let directory = try TransportFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("download.bin")
        let recorder = ProgressRecorder()
        let count = 1_500_000
        let response = try await client.download(
            try TransportFixture.request(.get, TransportFixture.fault("/bytes?n=\(count)")), to: destination,
            options: RequestOptions(progress: recorder.destination))
        #expect(response.body == destination)
        #expect(response.metrics.bytesReceived == Int64(count))
        #expect(try Data(contentsOf: destination) == TransportFixture.pattern(count))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["download.bin"])
        expectComplete(recorder, count: count)
    }

    @Test func fileDownloadReplacesAnExistingFile() async throws {
        let directory = try TransportFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("existing.bin")
        try Data("old content".utf8).write(to: destination)
        _ = try await client.download(
            try TransportFixture.request(.get, TransportFixture.fault("/bytes?n=1000")), to: destination)
        #expect(try Data(contentsOf: destination) == TransportFixture.pattern(1000))
    }

    @Test func truncatedFileDownloadLeavesNoPartialFileAndKeepsTheOldOne() async throws {
        let directory = try TransportFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fresh = directory.appendingPathComponent("fresh.bin")
        let existing = directory.appendingPathComponent("existing.bin")
        try Data("old content".utf8).write(to: existing)
        for destination in [fresh, existing] {
            let error = await #expect(throws: ClientError.self) {
                try await client.download(
                    try TransportFixture.request(.get, TransportFixture.fault("/truncate?declared=100000&send=5000")),
                    to: destination)
            }
            #expect(error?.code == .truncatedBody)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["existing.bin"])
        #expect(try Data(contentsOf: existing) == Data("old content".utf8))
    }

    @Test func fileDownloadIntoAMissingDirectoryIsFileWriteFailed() async throws {
        let destination = TransportFixture.temporaryFile("missing-dir").appendingPathComponent("file.bin")
        let error = await #expect(throws: ClientError.self) {
            try await client.download(
                try TransportFixture.request(.get, TransportFixture.fault("/bytes?n=10")), to: destination)
        }
        #expect(error?.code == .fileWriteFailed)
        #expect(error?.message.contains(destination.deletingLastPathComponent().path) == true)
    }

    @Test func bufferedBodyOverItsDeclaredLimitIsResponseTooLarge() async throws {
        let error = await #expect(throws: ClientError.self) {
            try await client.send(
                try TransportFixture.request(.get, TransportFixture.fault("/bytes?n=5000")),
                options: RequestOptions(responseBodyLimit: 1000))
        }
        #expect(error?.code == .responseTooLarge)
        #expect(error?.response?.status == .ok)
    }

    @Test func chunkedBodyGrowingPastTheLimitIsResponseTooLarge() async throws {
        let error = await #expect(throws: ClientError.self) {
            try await client.send(
                try TransportFixture.request(.get, TransportFixture.fault("/slow?bytes=50000&chunks=10&interval=0.01")),
                options: RequestOptions(responseBodyLimit: 12000))
        }
        #expect(error?.code == .responseTooLarge)
    }

    @Test func unreadBodyPastTheTransportBufferLimitFails() async throws {
        let response = try await transport.send(
            try TransportFixture.request(.get, TransportFixture.fault("/bytes?n=4000000")),
            options: TransportOptions(responseBufferLimit: 64 * 1024))
        try await Task.sleep(for: .milliseconds(500))  // the reader falls behind
        let error = await #expect(throws: ClientError.self) {
            _ = try await TransportFixture.data(response)
        }
        #expect(error?.code == .responseTooLarge)
    }

    @Test func responseReturnsAtTheHeadBeforeTheBody() async throws {
        let transport = URLSessionTransport()
        // The second half of the body comes 20 s after the first: `send` must not wait for it.
        let response = try await withWatchdog(seconds: 15) {
            try await transport.send(
                try TransportFixture.request(.get, TransportFixture.fault("/slow?bytes=2000&chunks=2&interval=20")),
                options: TransportOptions())
        }
        #expect(response.head.status == .ok)
        #expect(transport.delegate.activeTransferCount == 1)
        var iterator = try #require(response.body).chunks().makeAsyncIterator()
        var first = Data()
        while first.count < 1000, let chunk = try await iterator.next() { first.append(chunk) }
        #expect(first == TransportFixture.pattern(1000))
    }
}
