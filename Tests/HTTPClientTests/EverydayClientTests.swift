import Foundation
import HTTPClient
import HTTPClientTesting
import HTTPCore
import TestSupport
import Testing

/// Issue 30's friction in the client itself: a base URL given as text, upload and download
/// progress apart, downloads without a destination or into folders not yet made.
@Suite("Everyday client: base URL text, progress apart, downloads")
struct EverydayClientTests {
    @Test("a base URL as text resolves as the URL does; text that is not one fails every call, sending nothing")
    func baseURLText() async throws {
        let stub = StubTransport(fallback: .status(.ok))
        let good = Client(baseURL: "https://api.example.com/v2", transport: stub)
        _ = try await good.send(.get("users"))
        #expect(stub.requests.map(\.url.absoluteString) == ["https://api.example.com/v2/users"])

        let refused = [
            ("api.example.com/v2", "\"api.example.com/v2\""), ("", "text of 0 characters"),
            ("ftp://files.example.com", "\"ftp://files.example.com\""), ("https:///path", "\"https:///path\""),
            ("not a url", "text of 9 characters"),
            // A stray space is refused, not encoded into every request's path.
            ("https://api.example.com/v2 ", "text of 27 characters"),
        ]
        for (text, shown) in refused {
            let bad = Client(baseURL: text, transport: stub)
            let error = await #expect(throws: ClientError.self) { try await bad.send(.get("users")) }
            #expect(error?.code == .invalidRequest)
            #expect(error?.message.contains(shown) == true, "\(error?.message ?? "")")
            // An absolute request URL fails too: the client is misconfigured.
            await #expect(throws: ClientError.self) { try await bad.send(.get("https://example.com/x")) }
        }
        // A key in the text is not printed: the text is shown as any URL in an error is.
        let keyed = Client(baseURL: "api.example.com/v1?api_key=sk_live_123", transport: stub)
        let error = await #expect(throws: ClientError.self) { try await keyed.send(.get("users")) }
        #expect(error.map { "\($0)" }?.contains("sk_live_123") == false)
        #expect(error?.message.contains("api.example.com/v1") == true)
        #expect(stub.requests.count == 1)
    }

    @Test("upload and download progress reach their own handlers, each ending at 1")
    func progressApart() async throws {
        let client = Client(baseURL: try TestServers.httpbin())
        let uploads = Locked<[TransferProgress]>([])
        let downloads = Locked<[TransferProgress]>([])
        let response = try await client.send(
            .post("post").body(HTTPBody(Data(count: 1 << 20)))
                .uploadProgress { progress in uploads.withLock { $0.append(progress) } }
                .downloadProgress { progress in downloads.withLock { $0.append(progress) } })
        #expect(response.status == .ok)
        let sent = uploads.withLock { $0 }
        let received = downloads.withLock { $0 }
        #expect(!sent.isEmpty)
        #expect(sent.allSatisfy { $0.direction == .upload && $0.isTotalKnown })
        #expect(sent.last?.fraction == 1)
        #expect(zip(sent, sent.dropFirst()).allSatisfy { $0.fraction <= $1.fraction })
        #expect(!received.isEmpty)
        #expect(received.allSatisfy { $0.direction == .download })
        #expect(received.last?.fraction == 1)
        #expect(received.last?.completed == Int64(response.body.count))
    }

    @Test("a download without a destination lands in a new temporary file, keeping the URL's extension")
    func downloadToTemporaryFile() async throws {
        let client = Client(baseURL: try TestServers.httpbin())
        let response = try await client.download(.get("bytes/1024"))
        defer { try? FileManager.default.removeItem(at: response.body) }
        #expect(
            response.body.deletingLastPathComponent().standardizedFileURL.path
                == FileManager.default.temporaryDirectory.standardizedFileURL.path)
        #expect(try Data(contentsOf: response.body).count == 1024)
        let report = try await client.download(.get("anything/report.csv"))
        defer { try? FileManager.default.removeItem(at: report.body) }
        #expect(report.body.pathExtension == "csv")
        #expect(report.body != response.body)
    }

    @Test("a download makes the folders it needs, and removes them when the call fails")
    func downloadFolders() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("heron-folders-\(UUID())")
        defer { try? FileManager.default.removeItem(at: root) }
        let destination = root.appendingPathComponent("a/b/c/body.bin")
        let client = Client(baseURL: try TestServers.httpbin())
        let response = try await client.download(.get("bytes/100"), to: destination)
        #expect(try Data(contentsOf: response.body).count == 100)

        // Downloads side by side into one new folder: whichever makes it, both succeed.
        let shared = root.appendingPathComponent("shared/new")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask {
                    _ = try await client.download(.get("bytes/10"), to: shared.appendingPathComponent("\(index).bin"))
                }
            }
            try await group.waitForAll()
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: shared.path).count == 8)

        let other = FileManager.default.temporaryDirectory.appendingPathComponent("heron-folders-\(UUID())")
        let failing = other.appendingPathComponent("x/y/body.bin")
        let reset = try TestServers.faultServer().appendingPathComponent("reset")
        await #expect(throws: ClientError.self) {
            try await Client(retry: .none).download(HTTPRequest(url: reset), to: failing)
        }
        #expect(!FileManager.default.fileExists(atPath: other.path))
    }
}
