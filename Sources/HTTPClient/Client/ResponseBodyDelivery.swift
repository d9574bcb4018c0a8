import Foundation
import HTTPCore

/// How the client hands a response body to its caller: built once here, on the body a
/// transport returns, for every transport.
enum ResponseBodyMode: Sendable, Hashable {
    /// In memory, failing with ``ClientError/Code/responseTooLarge`` past `limit` bytes.
    case buffered(limit: Int)
    /// Into the file at `destination`, moved into place only once complete; a partial
    /// file is removed on failure, and an existing file is replaced only on success.
    case file(destination: URL)
    /// As a ``ResponseStream``, at most `bufferLimit` unread bytes held.
    case stream(bufferLimit: Int, idleTimeout: Duration?)

    /// The most unread bytes the transport may hold: the buffering limit for a buffered
    /// body (it is read as it arrives, so never more piles up), the stream's limit, and
    /// for a file as much as may wait for the disk.
    var transportBufferLimit: Int {
        switch self {
        case .buffered(let limit): return limit
        case .file: return 64 * 1024 * 1024
        case .stream(let limit, _): return limit
        }
    }

    /// Whether an attempt's deadline also covers the body: for all but a stream, which
    /// belongs to its reader once the head is in.
    var deadlineCoversBody: Bool {
        if case .stream = self { return false }
        return true
    }

    /// Whether the whole body is read at once, so the transport may return it complete.
    var awaitsWholeBody: Bool {
        if case .buffered = self { return true }
        return false
    }

    /// Reads `response`'s body as this mode asks.
    /// - Parameters:
    ///   - response: What the transport returned.
    ///   - request: The request it answers, for errors.
    ///   - progress: Where download progress goes.
    /// - Returns: The body: bytes, a file, or a stream.
    /// - Throws: ``ClientError``: the body's own failures, ``ClientError/Code/responseTooLarge``
    ///   and ``ClientError/Code/fileWriteFailed``.
    func receive(
        _ response: TransportResponse, request: HTTPRequest, progress: ProgressDestination?,
        scheduler: DeadlineScheduler
    ) async throws -> ResponseContent {
        // A body the transport returned whole (its bytes in memory) needs no more than a size
        // check: no header to read, no chunk to take.
        if case .buffered(let limit) = self, progress == nil, case .data(let data)? = response.body?.source {
            guard data.count <= limit else {
                throw Self.tooLarge(limit: limit, size: "of \(data.count) bytes", response.head, request)
            }
            return .data(data)
        }
        let declared = response.body == nil ? 0 : response.head.decodedBodyLength
        var meter = DownloadMeter(expected: declared, progress: progress)
        switch self {
        case .buffered(let limit):
            guard let body = response.body else { return .data(Data()) }
            if let declared, declared > Int64(limit) {
                throw Self.tooLarge(limit: limit, size: "of \(declared) bytes", response.head, request)
            }
            var data = Data()
            for try await chunk in body.chunks() {
                guard data.count + chunk.count <= limit else {
                    throw Self.tooLarge(limit: limit, size: "longer than \(limit) bytes", response.head, request)
                }
                data.append(chunk)
                meter.received(chunk.count)
            }
            meter.finished()
            return .data(data)
        case .file(let destination):
            let file = try DownloadFile(destination: destination, request: request, response: response.head)
            do {
                if let body = response.body {
                    for try await chunk in body.chunks() {
                        try file.write(chunk)
                        meter.received(chunk.count)
                    }
                }
                let url = try file.commit()
                meter.finished()
                return .file(url, byteCount: meter.count)
            } catch {
                file.discard()
                throw error
            }
        case .stream(_, let idleTimeout):
            guard let body = response.body else { return .stream(ResponseStream(.empty)) }
            var idle: ResponseStream.IdleLimit?
            // A timeout beyond a century is none (and would overflow the clock's arithmetic).
            if let idleTimeout, idleTimeout < .seconds(3_153_600_000) {
                idle = ResponseStream.IdleLimit(timeout: idleTimeout, scheduler: scheduler, request: request)
            }
            guard progress != nil else { return .stream(ResponseStream(body, onChunk: nil, idle: idle)) }
            let counter = Locked(meter)
            return .stream(
                ResponseStream(body, onChunk: { count in counter.withLock { $0.received(count) } }, idle: idle))
        }
    }

    private static func tooLarge(
        limit: Int, size: String, _ head: HTTPResponse, _ request: HTTPRequest
    ) -> ClientError {
        ClientError(
            .responseTooLarge, "the response body \(size) exceeds the buffering limit of \(limit) bytes",
            request: request, response: head)
    }
}

/// A response body as the client delivers it.
enum ResponseContent: Sendable {
    /// The whole body in memory.
    case data(Data)
    /// The whole body in a file at this URL, `byteCount` bytes long.
    case file(URL, byteCount: Int64)
    /// The body as it arrives.
    case stream(ResponseStream)

    /// The bytes, for a body in memory.
    var data: Data? {
        if case .data(let data) = self { return data }
        return nil
    }

    /// The stream, for a body that arrives as it is read.
    var stream: ResponseStream? {
        if case .stream(let stream) = self { return stream }
        return nil
    }

    /// The number of bytes, when the whole body was read.
    var byteCount: Int64? {
        switch self {
        case .data(let data): return Int64(data.count)
        case .file(_, let count): return count
        case .stream: return nil
        }
    }
}

/// Counts the bytes of a response body as they are read and reports download progress.
struct DownloadMeter: Sendable {
    /// The length the body will have, when known; 0 when there is no body.
    let expected: Int64?
    private(set) var count: Int64 = 0
    private let progress: ProgressDestination?

    init(expected: Int64?, progress: ProgressDestination?) {
        self.expected = expected
        self.progress = progress
    }

    /// Counts `bytes` more.
    mutating func received(_ bytes: Int) {
        guard bytes > 0 else { return }
        count += Int64(bytes)
        progress?.report(TransferProgress(direction: .download, completed: count, expected: expected))
    }

    /// Reports 100% if the last report fell short of the final count.
    func finished() {
        guard let progress, expected != count else { return }
        progress.report(TransferProgress(direction: .download, completed: count, expected: count))
    }
}
