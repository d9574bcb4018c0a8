import Foundation
import HTTPClientTesting
import HTTPCore
import TestSupport
import Testing

@testable import HTTPClient

/// Downloads that resume (RFC 9110 §14.2, §13.1.5) against the fault server's `/resumable`,
/// which cuts bodies at seeded points, honours `Range` with `If-Range`, and can change its
/// content, use `Last-Modified`, ignore ranges or answer a wrong one. The 256 MiB body and the
/// resume after a restart run in `HeronDownloadProbe`, a process of its own.
@Suite("Resumable downloads")
struct ResumableDownloadTests {
    /// A folder of its own, removed after the test.
    final class Folder: Sendable {
        let url: URL
        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("heron-resume-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(at: url) }
        var contents: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted() }
    }

    static func key(_ name: String) -> String { "\(name)-\(UUID().uuidString)" }

    /// The SHA-256 of version `version` of `/resumable`'s `size` bytes, as the server computes it.
    static func expectedHash(size: Int, version: Int = 1) async throws -> String {
        let response = try await Client(baseURL: try TestServers.faultServer())
            .send(.get("resumable-hash?size=\(size)&version=\(version)"))
        let json = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: String])
        return try #require(json["sha256"])
    }

    /// A client on the fault server retrying cut bodies (the default transport error codes) up
    /// to `retries` times.
    static func client(retries: Int) throws -> Client {
        Client(
            baseURL: try TestServers.faultServer(),
            retry: [.transportErrors(max: retries), .attempts(max: retries + 1)])
    }

    /// Downloads `/resumable` (`size` bytes, `query`, a key of its own named `name`) to
    /// `file.bin` in a new folder with up to `retries` retries, and checks that the file is
    /// version `version` of the server's body.
    static func download(
        _ name: String, size: Int, _ query: String, retries: Int = 5, version: Int = 1
    ) async throws -> (response: ClientResponse<URL>, folder: Folder) {
        let folder = try Folder()
        let destination = folder.url.appendingPathComponent("file.bin")
        let response = try await client(retries: retries).download(
            .get("resumable?key=\(key(name))&size=\(size)&\(query)"), to: destination)
        #expect(
            try await FileDigest.sha256(of: [destination]) == (try await expectedHash(size: size, version: version)))
        return (response, folder)
    }

    static func outcomes(_ attempts: [ClientError.Attempt]) -> [String] {
        attempts.map { $0.failure ?? $0.status.map { "\($0.code)" } ?? "" }
    }

    // MARK: In this process

    @Test("a body cut three times resumes each time with Range and If-Range, and ends whole")
    func resumesWithETag() async throws {
        let (response, folder) = try await Self.download("etag", size: 8 << 20, "cuts=3&seed=11")
        #expect(Self.outcomes(response.metrics.attempts).count == 4)
        #expect(Self.outcomes(response.metrics.attempts).last == "206")
        #expect(folder.contents == ["file.bin"])
    }

    @Test("content that changes between attempts (a new ETag) makes the server send it whole: a clean restart")
    func changedContentRestarts() async throws {
        // 1: cut; 2: resumed, cut; 3: If-Range no longer matches, so 200 with version 2, cut;
        // 4: resumed from version 2.
        let (response, _) = try await Self.download(
            "changed", size: 8 << 20, "cuts=3&seed=12&new_version_at=3", version: 2)
        #expect(Self.outcomes(response.metrics.attempts).count == 4)
        #expect(response.status == .partialContent)
    }

    @Test("Last-Modified a day before Date is a strong validator: the body resumes on it")
    func resumesWithLastModified() async throws {
        let (response, _) = try await Self.download("date", size: 4 << 20, "cuts=2&seed=13&validator=date")
        #expect(Self.outcomes(response.metrics.attempts).count == 3)
        #expect(response.status == .partialContent)
    }

    @Test("a server that ignores Range sends 200 each time: each attempt starts the file over")
    func rangeIgnored() async throws {
        let (response, folder) = try await Self.download("ignored", size: 4 << 20, "cuts=2&seed=14&ranges=no")
        #expect(Self.outcomes(response.metrics.attempts).last == "200")
        #expect(folder.contents == ["file.bin"])
    }

    @Test("a 206 that does not continue the file fails the attempt (invalidResponse) and the body starts over")
    func wrongRangeStartsOver() async throws {
        let folder = try Folder()
        let size = 4 << 20
        let destination = folder.url.appendingPathComponent("file.bin")
        let path = "resumable?size=\(size)&cuts=1&seed=15&ranges=wrong_at_2"
        // The default transport error codes: a restart is retried as the cut before it was.
        let response = try await Self.client(retries: 5).download(
            .get(path + "&key=\(Self.key("wrong"))"), to: destination)
        let outcomes = Self.outcomes(response.metrics.attempts)
        #expect(outcomes == ["truncatedBody", "invalidResponse", "200"])
        #expect(try await FileDigest.sha256(of: [destination]) == (try await Self.expectedHash(size: size)))

        // With no retry left for it, the call fails, and leaves nothing behind.
        let other = folder.url.appendingPathComponent("other.bin")
        let error = await #expect(throws: ClientError.self) {
            _ = try await Self.client(retries: 1).download(.get(path + "&key=\(Self.key("wrong"))"), to: other)
        }
        #expect(error?.attempts.count == 2)
        #expect(
            error?.underlying.map { "\($0)" }?.contains("does not continue") == true
                || error?.message.contains("does not continue") == true)
        #expect(folder.contents == ["file.bin"])
    }

    @Test("a 206 that stops short of the end (a server capping its ranges) is followed by requests for the rest")
    func shortRanges() async throws {
        let (response, _) = try await Self.download(
            "capped", size: 3 << 20, "cuts=1&seed=19&range_cap=\(1 << 20)", retries: 6)
        let outcomes = Self.outcomes(response.metrics.attempts)
        #expect(outcomes.first == "truncatedBody" && outcomes.last == "206")
        #expect(outcomes.dropFirst().dropLast().allSatisfy { $0 == "truncatedBody" })
    }

    @Test("a 416 to the request for the rest fails the attempt (invalidResponse) and the body starts over")
    func unsatisfiableStartsOver() async throws {
        let (response, folder) = try await Self.download(
            "416", size: 2 << 20, "cuts=1&seed=18&ranges=unsatisfiable_at_2")
        #expect(Self.outcomes(response.metrics.attempts) == ["truncatedBody", "invalidResponse", "200"])
        #expect(folder.contents == ["file.bin"])
    }

    @Test("a failed download keeps nothing unless asked; asked, it keeps the partial file, and discard() removes it")
    func partialKeptOnlyWhenAsked() async throws {
        let folder = try Folder()
        let size = 4 << 20
        let destination = folder.url.appendingPathComponent("file.bin")
        let path = "resumable?size=\(size)&cuts=1&seed=16"
        let error = await #expect(throws: ClientError.self) {
            _ = try await Self.client(retries: 0).download(.get(path + "&key=\(Self.key("plain"))"), to: destination)
        }
        #expect(error?.resumableDownload == nil)
        #expect(folder.contents.isEmpty)

        var options = RequestOptions()
        options.keepsPartialDownload = true
        let kept = await #expect(throws: ClientError.self) {
            _ = try await Self.client(retries: 0).download(
                .get(path + "&key=\(Self.key("kept"))"), to: destination, options: options)
        }
        let resumable = try #require(kept?.resumableDownload)
        #expect(resumable.validator == "\"v1-\(size)\"")
        #expect(resumable.expectedByteCount == Int64(size))
        #expect(resumable.byteCount > 0 && resumable.byteCount < Int64(size))
        #expect(resumable.destination == destination)
        let attributes = try FileManager.default.attributesOfItem(atPath: resumable.partialFile.path)
        #expect((attributes[.size] as? Int).map(Int64.init) == resumable.byteCount)
        #expect(folder.contents == [resumable.partialFile.lastPathComponent])
        try resumable.discard()
        #expect(folder.contents.isEmpty)
    }

    @Test("a resume that fails keeps the partial file and returns it again, grown")
    func failedResumeKeepsPartial() async throws {
        let folder = try Folder()
        let size = 4 << 20
        let destination = folder.url.appendingPathComponent("file.bin")
        var options = RequestOptions()
        options.keepsPartialDownload = true
        // Requests 1 and 2 of the key are cut: the first call, then its resume, fail.
        let path = "resumable?key=\(Self.key("twice"))&size=\(size)&cuts=2&seed=20"
        let first = await #expect(throws: ClientError.self) {
            _ = try await Self.client(retries: 0).download(.get(path), to: destination, options: options)
        }
        let resumable = try #require(first?.resumableDownload)
        let second = await #expect(throws: ClientError.self) {
            _ = try await Self.client(retries: 0).download(resuming: resumable)
        }
        let again = try #require(second?.resumableDownload)
        #expect(again.partialFile == resumable.partialFile)
        #expect(again.byteCount > resumable.byteCount)
        let response = try await Self.client(retries: 0).download(resuming: again)
        #expect(response.status == .partialContent)
        #expect(try await FileDigest.sha256(of: [destination]) == (try await Self.expectedHash(size: size)))
        #expect(folder.contents == ["file.bin"])
    }

    @Test(
        "a resume of a body that came from another origin drops the request's credentials; a partial file elsewhere is refused"
    )
    func resumeRules() async throws {
        let folder = try Folder()
        let partial = folder.url.appendingPathComponent(".file.bin.partial")
        try Data("01234".utf8).write(to: partial)
        let resumable = ResumableDownload(
            url: URL(string: "https://cdn.example/file.bin")!,
            destination: folder.url.appendingPathComponent("file.bin"),
            partialFile: partial, byteCount: 5, expectedByteCount: 10, validator: "\"v1\"")
        let stub = StubTransport(fallback: .status(.notFound))
        let client = Client(transport: stub, retry: .none)
        var request = HTTPRequest(url: URL(string: "https://api.example/file.bin")!)
        try request.headerFields.set(.authorization, "Bearer secret")
        try request.headerFields.set(.accept, "application/octet-stream")
        _ = try await client.download(resuming: resumable, request: request)
        let sent = try #require(stub.requests.first)
        #expect(sent.url == resumable.url)
        #expect(sent.headerFields[.authorization] == nil && sent.headerFields[.accept] == "application/octet-stream")
        #expect(sent.headerFields[.range] == "bytes=5-" && sent.headerFields[.ifRange] == "\"v1\"")
        // A 404 is not the body: it went to the destination, and the partial file stays.
        #expect(FileManager.default.fileExists(atPath: partial.path))

        let elsewhere = ResumableDownload(
            url: resumable.url, destination: FileManager.default.temporaryDirectory.appendingPathComponent("x.bin"),
            partialFile: partial, byteCount: 5, expectedByteCount: 10, validator: "\"v1\"")
        let error = await #expect(throws: ClientError.self) { _ = try await client.download(resuming: elsewhere) }
        #expect(error?.code == .invalidRequest)
        #expect(FileManager.default.fileExists(atPath: partial.path))
    }

    @Test("a resumable download taken up by another client, after a JSON round trip, asks for the rest")
    func resumedLater() async throws {
        let folder = try Folder()
        let size = 4 << 20
        let destination = folder.url.appendingPathComponent("sub/file.bin")
        var options = RequestOptions()
        options.keepsPartialDownload = true
        let key = Self.key("later")
        let error = await #expect(throws: ClientError.self) {
            _ = try await Self.client(retries: 0).download(
                .get("resumable?key=\(key)&size=\(size)&cuts=1&seed=17"), to: destination, options: options)
        }
        let saved = try JSONEncoder().encode(try #require(error?.resumableDownload))
        let resumable = try JSONDecoder().decode(ResumableDownload.self, from: saved)
        let response = try await Self.client(retries: 0).download(resuming: resumable)
        #expect(response.status == .partialContent)
        #expect(response.body == destination)
        #expect(try await FileDigest.sha256(of: [destination]) == (try await Self.expectedHash(size: size)))
        #expect(!FileManager.default.fileExists(atPath: resumable.partialFile.path))
        // The partial file gone, a second resume fails typed.
        let gone = await #expect(throws: ClientError.self) {
            _ = try await Self.client(retries: 0).download(resuming: resumable)
        }
        #expect(gone?.code == .fileWriteFailed)
    }

    @Test("validators and Content-Range are read as RFC 9110 says")
    func parsing() throws {
        func head(_ pairs: KeyValuePairs<String, String>) throws -> HTTPResponse {
            HTTPResponse(status: .ok, headerFields: try HTTPFields(pairs))
        }
        #expect(DownloadBody.validator(of: try head(["ETag": "\"abc\""])) == "\"abc\"")
        #expect(DownloadBody.validator(of: try head(["ETag": "W/\"abc\""])) == nil)
        let modified = "Sat, 01 Jan 2022 00:00:00 GMT"
        #expect(DownloadBody.validator(of: try head(["Last-Modified": modified])) == nil)
        #expect(DownloadBody.validator(of: try head(["Last-Modified": modified, "Date": modified])) == nil)
        #expect(
            DownloadBody.validator(of: try head(["Last-Modified": modified, "Date": "Sat, 01 Jan 2022 00:00:01 GMT"]))
                == modified)
        func range(_ value: String) throws -> String {
            guard let parsed = DownloadBody.contentRange(try head(["Content-Range": value])) else { return "nil" }
            return "\(parsed.first)-\(parsed.last)/\(parsed.complete.map(String.init) ?? "*")"
        }
        #expect(try range("bytes 5-9/10") == "5-9/10")
        #expect(try range("bytes 5-9/*") == "5-9/*")
        #expect(try range("bytes 5-9/9") == "nil")
        #expect(try range("bytes 9-5/10") == "nil")
        #expect(try range("items 5-9/10") == "nil")
        #expect(try range("bytes */10") == "nil")
    }

    @Test("a saved ResumableDownload is checked when read back: a wrong field is a DecodingError naming it")
    func decodingChecks() throws {
        let good = ResumableDownload(
            url: URL(string: "https://example.com/f")!, destination: URL(fileURLWithPath: "/tmp/f"),
            partialFile: URL(fileURLWithPath: "/tmp/.f.partial"), byteCount: 5, expectedByteCount: 10,
            validator: "\"v1\"")
        let data = try JSONEncoder().encode(good)
        #expect(try JSONDecoder().decode(ResumableDownload.self, from: data) == good)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        for (key, value) in [
            ("byteCount", 11 as Any), ("byteCount", -1), ("partialFile", "https://example.com/x"),
            ("destination", "https://example.com/y"), ("validator", ""),
        ] {
            var changed = object
            changed[key] = value
            let bad = try JSONSerialization.data(withJSONObject: changed)
            #expect(throws: DecodingError.self, "\(key): \(value)") {
                _ = try JSONDecoder().decode(ResumableDownload.self, from: bad)
            }
            do {
                _ = try JSONDecoder().decode(ResumableDownload.self, from: bad)
            } catch DecodingError.dataCorrupted(let context) {
                #expect(context.codingPath.last?.stringValue == key)
            } catch {}
        }
    }

    // MARK: In a process of their own

    /// Runs `HeronDownloadProbe` with `arguments` and decodes its report.
    static func probe(_ arguments: [String]) async throws -> [String: Any] {
        let name = "HeronDownloadProbe"
        let executable = try #require(
            ProbeExecutable.find(name), "\(name) not found: build it with `swift build --build-tests`")
        let output = try await ExternalProcess.run(executable.path, arguments)
        let errors = String(decoding: output.standardError, as: UTF8.self)
        try #require(output.status == 0, "\(name) exited with \(output.status): \(errors)")
        return try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any])
    }

    @Test(
        "a 256 MiB body cut at 20 random points, its content changed once, arrives whole in one call, in bounded memory"
    )
    func twentyCuts() async throws {
        let folder = try Folder()
        let size = 256 << 20
        let destination = folder.url.appendingPathComponent("big.bin")
        let report = try await Self.probe([
            "download", try TestServers.faultServer().absoluteString,
            "resumable?key=\(Self.key("big"))&size=\(size)&cuts=20&seed=21&new_version_at=8", destination.path, "25",
        ])
        let outcomes = try #require(report["outcomes"] as? [String])
        #expect(outcomes.count == 21, "the probe reported \(report)")
        #expect(outcomes.dropLast().allSatisfy { $0 == "truncatedBody" || $0 == "connectionLost" }, "\(outcomes)")
        #expect(outcomes.last == "206")
        // From the 8th request the server has a new version (a new ETag): that answer is a 200,
        // whole, which starts the file over; the rest resumes it.
        #expect(try await FileDigest.sha256(of: [destination]) == (try await Self.expectedHash(size: size, version: 2)))
        let growth = try #require(report["peakGrowth"] as? Int)
        // Under the body, which held whole would pass it: URLSession on Linux cannot be paused
        // (corelibs' suspend restarts the transfer), so up to 64 MiB (FileBodyMode's
        // transportBufferLimit) may wait for a disk slowed by the suite's other writes. Measured:
        // 16-27 MiB idle; under the full suite's load 104 and 177 MiB (more than that buffer
        // explains; see the note of 2026-11-27).
        #expect(growth < 224 << 20, "peak RSS grew by \(growth >> 20) MiB for a 256 MiB body")
        #expect(folder.contents == ["big.bin"])
    }

    @Test("a download cut in one process is resumed by the next, from the JSON the first printed")
    func resumedAfterRestart() async throws {
        let folder = try Folder()
        let size = 16 << 20
        let server = try TestServers.faultServer().absoluteString
        let destination = folder.url.appendingPathComponent("file.bin")
        let first = try await Self.probe([
            "download", server, "resumable?key=\(Self.key("restart"))&size=\(size)&cuts=1&seed=22",
            destination.path, "0", "keep",
        ])
        #expect(first["errorCode"] as? String == "tooManyRetries")
        let resumable = try #require(first["resumable"] as? [String: Any])
        let written = try #require(resumable["byteCount"] as? Int)
        #expect(written > 0 && written < size)
        let saved = folder.url.appendingPathComponent("resume.json")
        try JSONSerialization.data(withJSONObject: resumable).write(to: saved)
        let second = try await Self.probe(["resume", server, saved.path])
        #expect(second["status"] as? Int == 206)
        #expect(second["attempts"] as? Int == 1)
        #expect(try await FileDigest.sha256(of: [destination]) == (try await Self.expectedHash(size: size)))
        #expect(folder.contents == ["file.bin", "resume.json"])
    }
}
