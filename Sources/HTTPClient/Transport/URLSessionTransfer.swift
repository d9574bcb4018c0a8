import Foundation
import HTTPCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The state of one request in flight on a ``URLSessionTransport``.
///
/// The session delegate feeds it the task's callbacks; `send` awaits its continuation,
/// which is resumed exactly once: with the response, with an error, or with
/// `CancellationError` as soon as the awaiting task is cancelled.
///
/// `@unchecked Sendable`: every mutable property is read and written under `lock`.
/// Progress callbacks and continuation resumptions run outside the lock.
final class URLSessionTransfer: @unchecked Sendable {
    private enum Sink {
        /// Waiting for the response head.
        case none
        case buffered(Data, limit: Int)
        case file(URLSessionDownloadFile)
        case stream(URLSessionStreamBuffer)
    }

    let request: HTTPRequest
    let options: TransportOptions
    private let uploadExpected: Int64?
    private let lock = NSLock()
    private var continuation: CheckedContinuation<TransportResponse, any Error>?
    private var task: URLSessionTask?
    private var sink = Sink.none
    private var head: HTTPResponse?
    private var received: Int64 = 0
    private var downloadExpected: Int64?
    private var lengthToCheck: Int64?
    private var bytesSent: Int64 = 0
    private var bodyPump: (any URLSessionBodySource)?
    private var bodyError: (any Error)?
    /// A failure decided here (limit, file write), reported instead of URLSession's -999.
    private var failure: (any Error)?
    private var cancelled = false
    /// What the awaiting `send` gets when the transfer ends before a task ran: `CancellationError`
    /// unless the deadline ended it.
    private var endError: (any Error)?
    /// The continuation was resumed with a streamed response: the deadline no longer applies.
    private var answered = false
    private var finished = false

    /// The queue that cancels URLSession tasks, never from the caller's thread: cancelling
    /// synchronously from a cancellation handler can deadlock swift-corelibs-foundation.
    private static let cancelQueue = DispatchQueue(label: "Heron.URLSessionTransport.cancel")

    /// Where progress callbacks (callers' code) run, in order: never on URLSession's work
    /// queue, where the delegate calls this transfer on Linux. Results are handed over
    /// through it too, so a caller sees every progress report before `send` returns.
    private let progressQueue: DispatchQueue?

    init(request: HTTPRequest, options: TransportOptions) {
        self.request = request
        self.options = options
        progressQueue = options.progress == nil ? nil : DispatchQueue(label: "Heron.URLSessionTransport.progress")
        if case .known(let length)? = request.body?.length { uploadExpected = length } else { uploadExpected = nil }
    }

    /// Cancels `task` on the cancel queue.
    static func cancelLater(_ task: URLSessionTask) {
        cancelQueue.async { task.cancel() }
    }

    /// Keeps the body source, closed when the transfer ends.
    func attach(_ pump: any URLSessionBodySource) {
        lock.lock()
        bodyPump = pump
        lock.unlock()
    }

    /// Stores the continuation of the awaiting `send`.
    /// - Returns: `false` when the transfer was cancelled already: the continuation is then
    ///   resumed with `CancellationError` and no task must be made.
    func prepare(_ continuation: CheckedContinuation<TransportResponse, any Error>) -> Bool {
        lock.lock()
        if cancelled {
            let error = endError ?? CancellationError()
            lock.unlock()
            continuation.resume(throwing: error)
            return false
        }
        self.continuation = continuation
        lock.unlock()
        return true
    }

    /// Stores the task before it runs.
    /// - Returns: `false` when the transfer was cancelled meanwhile: the task must not run.
    func start(_ task: URLSessionTask) -> Bool {
        lock.lock()
        if cancelled {
            let pump = bodyPump
            bodyPump = nil
            lock.unlock()
            pump?.close()
            return false
        }
        self.task = task
        lock.unlock()
        return true
    }

    /// Cancels on behalf of the awaiting task: resumes with `CancellationError` now and
    /// cancels the URLSession task on another queue.
    func cancel() {
        lock.lock()
        cancelled = true
        let outcome = finishLocked()
        let task = self.task
        lock.unlock()
        outcome.pump?.close()
        outcome.continuation?.resume(throwing: CancellationError())
        if let task { Self.cancelLater(task) }
    }

    /// The deadline passed before the response: resumes with `error` now and cancels the
    /// URLSession task on another queue. Nothing happens once a streamed response was handed over.
    func timeOut(with error: any Error) {
        lock.lock()
        guard !finished, !answered else {
            lock.unlock()
            return
        }
        cancelled = true
        endError = error
        let outcome = finishLocked()
        let task = self.task
        lock.unlock()
        outcome.pump?.close()
        outcome.continuation?.resume(throwing: error)
        if let task { Self.cancelLater(task) }
    }

    /// The body stream failed: fail the request with that error.
    func bodyFailed(_ error: any Error) {
        lock.lock()
        if bodyError == nil { bodyError = error }
        let task = finished ? nil : self.task
        lock.unlock()
        if let task { Self.cancelLater(task) }
    }

    // MARK: Delegate callbacks (one at a time; on Linux on URLSession's work queue)

    /// The response head arrived.
    /// - Returns: Whether to go on receiving the body.
    func didReceive(_ response: URLResponse) -> Bool {
        lock.lock()
        guard !finished else {
            lock.unlock()
            return false
        }
        let head: HTTPResponse
        do {
            head = try HTTPResponse(response, for: request)
        } catch {
            return failLocked(error)
        }
        self.head = head
        let encoded = head.headerFields[.contentEncoding].map { $0.lowercased() != "identity" } ?? false
        let hasBody = request.method != .head && head.status.code != 204 && head.status.code != 304
        let declared = hasBody && !encoded ? head.contentLength : nil
        lengthToCheck = declared
        downloadExpected = hasBody ? declared : 0
        switch options.responseBody {
        case .buffered(let limit):
            if let length = lengthToCheck, length > Int64(limit) {
                return failLocked(tooLarge(limit: limit, declared: length))
            }
            var data = Data()
            // Reserve what the server declared, but not more than 4 MiB on its word alone.
            if let length = lengthToCheck, length > 0 { data.reserveCapacity(Int(min(length, 4 << 20))) }
            sink = .buffered(data, limit: limit)
        case .file(let destination):
            do {
                sink = .file(try URLSessionDownloadFile(destination: destination, request: request, response: head))
            } catch {
                return failLocked(error)
            }
        case .stream(let bufferLimit):
            let task = self.task
            let buffer = URLSessionStreamBuffer(limit: bufferLimit) { [request] limit in
                ClientError(
                    .responseTooLarge,
                    "the streamed response body outgrew the \(limit)-byte buffer before it was read",
                    request: request, response: head)
            } onAbandon: {
                if let task { Self.cancelLater(task) }
            }
            sink = .stream(buffer)
            let continuation = self.continuation
            self.continuation = nil
            answered = true
            lock.unlock()
            // At once, not behind progress reports: the body may fill the buffer meanwhile.
            continuation?.resume(
                returning: TransportResponse(head: head, body: .stream(buffer.makeStream()), bytesSent: sentCount()))
            return true
        }
        lock.unlock()
        return true
    }

    /// Body bytes arrived.
    /// - Returns: `false` when the transfer failed and its task should be cancelled.
    func didReceive(_ data: Data) -> Bool {
        lock.lock()
        guard !finished else {
            lock.unlock()
            return false
        }
        received += Int64(data.count)
        switch sink {
        case .none:
            break
        case .buffered(var bytes, let limit):
            sink = .none
            guard bytes.count + data.count <= limit else {
                _ = failLocked(tooLarge(limit: limit, declared: nil))
                return false
            }
            bytes.append(data)
            sink = .buffered(bytes, limit: limit)
        case .file(let file):
            do {
                try file.write(data)
            } catch {
                _ = failLocked(error)
                return false
            }
        case .stream(let buffer):
            guard buffer.yield(data) else {
                // The buffer failed itself (over its limit) or its reader went away.
                return failLocked(CancellationError())
            }
        }
        let progress = TransferProgress(direction: .download, completed: received, expected: downloadExpected)
        lock.unlock()
        report(progress)
        return true
    }

    /// Request body bytes went out.
    func didSend(totalBytesSent: Int64) {
        lock.lock()
        bytesSent = totalBytesSent
        let finished = self.finished
        lock.unlock()
        if !finished {
            report(TransferProgress(direction: .upload, completed: totalBytesSent, expected: uploadExpected))
        }
    }

    /// The task ended, with `error` or successfully.
    func didComplete(error: (any Error)?) {
        lock.lock()
        guard !finished else {
            let outcome = finishLocked()
            lock.unlock()
            outcome.pump?.close()
            return
        }
        if let error {
            let mapped: any Error
            if let bodyError {
                mapped = ClientError(
                    .invalidRequest, "the request body could not be read: \(bodyError)", request: request,
                    response: head, underlying: bodyError)
            } else if let truncation = truncationError(for: error) {
                mapped = truncation
            } else {
                mapped = URLSessionTransport.mapError(error, request: request, response: head)
            }
            _ = failLocked(mapped)
            return
        }
        guard let head else {
            _ = failLocked(
                ClientError(.invalidResponse, "the connection ended without a response head", request: request))
            return
        }
        if let length = lengthToCheck, received < length {
            _ = failLocked(
                ClientError(
                    .truncatedBody,
                    "the body ended after \(received) of the \(length) bytes its Content-Length declared",
                    request: request, response: head))
            return
        }
        let body: ResponseContent?
        switch sink {
        case .none:
            body = .data(Data())
        case .buffered(let data, _):
            body = .data(data)
        case .file(let file):
            do {
                body = .file(try file.commit(), byteCount: received)
            } catch {
                _ = failLocked(error)
                return
            }
        case .stream(let buffer):
            buffer.finish()
            body = nil
        }
        sink = .none
        let outcome = finishLocked()
        let sent = bytesSent
        let received = self.received
        let download = downloadExpected
        lock.unlock()
        outcome.pump?.close()
        finalProgress(sent: sent, received: received, download: download)
        if let body {
            deliver(
                .success(TransportResponse(head: head, body: body, bytesSent: sentCount(complete: true))),
                to: outcome.continuation)
        }
    }

    // MARK: Helpers

    /// Reports 100% for each direction whose last report fell short of its final count.
    private func finalProgress(sent: Int64, received: Int64, download: Int64?) {
        guard options.progress != nil else { return }
        if request.body != nil, uploadExpected != sent {
            report(TransferProgress(direction: .upload, completed: sent, expected: sent))
        }
        if download != received {
            report(TransferProgress(direction: .download, completed: received, expected: received))
        }
    }

    /// Hands `progress` to the callback on the progress queue.
    private func report(_ progress: TransferProgress) {
        guard let callback = options.progress, let progressQueue else { return }
        progressQueue.async { callback(progress) }
    }

    /// Resumes `continuation` with `result`, after the progress reports already made.
    private func deliver(
        _ result: Result<TransportResponse, any Error>,
        to continuation: CheckedContinuation<TransportResponse, any Error>?
    ) {
        guard let continuation else { return }
        guard let progressQueue else { return continuation.resume(with: result) }
        progressQueue.async { continuation.resume(with: result) }
    }

    /// The error for a transfer that failed after its head: libcurl reports a body shorter
    /// than its `Content-Length` as an unknown error (-1, "transfer closed with N bytes
    /// remaining"), and a connection closed inside a chunked body likewise. Call with the lock held.
    private func truncationError(for error: any Error) -> ClientError? {
        guard let head, let urlError = error as? URLError,
            urlError.code == .unknown || urlError.code == .networkConnectionLost
        else { return nil }
        if let length = lengthToCheck, received < length {
            return ClientError(
                .truncatedBody, "the body ended after \(received) of the \(length) bytes its Content-Length declared",
                request: request, response: head, underlying: urlError)
        }
        guard urlError.code == .unknown else { return nil }
        return ClientError(
            .connectionLost, "the connection closed after \(received) bytes of the body (URLError -1)",
            request: request, response: head, underlying: urlError)
    }

    /// Request body bytes sent so far: what URLSession reported, or the known length once
    /// the response is complete (URLSession does not always report small bodies).
    private func sentCount(complete: Bool = false) -> Int64? {
        lock.lock()
        defer { lock.unlock() }
        guard request.body != nil else { return 0 }
        if bytesSent > 0 { return bytesSent }
        return complete ? uploadExpected : nil
    }

    private func tooLarge(limit: Int, declared: Int64?) -> ClientError {
        let size = declared.map { "of \($0) bytes" } ?? "longer than \(limit) bytes"
        return ClientError(
            .responseTooLarge, "the response body \(size) exceeds the buffering limit of \(limit) bytes",
            request: request, response: head)
    }

    /// Ends the transfer with `error`, resuming or failing whoever waits. Call with the lock
    /// held; it unlocks.
    /// - Returns: `false`, for callers that must stop the task.
    private func failLocked(_ error: any Error) -> Bool {
        if failure == nil { failure = error }
        let sink = self.sink
        let outcome = finishLocked()
        lock.unlock()
        outcome.pump?.close()
        switch sink {
        case .file(let file): file.discard()
        case .stream(let buffer): buffer.fail(error)
        case .none, .buffered: break
        }
        deliver(.failure(error), to: outcome.continuation)
        return false
    }

    /// Marks the transfer finished and takes what must be released. Call with the lock held.
    private func finishLocked() -> (
        continuation: CheckedContinuation<TransportResponse, any Error>?, pump: (any URLSessionBodySource)?
    ) {
        finished = true
        let continuation = self.continuation
        self.continuation = nil
        let pump = bodyPump
        bodyPump = nil
        if cancelled {
            switch sink {
            case .file(let file): file.discard()
            case .stream(let buffer): buffer.fail(CancellationError())
            case .none, .buffered: break
            }
            sink = .none
        }
        return (continuation, pump)
    }
}
