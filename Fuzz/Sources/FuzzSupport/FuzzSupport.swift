import Dispatch
import Foundation
import HTTPCache
import HTTPClient
import HTTPCore

/// Runs `body` to its end from a fuzz target's synchronous entry point, and returns only once
/// the task that ran it has let go of everything it held.
///
/// Returning at the semaphore's signal is not enough: the task is still releasing its closure
/// and what its frames held, and libFuzzer runs LeakSanitizer as soon as the input returns.
/// LeakSanitizer cannot follow the pointers through which Swift's concurrency runtime and
/// Dispatch hold a task that is ending, so what that task still owned was reported as
/// leaked: 65 and 88 bytes of the storage of a `Data(bytesNoCopy:count:deallocator:)` in
/// the multipart target, under load, when the task was slow to end. Waiting until the
/// task's closure is released (a sentinel it captured is gone) removes the race.
public func runBlocking(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    weak var watched: Sentinel?
    do {
        let sentinel = Sentinel()
        watched = sentinel
        Task {
            withExtendedLifetime(sentinel) {}
            await body()
            done.signal()
        }
    }
    done.wait()
    while watched != nil { usleep(20) }
}

/// An object whose release shows that the task that captured it has let go of its closure.
public final class Sentinel: Sendable {
    /// Creates one.
    public init() {}
}

/// The `Name: value` lines of `text` that make valid fields; the others are skipped.
public func fields(fromLines text: Substring) -> HTTPFields {
    var fields = HTTPFields()
    for line in text.split(separator: "\n") {
        guard let colon = line.firstIndex(of: ":"),
            let field = try? HTTPField(name: String(line[..<colon]), value: String(line[line.index(after: colon)...]))
        else { continue }
        fields.append(field)
    }
    return fields
}

/// The input as text cut in two at its first blank line (the second part empty when none).
public func halves(_ data: UnsafePointer<UInt8>, _ size: Int) -> (Substring, Substring) {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let cut = text.range(of: "\n\n") else { return (Substring(text), "") }
    return (text[..<cut.lowerBound], text[cut.upperBound...])
}

/// One client over a `CachingTransport` for a whole fuzzing run, its origin's answer and its
/// storage set anew for each input: making a client, a cache and their tasks per input cost
/// more than the input's own work (a target made that way ran 150 inputs a second).
public final class ReusedCacheClient: Sendable {
    /// The answer the origin gives every request, set per input.
    private let answer = AnswerBox()
    /// The cache's storage, emptied per input.
    public let storage = MemoryCacheStorage()
    /// The client, without a timeout (no deadline task per call).
    public let client: Client

    /// The cache.
    public let cache: CachingTransport

    /// Creates the client.
    /// - Parameters:
    ///   - configuration: The cache's settings.
    ///   - redirectLimit: The client's redirect limit.
    public init(configuration: CacheConfiguration = CacheConfiguration(), redirectLimit: Int = 10) {
        let origin = Origin(answer: answer)
        cache = CachingTransport(wrapping: origin, storage: storage, configuration: configuration)
        client = Client(
            baseURL: URL(string: "https://fuzz.example")!, transport: cache, retry: .none,
            redirectLimit: redirectLimit, timeout: nil)
    }

    /// Empties the storage and sets the origin's answer, for the next input.
    public func reset(answering answer: @escaping @Sendable (HTTPRequest) -> TransportResponse) {
        storage.removeAll(partition: nil)
        self.answer.set(answer)
    }

    private struct Origin: ClientTransport {
        let answer: AnswerBox

        func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
            answer.get()(request)
        }
    }

    /// The origin's answer, under a lock.
    private final class AnswerBox: @unchecked Sendable {
        // Invariant: `answer` is read and written under `lock`.
        private let lock = NSLock()
        private var answer: @Sendable (HTTPRequest) -> TransportResponse = { _ in
            TransportResponse(head: HTTPResponse(status: .ok), body: nil)
        }

        func get() -> @Sendable (HTTPRequest) -> TransportResponse { lock.withLock { answer } }
        func set(_ new: @escaping @Sendable (HTTPRequest) -> TransportResponse) { lock.withLock { answer = new } }
    }
}
