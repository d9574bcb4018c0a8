import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one session delegate of a ``URLSessionTransport``: routes every callback to the
/// transfer of its task, found by task identifier.
///
/// URLSession on Linux never calls per-task delegates, so all callbacks come here. On Linux
/// they run inline on URLSession's work queue (see ``URLSessionInlineQueue``), elsewhere on
/// a serial delegate queue: either way one at a time, so nothing here may wait for the work
/// queue (no synchronous URLSession calls; tasks are cancelled from another queue).
///
final class URLSessionTransportDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let transfers = Locked<[Int: URLSessionTransfer]>([:])

    /// Routes the callbacks of `task` to `transfer` until the task completes.
    func register(_ transfer: URLSessionTransfer, for task: URLSessionTask) {
        let id = task.taskIdentifier
        transfers.withLock { $0[id] = transfer }
    }

    /// Stops routing callbacks of `task`.
    func unregister(_ task: URLSessionTask) {
        let id = task.taskIdentifier
        transfers.withLock { $0[id] = nil }
    }

    /// The number of tasks still routed, for tests.
    var activeTransferCount: Int { transfers.withLock { $0.count } }

    private func transfer(for task: URLSessionTask) -> URLSessionTransfer? {
        let id = task.taskIdentifier
        return transfers.withLock { $0[id] }
    }

    /// Stops routing callbacks of `task`, returning where they went.
    private func removeTransfer(for task: URLSessionTask) -> URLSessionTransfer? {
        let id = task.taskIdentifier
        return transfers.withLock { $0.removeValue(forKey: id) }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let transfer = transfer(for: dataTask) else { return completionHandler(.cancel) }
        completionHandler(transfer.didReceive(response) ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let transfer = transfer(for: dataTask) else { return }
        if !transfer.didReceive(data) { URLSessionTransfer.cancelLater(dataTask) }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        transfer(for: task)?.didSend(totalBytesSent: totalBytesSent)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        removeTransfer(for: task)?.didComplete(error: error)
    }

    /// Redirects are the client's business: completing with `nil` hands the 3xx back.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    /// A `401` is the client's business, as a normal response.
    ///
    /// swift-corelibs-foundation (Linux) turns a finished `401` carrying `WWW-Authenticate`
    /// into this challenge instead of completing the task: `.performDefaultHandling` without a
    /// stored credential leaves the task pending for ever, and `.cancelAuthenticationChallenge`
    /// or `.rejectProtectionSpace` cancel it. By then the response head and the whole body have
    /// been delivered, one callback after another, so the transfer completes here with what it has,
    /// and the task is then cancelled off this queue (its cancellation report finds no transfer).
    /// Elsewhere a `401` reaches the caller through the default handling when no credential
    /// is stored.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(FoundationNetworking)
        guard challenge.failureResponse != nil else {
            // Answered off this thread too: default handling may resume or cancel the task.
            return Self.challengeQueue.async { completionHandler(.performDefaultHandling, nil) }
        }
        removeTransfer(for: task)?.didComplete(error: nil)
        Self.challengeQueue.async { completionHandler(.cancelAuthenticationChallenge, nil) }
        #else
        completionHandler(.performDefaultHandling, nil)
        #endif
    }

    /// Where finished challenges are answered: answering cancels the task, which waits for the
    /// session's work queue, so it never runs on the thread of a delegate callback.
    private static let challengeQueue = DispatchQueue(label: "Heron.URLSessionTransport.challenge")

    /// URLSession must send the body again (the server closed the kept-alive connection the
    /// request went out on before answering): an idempotent request's body that can be read
    /// again is given from its start; any other fails the transfer at once with
    /// `connectionLost` (see ``URLSessionTransfer/freshBodyStream()``).
    func urlSession(
        _ session: URLSession, task: URLSessionTask,
        needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
    ) {
        let stream = transfer(for: task)?.freshBodyStream()
        completionHandler(stream)
        if stream == nil { URLSessionTransfer.cancelLater(task) }
    }

    /// Responses are never cached by this transport.
    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, willCacheResponse proposedResponse: CachedURLResponse,
        completionHandler: @escaping @Sendable (CachedURLResponse?) -> Void
    ) {
        completionHandler(nil)
    }
}
