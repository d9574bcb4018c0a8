import Foundation
import HTTPCore
import Testing

@testable import HTTPCache
@testable import HTTPClient

@Suite("DiskCacheStorage: files, format, eviction")
struct DiskCacheStorageTests {
    let base = URL(string: "https://api.example.com")!

    func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("heron-cache-\(UUID().uuidString)")
    }

    func makeClient(_ origin: ScriptedOrigin, _ storage: any CacheStorage, clock: ManualClock) -> Client {
        var configuration = CacheConfiguration()
        configuration.clock = clock.cacheClock
        return Client(
            baseURL: base,
            transport: CachingTransport(wrapping: origin, storage: storage, configuration: configuration),
            retry: .none)
    }

    func entryFiles(_ directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".entry") }.sorted()
    }

    @Test("entries are 0600 even in a directory that already existed open to others, freshened ones too")
    func entriesAreOwnerOnly() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        let clock = ManualClock()
        let origin = ScriptedOrigin { _, number in
            number == 1
                ? ScriptedOrigin.response(
                    .ok, ["Cache-Control": "private, max-age=1", "ETag": #""v1""#], body: "mine", date: clock.now)
                : ScriptedOrigin.response(
                    .notModified, ["Cache-Control": "max-age=60", "ETag": #""v1""#], date: clock.now)
        }
        let client = makeClient(origin, try DiskCacheStorage(directory: directory), clock: clock)
        _ = try await client.send(.get("a"))
        func modes() throws -> [Int] {
            try entryFiles(directory).map {
                let attributes = try FileManager.default.attributesOfItem(
                    atPath: directory.appendingPathComponent($0).path)
                return (attributes[.posixPermissions] as? Int ?? -1) & 0o777
            }
        }
        #expect(try modes() == [0o600])
        clock.advance(5)
        #expect(try await client.send(.get("a")).cacheOutcome == .revalidated)
        #expect(origin.count == 2)
        #expect(try modes() == [0o600])
    }

    @Test("entry files hold no secret of the URL: secret query values and a password are digested in the key")
    func keyURIRedacted() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualClock()
        let origin = ScriptedOrigin { request, _ in
            ScriptedOrigin.response(
                .ok, ["Cache-Control": "private, max-age=60"],
                body: request.url.query?.contains("t0kenA") == true ? "first" : "second", date: clock.now)
        }
        let client = makeClient(origin, try DiskCacheStorage(directory: directory), clock: clock)
        _ = try await client.send(.get("https://alice:pa55word@api.example.com/me?access_token=t0kenA&page=1"))
        _ = try await client.send(.get("https://alice:pa55word@api.example.com/me?access_token=t0kenB&page=1"))
        let files = try entryFiles(directory)
        #expect(files.count == 2)  // two tokens, two entries
        for name in files {
            let text = String(decoding: try Data(contentsOf: directory.appendingPathComponent(name)), as: UTF8.self)
            for secret in ["t0kenA", "t0kenB", "pa55word"] { #expect(!text.contains(secret), "\(secret) in \(name)") }
            #expect(text.contains("page=1"))
        }
        // Each token still finds its own entry.
        let again = try await client.send(.get("https://alice:pa55word@api.example.com/me?access_token=t0kenA&page=1"))
        #expect(again.cacheOutcome == .hit)
        #expect(String(decoding: again.body, as: UTF8.self) == "first")
        let key = CacheKey(url: URL(string: "https://api.example.com/me?access_token=t0kenA&code=c0de")!, partition: "")
        #expect(!key.uri.contains("t0kenA") && !key.uri.contains("c0de") && key.uri.contains("access_token=***~"))
    }

    @Test("a FIFO named like an entry neither blocks a lookup nor a new storage's index: it is never opened")
    func fifoNamedLikeAnEntry() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualClock()
        let origin = ScriptedOrigin { _, _ in
            ScriptedOrigin.response(.ok, ["Cache-Control": "max-age=60"], body: "fresh", date: clock.now)
        }
        let storage = try DiskCacheStorage(directory: directory)
        let client = makeClient(origin, storage, clock: clock)
        _ = try await client.send(.get("a"))
        let key = try #require(storage.withIndex { $0.byKey.keys.first })
        let name = try #require(try entryFiles(directory).first)
        let path = directory.appendingPathComponent(name).path
        // The entry file becomes a FIFO: opening it for reading would wait for a writer.
        try FileManager.default.removeItem(atPath: path)
        #expect(mkfifo(path, 0o600) == 0)
        /// Runs `work` off the test's task; a blocked open is released by opening the FIFO for
        /// writing, and reported.
        func finishes(_ what: String, _ work: @escaping @Sendable () -> Void) async throws {
            let done = Locked(false)
            Thread.detachNewThread {
                work()
                done.withLock { $0 = true }
            }
            for _ in 0..<250 where !done.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(20)) }
            if !done.withLock({ $0 }) {
                Issue.record("\(what) blocked on the FIFO")
                let writer = open(path, O_WRONLY | O_NONBLOCK)
                if writer >= 0 { close(writer) }
            }
        }
        try await finishes("a lookup") { #expect(storage.entries(for: key).isEmpty) }
        #expect(mkfifo(path, 0o600) == 0 || FileManager.default.fileExists(atPath: path))
        try await finishes("a new storage's index") {
            #expect((try? DiskCacheStorage(directory: directory))?.entries(for: key).isEmpty == true)
        }
        // The call misses and fetches again, in time.
        #expect(try await client.send(.get("a")).body == Data("fresh".utf8))
    }

    @Test("an entry survives the storage: a new storage on the directory serves it, head and body")
    func persistence() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualClock()
        let origin = ScriptedOrigin { _, _ in
            ScriptedOrigin.response(
                .ok, ["Cache-Control": "max-age=60", "X-A": "1"], body: "persisted", date: clock.now)
        }
        _ = try await makeClient(origin, try DiskCacheStorage(directory: directory), clock: clock).send(.get("a"))
        #expect(try entryFiles(directory).count == 1)
        clock.advance(5)
        let again = try await makeClient(origin, try DiskCacheStorage(directory: directory), clock: clock).send(
            .get("a"))
        #expect(again.cacheOutcome == .hit)
        #expect(again.text == "persisted")
        #expect(again.headerFields[try HTTPFieldName("X-A")] == "1")
        #expect(again.headerFields[.age] == "5")
        #expect(origin.count == 1)
    }

    @Test("a corrupt, cut short or foreign entry file is dropped, never a crash; leftover temporary files go")
    func corruptFiles() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualClock()
        let origin = ScriptedOrigin { request, _ in
            ScriptedOrigin.response(.ok, ["Cache-Control": "max-age=60"], body: request.url.path, date: clock.now)
        }
        let client = makeClient(origin, try DiskCacheStorage(directory: directory), clock: clock)
        for path in ["a", "b", "c"] { _ = try await client.send(.get(path)) }
        let files = try entryFiles(directory)
        #expect(files.count == 3)
        // Cut one short, overwrite one with garbage, and mark one as a future format.
        let first = directory.appendingPathComponent(files[0])
        let data = try Data(contentsOf: first)
        try data.prefix(data.count - 3).write(to: first)
        try Data("not a cache entry".utf8).write(to: directory.appendingPathComponent(files[1]))
        var future = try Data(contentsOf: directory.appendingPathComponent(files[2]))
        future[11] = 9
        try future.write(to: directory.appendingPathComponent(files[2]))
        try Data("x".utf8).write(to: directory.appendingPathComponent(".old.entry.1234.partial"))
        let storage = try DiskCacheStorage(directory: directory)
        #expect(storage.count == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        let fresh = makeClient(origin, storage, clock: clock)
        #expect(try await fresh.send(.get("a")).cacheOutcome == .miss)
    }

    /// Rewrites the head of the entry file at `url` after `change`, keeping its body.
    func rewriteRecord(_ url: URL, _ change: (inout DiskCacheFile.Record) -> Void) throws {
        let data = try Data(contentsOf: url)
        let headLength = Int(data.suffix(12).prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        let jsonStart = data.count - 12 - headLength
        var record = try JSONDecoder().decode(
            DiskCacheFile.Record.self, from: data.subdata(in: jsonStart..<(data.count - 12)))
        change(&record)
        var json = try JSONEncoder().encode(record)
        withUnsafeBytes(of: UInt32(json.count).bigEndian) { json.append(contentsOf: $0) }
        json.append(contentsOf: DiskCacheFile.trailerMagic)
        try (data.prefix(jsonStart) + json).write(to: url)
    }

    @Test(
        "a hand-made head with an impossible body length, a time out of range or a control character is dropped, never a trap",
        arguments: ["bodyLength", "requestTime", "responseTime", "reason"])
    func craftedHeads(_ field: String) async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualClock()
        let origin = ScriptedOrigin { _, _ in
            ScriptedOrigin.response(.ok, ["Cache-Control": "max-age=60"], body: "stored", date: clock.now)
        }
        _ = try await makeClient(origin, try DiskCacheStorage(directory: directory), clock: clock).send(.get("a"))
        let file = directory.appendingPathComponent(try entryFiles(directory)[0])
        try rewriteRecord(file) { record in
            switch field {
            case "bodyLength": record.bodyLength = .max
            case "requestTime": record.requestTime = -1e300
            case "responseTime": record.responseTime = -1e300
            default: record.reason = "OK\r\nX-Injected: 1"
            }
        }
        let storage = try DiskCacheStorage(directory: directory)
        #expect(storage.count == 0)
        let response = try await makeClient(origin, storage, clock: clock).send(.get("a"))
        #expect(response.cacheOutcome == .miss)
        #expect(origin.count == 2)
    }

    @Test("an age or lifetime too large for Int64 is clamped in Age and ttl, never a trap")
    func hugeAgeIsClamped() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { _, _ in
            ScriptedOrigin.response(.ok, ["Cache-Control": "max-stale, max-age=60"], body: "x", date: clock.now)
        }
        let storage = MemoryCacheStorage()
        let client = makeClient(origin, storage, clock: clock)
        _ = try await client.send(.get("a"))
        clock.advance(1e30)
        var request = HTTPRequest.get("a")
        request.headerFields.append(try HTTPField(name: .cacheControl, value: "max-stale"))
        let stale = try await client.send(request)
        #expect(stale.cacheOutcome == .hit)
        #expect(stale.headerFields[.age] == "2147483648")
    }

    @Test("past the capacity the least recently used entry is evicted")
    func eviction() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualClock()
        let body = String(repeating: "x", count: 1000)
        let origin = ScriptedOrigin { _, _ in
            ScriptedOrigin.response(.ok, ["Cache-Control": "max-age=600"], body: body, date: clock.now)
        }
        // Room for two entries of about 1.3 kB, not three.
        let storage = try DiskCacheStorage(directory: directory, capacity: 3000)
        let client = makeClient(origin, storage, clock: clock)
        _ = try await client.send(.get("a"))
        _ = try await client.send(.get("b"))
        #expect(try await client.send(.get("a")).cacheOutcome == .hit)  // a is now the most recent
        _ = try await client.send(.get("c"))
        #expect(storage.count == 2)
        #expect(storage.totalCost <= 3000)
        #expect(try await client.send(.get("a")).cacheOutcome == .hit)
        #expect(try await client.send(.get("b")).cacheOutcome == .miss)
    }

    @Test("a body goes to disk as it arrives, and a body cut short leaves no file")
    func streamingAndTruncation() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualClock()
        let chunk = Data(repeating: 7, count: 64 * 1024)
        let origin = ScriptedOrigin { request, _ in
            let truncated = request.url.path == "/cut"
            var response = ScriptedOrigin.response(
                .ok, ["Cache-Control": "max-age=60", "Content-Length": String(8 * chunk.count)], date: clock.now)
            let chunks = AsyncThrowingStream<Data, any Error> { continuation in
                for _ in 0..<(truncated ? 3 : 8) { continuation.yield(chunk) }
                if truncated {
                    continuation.finish(throwing: ClientError(.truncatedBody, "cut", request: request))
                } else {
                    continuation.finish()
                }
            }
            response.body = HTTPBody(stream: chunks, length: .known(Int64(8 * chunk.count)))
            return response
        }
        let client = makeClient(origin, try DiskCacheStorage(directory: directory), clock: clock)
        let streamed = try await client.stream(.get("whole"))
        var iterator = streamed.body.makeAsyncIterator()
        _ = try await iterator.next()
        let partial = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasSuffix(".partial")
        }
        #expect(partial.count == 1)
        #expect(try entryFiles(directory).isEmpty)
        while try await iterator.next() != nil {}
        #expect(try entryFiles(directory).count == 1)
        #expect(try await client.send(.get("whole")).body.count == 8 * chunk.count)

        await #expect(throws: ClientError.self) { _ = try await client.send(.get("cut")) }
        #expect(try entryFiles(directory).count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).count == 1)
    }

    @Test("a 304 rewrites the head of the file and keeps the body")
    func updateKeepsBody() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualClock()
        let origin = ScriptedOrigin { _, number in
            if number == 1 {
                return ScriptedOrigin.response(
                    .ok, ["Cache-Control": "max-age=1", "ETag": "\"e\"", "X-V": "1"], body: "kept", date: clock.now)
            }
            return ScriptedOrigin.response(
                .notModified, ["Cache-Control": "max-age=60", "ETag": "\"e\"", "X-V": "2"], date: clock.now)
        }
        let storage = try DiskCacheStorage(directory: directory)
        let client = makeClient(origin, storage, clock: clock)
        _ = try await client.send(.get("a"))
        clock.advance(10)
        #expect(try await client.send(.get("a")).cacheOutcome == .revalidated)
        let reopened = makeClient(origin, try DiskCacheStorage(directory: directory), clock: clock)
        let hit = try await reopened.send(.get("a"))
        #expect(hit.cacheOutcome == .hit && hit.text == "kept")
        #expect(hit.headerFields[try HTTPFieldName("X-V")] == "2")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).count == 1)
    }

    @Test("a directory that is a file is refused with an error naming it")
    func badDirectory() throws {
        let file = temporaryDirectory()
        try Data("x".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect { try DiskCacheStorage(directory: file) } throws: { error in
            (error as? ClientError)?.code == .cacheStorageFailed && "\(error)".contains(file.path)
        }
    }

    @Test("a directory the storage creates is readable by its owner alone")
    func privateDirectory() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try DiskCacheStorage(directory: directory)
        let mode = try FileManager.default.attributesOfItem(atPath: directory.path)[.posixPermissions] as? Int
        #expect(mode == 0o700)
    }

    @Test("a download to a file is stored on disk as it is written, then served from the store")
    func downloadIsStored() async throws {
        let directory = temporaryDirectory()
        let file = temporaryDirectory().appendingPathExtension("bin")
        defer {
            try? FileManager.default.removeItem(at: directory)
            try? FileManager.default.removeItem(at: file)
        }
        let clock = ManualClock()
        let chunk = Data(repeating: 3, count: 256 * 1024)
        let origin = ScriptedOrigin { _, _ in
            var response = ScriptedOrigin.response(
                .ok, ["Cache-Control": "max-age=60", "Content-Length": String(4 * chunk.count)], date: clock.now)
            let chunks = AsyncThrowingStream<Data, any Error> { continuation in
                for _ in 0..<4 { continuation.yield(chunk) }
                continuation.finish()
            }
            response.body = HTTPBody(stream: chunks, length: .known(Int64(4 * chunk.count)))
            return response
        }
        let client = makeClient(origin, try DiskCacheStorage(directory: directory), clock: clock)
        let downloaded = try await client.download(.get("big"), to: file)
        #expect(try Data(contentsOf: downloaded.body).count == 4 * chunk.count)
        #expect(try entryFiles(directory).count == 1)
        try FileManager.default.removeItem(at: file)
        let again = try await client.download(.get("big"), to: file)
        #expect(again.cacheOutcome == .hit)
        #expect(try Data(contentsOf: again.body) == Data(repeating: 3, count: 4 * chunk.count))
        #expect(origin.count == 1)
    }
}
