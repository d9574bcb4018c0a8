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

    @Test func httpbinBytesDownloadInMemoryReachesFullProgress() async throws {
        let recorder = ProgressRecorder()
        let response = try await client.send(
            try TransportFixture.request(.get, TransportFixture.httpbin("/bytes/50000?seed=7")),
            options: RequestOptions(progress: recorder.destination))
        #expect(response.body.count == 50000)
        recorder.expectDownloadComplete(count: 50000)
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

    @Test func fileDownloadWhereAFolderCannotBeMadeIsFileWriteFailed() async throws {
        // A regular file stands where the folder would go.
        let blocker = TransportFixture.temporaryFile("blocker")
        try Data("x".utf8).write(to: blocker)
        defer { try? FileManager.default.removeItem(at: blocker) }
        let destination = blocker.appendingPathComponent("sub/file.bin")
        let error = await #expect(throws: ClientError.self) {
            try await client.download(
                try TransportFixture.request(.get, TransportFixture.fault("/bytes?n=10")), to: destination)
        }
        #expect(error?.code == .fileWriteFailed)
        #expect(error?.message.contains(blocker.path) == true)
    }

}
