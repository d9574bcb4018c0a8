import Foundation
import HTTPClient
import HTTPCore
import Testing

// Helpers of the transport contract suite (see ContractTransport.swift), shared with the
// root package's URLSessionTransport tests.

/// Shared pieces of the transport integration tests.
enum TransportFixture {
    /// A server the tests need was not started.
    struct MissingServer: Error, CustomStringConvertible {
        /// The environment variable that was not set.
        let variable: String
        var description: String {
            "\(variable) is not set: run the tests under scripts/with-servers (scripts/test does)"
        }
    }

    /// The base URL in the environment variable `variable`, set by scripts/with-servers.
    static func server(_ variable: String) throws -> URL {
        guard let value = ProcessInfo.processInfo.environment[variable], let url = URL(string: value) else {
            throw MissingServer(variable: variable)
        }
        return url
    }

    /// A URL on the local fault server, such as `fault("/bytes?n=10")`.
    static func fault(_ pathAndQuery: String) throws -> URL {
        try #require(URL(string: try server("HERON_FAULT_URL").absoluteString + pathAndQuery))
    }

    /// A URL on the local httpbin, such as `httpbin("/gzip")`.
    static func httpbin(_ pathAndQuery: String) throws -> URL {
        try #require(URL(string: try server("HERON_HTTPBIN_URL").absoluteString + pathAndQuery))
    }

    /// The bytes of a response body, read to its end.
    static func data(_ response: TransportResponse) async throws -> Data {
        try await response.body?.collect(upTo: 1 << 30) ?? Data()
    }

    /// A response body decoded as a JSON object.
    static func json(_ response: TransportResponse) async throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: await data(response)) as? [String: Any])
    }

    /// The bytes of the fault server's pattern: byte `i` is `i % 256`.
    static func pattern(_ count: Int, offset: Int = 0) -> Data {
        let block = Data((0..<512).map { UInt8(truncatingIfNeeded: $0 + offset) })
        var data = Data(capacity: count)
        while data.count < count { data.append(block.prefix(min(256, count - data.count))) }
        return data
    }

    /// `count` random bytes, so a reordered or repeated chunk changes a hash. Made eight
    /// bytes at a time: tests run unoptimised, on few cooperative threads.
    static func randomData(_ count: Int) -> Data {
        var data = Data(count: count)
        var generator = SystemRandomNumberGenerator()
        data.withUnsafeMutableBytes { raw in
            var offset = 0
            while offset + 8 <= count {
                raw.storeBytes(of: generator.next(), toByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            while offset < count {
                raw[offset] = UInt8.random(in: 0...255, using: &generator)
                offset += 1
            }
        }
        return data
    }

    /// Runs blocking `work` on a thread of its own, keeping Swift's few cooperative threads
    /// free for the transfers under test. Not on `DispatchQueue.global()`: on Linux its
    /// threads are the cooperative pool's.
    static func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue(label: "Heron.tests.blocking").async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// The SHA-256 of `data`, in lowercase hex, computed by `sha256sum`.
    static func sha256(_ data: Data) async throws -> String {
        let file = temporaryFile()
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try await sha256(ofFile: file)
    }

    /// The SHA-256 of the file at `url`, in lowercase hex, computed by `sha256sum`.
    static func sha256(ofFile url: URL) async throws -> String {
        try await offThePool { try runSHA256(url) }
    }

    private static func runSHA256(_ url: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sha256sum", url.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output.prefix(64), as: UTF8.self)
    }

    /// A fresh path in the temporary directory (nothing is created).
    static func temporaryFile(_ name: String = "body") -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("heron-\(UUID().uuidString)-\(name)")
    }

    /// A fresh empty directory in the temporary directory.
    static func temporaryDirectory() throws -> URL {
        let url = temporaryFile("dir")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A request for `url` with `fields` and `body`.
    static func request(
        _ method: HTTPMethod = .get, _ url: URL, fields: KeyValuePairs<String, String> = [:], body: HTTPBody? = nil
    ) throws -> HTTPRequest {
        HTTPRequest(method: method, url: url, headerFields: try HTTPFields(fields), body: body)
    }
}

/// Collects progress reports from any thread.
final class ProgressRecorder: @unchecked Sendable {
    // Invariant: `events` is only touched under `lock`.
    private let lock = NSLock()
    private var events: [TransferProgress] = []

    /// The callback to pass in ``TransportOptions/progress``.
    var destination: ProgressDestination { .callback(callback) }

    /// The callback to pass in ``TransportOptions/progress``.
    var callback: @Sendable (TransferProgress) -> Void { { [self] event in record(event) } }

    private func record(_ event: TransferProgress) {
        lock.lock()
        events.append(event)
        lock.unlock()
    }

    /// The reports for `direction`, in order.
    func reports(_ direction: TransferProgress.Direction) -> [TransferProgress] {
        lock.lock()
        defer { lock.unlock() }
        return events.filter { $0.direction == direction }
    }

    /// Checks that the upload reports end at `count` of `count`, each expecting `count`, and
    /// never go backwards.
    func expectUploadComplete(count: Int) {
        let reports = reports(.upload)
        #expect(reports.last?.completed == Int64(count))
        #expect(reports.last?.expected == Int64(count))
        #expect(reports.allSatisfy { $0.expected == Int64(count) })
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.completed <= $1.completed })
    }

    /// Checks that the download reports end at `count` of `count` and never go backwards.
    func expectDownloadComplete(count: Int) {
        let reports = reports(.download)
        #expect(reports.last?.completed == Int64(count))
        #expect(reports.last?.expected == Int64(count))
        #expect(reports.last?.fractionCompleted == 1)
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.completed <= $1.completed })
    }
}

/// Thrown by ``withWatchdog(seconds:_:)`` when the work did not finish in time.
struct WatchdogExpired: Error, CustomStringConvertible {
    let seconds: Double
    var description: String { "the work did not finish within \(seconds) s: it hangs" }
}

/// Runs `work` in a task of its own and returns its result, or throws ``WatchdogExpired``
/// after `seconds` without waiting for it: a hang fails the test instead of stalling the run.
func withWatchdog<T: Sendable>(seconds: Double, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
    let once = ResumeOnce<T>()
    let task = Task { once.resume(with: await Result { try await work() }) }
    DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
        once.resume(with: .failure(WatchdogExpired(seconds: seconds)))
    }
    do {
        return try await once.value()
    } catch let error as WatchdogExpired {
        task.cancel()
        throw error
    }
}

/// A continuation resumed by whichever result comes first.
private final class ResumeOnce<T: Sendable>: @unchecked Sendable {
    // Invariant: `result` and `continuation` are only touched under `lock`.
    private let lock = NSLock()
    private var result: Result<T, any Error>?
    private var continuation: CheckedContinuation<T, any Error>?

    func resume(with outcome: Result<T, any Error>) {
        lock.lock()
        guard result == nil else {
            lock.unlock()
            return
        }
        result = outcome
        let continuation = self.continuation
        self.continuation = nil
        lock.unlock()
        continuation?.resume(with: outcome)
    }

    func value() async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            lock.lock()
            if let result {
                lock.unlock()
                continuation.resume(with: result)
            } else {
                self.continuation = continuation
                lock.unlock()
            }
        }
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

/// A progress callback that blocks its thread for a while on its first call.
final class BlockingProgress: @unchecked Sendable {
    // Invariant: `blocked` and `waiters` are only touched under `lock`.
    private let lock = NSLock()
    private var blocked = false
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private let seconds: Double

    init(seconds: Double) { self.seconds = seconds }

    var callback: @Sendable (TransferProgress) -> Void {
        { [self] _ in
            let first = lock.withLock {
                defer { blocked = true }
                return !blocked
            }
            guard first else { return }
            let waiting = lock.withLock {
                defer { waiters = [] }
                return waiters
            }
            for waiter in waiting { waiter.resume() }
            Thread.sleep(forTimeInterval: seconds)
        }
    }

    func waitUntilBlocked() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            if blocked {
                lock.unlock()
                continuation.resume()
            } else {
                waiters.append(continuation)
                lock.unlock()
            }
        }
    }
}

extension Array where Element == Data {
    /// The chunks as an asynchronous sequence.
    var asyncChunks: AsyncStream<Data> {
        AsyncStream { continuation in
            for chunk in self { continuation.yield(chunk) }
            continuation.finish()
        }
    }
}

extension TransportFixture {
    /// Writes `size` bytes to `url` quickly: one random MiB repeated, each copy stamped with
    /// its index in its first eight bytes, so a block sent twice or skipped changes the hash.
    /// Blocks its thread: call it through ``offThePool(_:)``.
    static func writePatternFile(to url: URL, size: Int) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var block = randomData(1 << 20)
        var index: UInt64 = 0
        var written = 0
        while written < size {
            withUnsafeBytes(of: index.littleEndian) { block.replaceSubrange(0..<8, with: $0) }
            let count = min(block.count, size - written)
            try handle.write(contentsOf: count == block.count ? block : block.prefix(count))
            written += count
            index += 1
        }
    }
}
