import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import HTTPClient

@Suite("URLSessionTransport: downloads")
struct URLSessionTransportDownloadTests {
    let transport = TransportFixture.transport

    /// Reads a streamed body to its end.
    private func collect(_ response: TransportResponse) async throws -> Data {
        guard case .stream(let stream) = response.body else {
            Issue.record("expected a streamed body, got \(response.body)")
            return Data()
        }
        var data = Data()
        for try await chunk in stream { data.append(chunk) }
        return data
    }

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
        let response = try await transport.send(
            try TransportFixture.request(.get, TransportFixture.fault("/bytes?n=\(count)")),
            options: TransportOptions(progress: recorder.callback))
        #expect(try TransportFixture.data(response) == TransportFixture.pattern(count))
        let reports = recorder.reports(.download)
        #expect(reports.count > 1)
        #expect(reports.allSatisfy { $0.expected == Int64(count) })
        expectComplete(recorder, count: count)
    }

    @Test func httpbinBytesDownloadInMemoryReachesFullProgress() async throws {
        let recorder = ProgressRecorder()
        let response = try await transport.send(
            try TransportFixture.request(.get, TransportFixture.httpbin("/bytes/50000?seed=7")),
            options: TransportOptions(progress: recorder.callback))
        #expect(try TransportFixture.data(response).count == 50000)
        expectComplete(recorder, count: 50000)
    }

    @Test func chunkedDownloadWithoutLengthReachesFullProgressAtTheEnd() async throws {
        let recorder = ProgressRecorder()
        let response = try await transport.send(
            try TransportFixture.request(.get, TransportFixture.httpbin("/stream-bytes/80000?seed=3&chunk_size=4096")),
            options: TransportOptions(responseBody: .stream(), progress: recorder.callback))
        #expect(response.head.contentLength == nil)
        #expect(try await collect(response).count == 80000)
        #expect(recorder.reports(.download).dropLast().allSatisfy { $0.expected == nil })
        expectComplete(recorder, count: 80000)
    }

    @Test func streamedDownloadYieldsEveryByteInOrder() async throws {
        let response = try await transport.send(
            try TransportFixture.request(.get, TransportFixture.fault("/slow?bytes=200000&chunks=20&interval=0.01")),
            options: TransportOptions(responseBody: .stream()))
        #expect(response.head.status == .ok)
        #expect(try await collect(response) == TransportFixture.pattern(200_000))
    }

    @Test func fileDownloadIsMovedIntoPlaceComplete() async throws {
        let directory = try TransportFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("download.bin")
        let recorder = ProgressRecorder()
        let count = 1_500_000
        let response = try await transport.send(
            try TransportFixture.request(.get, TransportFixture.fault("/bytes?n=\(count)")),
            options: TransportOptions(responseBody: .file(destination: destination), progress: recorder.callback))
        guard case .file(let url, let byteCount) = response.body else {
            Issue.record("expected a file, got \(response.body)")
            return
        }
        #expect(url == destination)
        #expect(byteCount == Int64(count))
        #expect(try Data(contentsOf: destination) == TransportFixture.pattern(count))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["download.bin"])
        expectComplete(recorder, count: count)
    }

    @Test func fileDownloadReplacesAnExistingFile() async throws {
        let directory = try TransportFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("existing.bin")
        try Data("old content".utf8).write(to: destination)
        _ = try await transport.send(
            try TransportFixture.request(.get, TransportFixture.fault("/bytes?n=1000")),
            options: TransportOptions(responseBody: .file(destination: destination)))
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
                try await transport.send(
                    try TransportFixture.request(.get, TransportFixture.fault("/truncate?declared=100000&send=5000")),
                    options: TransportOptions(responseBody: .file(destination: destination)))
            }
            #expect(error?.code == .truncatedBody)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["existing.bin"])
        #expect(try Data(contentsOf: existing) == Data("old content".utf8))
    }

    @Test func fileDownloadIntoAMissingDirectoryIsFileWriteFailed() async throws {
        let destination = TransportFixture.temporaryFile("missing-dir").appendingPathComponent("file.bin")
        let error = await #expect(throws: ClientError.self) {
            try await transport.send(
                try TransportFixture.request(.get, TransportFixture.fault("/bytes?n=10")),
                options: TransportOptions(responseBody: .file(destination: destination)))
        }
        #expect(error?.code == .fileWriteFailed)
        #expect(error?.message.contains(destination.path) == true)
    }

    @Test func bufferedBodyOverItsDeclaredLimitIsResponseTooLarge() async throws {
        let error = await #expect(throws: ClientError.self) {
            try await transport.send(
                try TransportFixture.request(.get, TransportFixture.fault("/bytes?n=5000")),
                options: TransportOptions(responseBody: .buffered(limit: 1000)))
        }
        #expect(error?.code == .responseTooLarge)
        #expect(error?.response?.status == .ok)
    }

    @Test func chunkedBodyGrowingPastTheLimitIsResponseTooLarge() async throws {
        let error = await #expect(throws: ClientError.self) {
            try await transport.send(
                try TransportFixture.request(.get, TransportFixture.fault("/slow?bytes=50000&chunks=10&interval=0.01")),
                options: TransportOptions(responseBody: .buffered(limit: 12000)))
        }
        #expect(error?.code == .responseTooLarge)
    }

    @Test func unreadStreamPastItsBufferLimitFails() async throws {
        let response = try await transport.send(
            try TransportFixture.request(.get, TransportFixture.fault("/bytes?n=4000000")),
            options: TransportOptions(responseBody: .stream(bufferLimit: 64 * 1024)))
        try await Task.sleep(for: .milliseconds(500))  // the reader falls behind
        let error = await #expect(throws: ClientError.self) { _ = try await collect(response) }
        #expect(error?.code == .responseTooLarge)
    }

    @Test func streamedResponseReturnsAtTheHeadBeforeTheBody() async throws {
        let transport = URLSessionTransport()
        // The second half of the body comes 20 s after the first: `send` must not wait for it.
        let response = try await withWatchdog(seconds: 15) {
            try await transport.send(
                try TransportFixture.request(.get, TransportFixture.fault("/slow?bytes=2000&chunks=2&interval=20")),
                options: TransportOptions(responseBody: .stream()))
        }
        #expect(response.head.status == .ok)
        #expect(transport.delegate.activeTransferCount == 1)
        guard case .stream(let stream) = response.body else {
            Issue.record("expected a stream")
            return
        }
        var iterator = stream.makeAsyncIterator()
        var first = Data()
        while first.count < 1000, let chunk = try await iterator.next() { first.append(chunk) }
        #expect(first == TransportFixture.pattern(1000))
    }
}
