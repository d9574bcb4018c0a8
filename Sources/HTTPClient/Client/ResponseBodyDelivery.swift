import Foundation
import HTTPCore

/// How the client hands a response body to its caller: built once, on the body a
/// transport returns, for every transport. Each way is a type of its own, whose `Content`
/// is what the caller gets, so no call checks for a kind of body it cannot have.
protocol ResponseBodyMode: Sendable {
    /// What the caller gets: the bytes, a file, a stream.
    associatedtype Content: Sendable

    /// The most unread bytes the transport may hold.
    var transportBufferLimit: Int { get }
    /// Whether the attempt reads the body (so the call's deadline and the idle timeout bound
    /// it there), rather than handing it to the caller at the head.
    var readsBodyInAttempt: Bool { get }
    /// Whether the whole body is read at once, so the transport may return it complete.
    var awaitsWholeBody: Bool { get }

    /// Changes an attempt's request, after the interceptors: a download asks for the rest of a
    /// body an earlier attempt cut.
    func prepare(_ request: inout HTTPRequest)

    /// Reads `response`'s body as this mode asks.
    /// - Parameters:
    ///   - response: What the transport returned.
    ///   - request: The request it answers, for errors.
    ///   - progress: Where download progress goes.
    ///   - scheduler: The client's deadlines, for a stream's idle timeout.
    /// - Returns: The body as the caller gets it.
    nonisolated(nonsending) func receive(
        _ response: TransportResponse, request: HTTPRequest, progress: ProgressDestination?,
        scheduler: DeadlineScheduler
    ) async throws -> Content

    /// The bytes received, when the whole body was read: for the call's metrics.
    static func byteCount(of content: Content) -> Int64?
    /// The body's bytes when it is in memory: for the interceptors and errors.
    static func data(of content: Content) -> Data?
}

extension ResponseBodyMode {
    var readsBodyInAttempt: Bool { true }
    func prepare(_ request: inout HTTPRequest) {}
    var awaitsWholeBody: Bool { false }
    static func data(of content: Content) -> Data? { nil }
}

/// The body in memory, failing with ``ClientError/Code/responseTooLarge`` past `limit` bytes.
struct BufferedBodyMode: ResponseBodyMode {
    let limit: Int

    /// The buffering limit: the body is read as it arrives, so never more piles up.
    var transportBufferLimit: Int { limit }
    var awaitsWholeBody: Bool { true }

    nonisolated(nonsending) func receive(
        _ response: TransportResponse, request: HTTPRequest, progress: ProgressDestination?,
        scheduler: DeadlineScheduler
    ) async throws -> Data {
        // A body the transport returned whole (its bytes in memory) needs no more than a size
        // check: no header to read, no chunk to take.
        if progress == nil, case .data(let data)? = response.body?.source {
            guard data.count <= limit else {
                throw Self.tooLarge(limit: limit, size: "of \(data.count) bytes", response.head, request)
            }
            return data
        }
        guard let body = response.body else { return Data() }
        let declared = response.head.decodedBodyLength
        if let declared, declared > Int64(limit) {
            throw Self.tooLarge(limit: limit, size: "of \(declared) bytes", response.head, request)
        }
        var meter = DownloadMeter(expected: declared, progress: progress)
        var data = Data()
        for try await chunk in body.chunks() {
            guard data.count + chunk.count <= limit else {
                throw Self.tooLarge(limit: limit, size: "longer than \(limit) bytes", response.head, request)
            }
            data.append(chunk)
            meter.received(chunk.count)
        }
        meter.finished()
        return data
    }

    static func byteCount(of content: Data) -> Int64? { Int64(content.count) }
    static func data(of content: Data) -> Data? { content }

    private static func tooLarge(limit: Int, size: String, _ head: HTTPResponse, _ request: HTTPRequest) -> ClientError
    {
        ClientError(
            .responseTooLarge, "the response body \(size) exceeds the buffering limit of \(limit) bytes",
            request: request, response: head)
    }
}

/// The body in the file at `destination`, moved into place only once complete; a partial
/// file is removed on failure, and an existing file is replaced only on success.
struct FileBodyMode: ResponseBodyMode {
    /// The file written, and the bytes in it.
    struct Written: Sendable {
        let url: URL
        let byteCount: Int64
    }

    /// The download's body across attempts.
    let body: DownloadBody

    /// As much as may wait for the disk.
    var transportBufferLimit: Int { 64 * 1024 * 1024 }

    /// Asks for the rest of a body an earlier attempt cut.
    func prepare(_ request: inout HTTPRequest) { body.ask(&request) }

    nonisolated(nonsending) func receive(
        _ response: TransportResponse, request: HTTPRequest, progress: ProgressDestination?,
        scheduler: DeadlineScheduler
    ) async throws -> Written {
        let plan = try body.plan(for: response.head, request: request)
        let (file, start, isBody): (PartialFile<ClientError>, Int64, Bool)
        switch plan {
        case .body(let bodyFile, let from): (file, start, isBody) = (bodyFile, from, true)
        case .other(let otherFile): (file, start, isBody) = (otherFile, 0, false)
        }
        let length = response.body == nil ? 0 : response.head.decodedBodyLength
        var meter = DownloadMeter(expected: length.map { $0 + start }, alreadyReceived: start, progress: progress)
        if let chunks = response.body {
            for try await chunk in chunks.chunks() {
                try file.write(chunk)
                if isBody { body.wrote(chunk.count) }
                meter.received(chunk.count)
            }
        }
        if isBody { try body.checkComplete(request: request, response: response.head) }
        meter.finished()
        return Written(url: URL(fileURLWithPath: file.path), byteCount: meter.count)
    }

    static func byteCount(of content: Written) -> Int64? { content.byteCount }
}

/// The body as a ``ResponseStream``, at most `bufferLimit` unread bytes held, a wait for a
/// chunk past `idleTimeout` ending it.
struct StreamBodyMode: ResponseBodyMode {
    let bufferLimit: Int
    let idleTimeout: Duration?

    var transportBufferLimit: Int { bufferLimit }
    /// The body belongs to its reader once the head is in.
    var readsBodyInAttempt: Bool { false }

    nonisolated(nonsending) func receive(
        _ response: TransportResponse, request: HTTPRequest, progress: ProgressDestination?,
        scheduler: DeadlineScheduler
    ) async throws -> ResponseStream {
        guard let body = response.body else { return ResponseStream(.empty) }
        var idle: ResponseStream.IdleLimit?
        if let idleTimeout = Client.finite(idleTimeout) {
            idle = ResponseStream.IdleLimit(timeout: idleTimeout, scheduler: scheduler, request: request)
        }
        guard progress != nil else { return ResponseStream(body, onChunk: nil, idle: idle) }
        let counter = Locked(DownloadMeter(expected: response.head.decodedBodyLength, progress: progress))
        return ResponseStream(body, onChunk: { count in counter.withLock { $0.received(count) } }, idle: idle)
    }

    static func byteCount(of content: ResponseStream) -> Int64? { nil }
}

/// Counts the bytes of a response body as they are read and reports download progress.
struct DownloadMeter: Sendable {
    /// The length the body will have, when known; 0 when there is no body.
    let expected: Int64?
    private(set) var count: Int64 = 0
    private let progress: ProgressDestination?

    init(expected: Int64?, alreadyReceived: Int64 = 0, progress: ProgressDestination?) {
        self.expected = expected
        self.count = alreadyReceived
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
