import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A second baseline: URLSession driven through a session delegate, the route any
/// transport must take to stream bodies, report progress and stop redirects, written
/// as plainly as possible. The gap between it and ``RawURLSession`` is what the delegate
/// route itself costs on this platform.
final class RawDelegateSession: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Invariant: `pending` is only touched under `lock`.
    private let lock = NSLock()
    private var pending: [Int: (data: Data, continuation: CheckedContinuation<Int, any Error>)] = [:]
    private var session: URLSession!

    override init() {
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 64
        configuration.httpShouldSetCookies = false
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
    }

    /// `GET url` with the same header fields the client adds; checks for a 200.
    func get(_ url: URL) async throws {
        var request = URLRequest(url: url)
        request.setValue("1", forHTTPHeaderField: "X-Bench")
        request.setValue("Bearer bench-token", forHTTPHeaderField: "Authorization")
        let status = try await withCheckedThrowingContinuation { continuation in
            let task = session.dataTask(with: request)
            lock.withLock { pending[task.taskIdentifier] = (Data(), continuation) }
            task.resume()
        }
        guard status == 200 else { throw URLError(.badServerResponse) }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.withLock { pending[dataTask.taskIdentifier]?.data.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = lock.withLock({ pending.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let error {
            entry.continuation.resume(throwing: error)
        } else {
            entry.continuation.resume(returning: (task.response as? HTTPURLResponse)?.statusCode ?? 0)
        }
    }
}
