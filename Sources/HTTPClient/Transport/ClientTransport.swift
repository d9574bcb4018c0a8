import Foundation
import HTTPCore

/// Sends one HTTP request and returns the response: the bottom of the client's chain.
///
/// A transport sends exactly what it is given, once. It does not follow redirects,
/// retry, add authentication or validate statuses: the client and its interceptors do
/// that above it, so every transport (URLSession, another HTTP library, a test double)
/// behaves alike. A 3xx answer is returned as it is.
///
/// Contract for implementers:
/// - `request.url` is absolute. Send `request.headerFields` as given, in order, and the
///   body as its `HTTPBody.source` allows (bytes, a file read in chunks, or a stream).
/// - Deliver the response body as ``TransportOptions/responseBody`` asks.
/// - Report progress to ``TransportOptions/progress`` when the platform allows.
/// - Throw `CancellationError` when the calling task is cancelled (and stop the network
///   work promptly), and ``ClientError`` for every other failure.
///
/// ```swift
/// struct Canned: ClientTransport {
///     func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
///         TransportResponse(head: HTTPResponse(status: .ok), body: .data(Data("hi".utf8)))
///     }
/// }
/// ```
public protocol ClientTransport: Sendable {
    /// Sends `request` once and returns the response head and body.
    /// - Parameters:
    ///   - request: The request, with an absolute URL.
    ///   - options: How to deliver the body, time out and report progress.
    /// - Returns: The response head and its body in the form asked for.
    /// - Throws: `CancellationError` when the task is cancelled; ``ClientError`` otherwise.
    func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse

    /// Whether this transport enforces ``TransportOptions/deadline`` itself; `false` unless
    /// a transport says otherwise.
    ///
    /// When `false`, the client runs each attempt in a task of its own and cancels it at the
    /// deadline. A transport that can stop its own work at a deadline saves that task.
    var enforcesDeadline: Bool { get }
}

extension ClientTransport {
    /// `false`: the client enforces deadlines for this transport.
    public var enforcesDeadline: Bool { false }
}

/// How a transport should carry out one send.
public struct TransportOptions: Sendable {
    /// The longest the transport may wait without receiving or sending a byte, if set.
    ///
    /// The client also enforces each attempt's whole timeout itself, so a transport that
    /// cannot honour this exactly (URLSession on Linux rounds it to whole seconds) may
    /// treat it as a hint.
    public var idleTimeout: Duration?
    /// Where the response body goes.
    public var responseBody: ResponseBodyMode
    /// Called with upload and download progress, from any thread, in order per direction.
    public var progress: (@Sendable (TransferProgress) -> Void)?
    /// When the response must have arrived (its head, for a streamed body), if ever.
    ///
    /// A transport whose ``ClientTransport/enforcesDeadline`` is `true` fails with
    /// ``ClientError/Code/timedOut`` once it passes and stops the network work; other
    /// transports may ignore it, as the client then enforces it.
    public var deadline: ContinuousClock.Instant?

    /// Creates options.
    /// - Parameters:
    ///   - idleTimeout: The longest wait without progress, if any.
    ///   - responseBody: Where the response body goes; buffered in memory by default.
    ///   - progress: A progress callback, if any.
    ///   - deadline: When the response must have arrived, if ever.
    public init(
        idleTimeout: Duration? = nil, responseBody: ResponseBodyMode = .buffered(),
        progress: (@Sendable (TransferProgress) -> Void)? = nil, deadline: ContinuousClock.Instant? = nil
    ) {
        self.idleTimeout = idleTimeout
        self.responseBody = responseBody
        self.progress = progress
        self.deadline = deadline
    }
}

/// Where a transport delivers a response body.
public enum ResponseBodyMode: Sendable, Hashable {
    /// In memory, failing with ``ClientError/Code/responseTooLarge`` past `limit` bytes.
    case buffered(limit: Int = 64 * 1024 * 1024)
    /// Into the file at `destination`, moved into place only once complete; a partial
    /// file is removed on failure, and an existing file is replaced only on success.
    case file(destination: URL)
    /// As a ``ResponseStream`` of chunks, buffering at most `bufferLimit` bytes that the
    /// reader has not consumed yet; past it the stream fails with
    /// ``ClientError/Code/responseTooLarge`` (URLSession on Linux has no backpressure).
    case stream(bufferLimit: Int = 16 * 1024 * 1024)
}

/// How far an upload or a download has got.
public struct TransferProgress: Sendable, Hashable, CustomStringConvertible {
    /// Which way the bytes move.
    public enum Direction: Sendable, Hashable {
        /// Request body bytes sent.
        case upload
        /// Response body bytes received.
        case download
    }

    /// Which way the bytes move.
    public var direction: Direction
    /// Bytes transferred so far.
    public var completed: Int64
    /// Total bytes expected, when known.
    public var expected: Int64?

    /// Creates a progress value.
    /// - Parameters:
    ///   - direction: Upload or download.
    ///   - completed: Bytes transferred so far.
    ///   - expected: Total bytes expected, if known.
    public init(direction: Direction, completed: Int64, expected: Int64?) {
        self.direction = direction
        self.completed = completed
        self.expected = expected
    }

    /// `completed / expected`, or `nil` when the total is unknown.
    public var fractionCompleted: Double? {
        guard let expected, expected > 0 else { return expected == 0 ? 1 : nil }
        return min(1, Double(completed) / Double(expected))
    }

    /// `upload 512/1024`.
    public var description: String {
        "\(direction == .upload ? "upload" : "download") \(completed)/\(expected.map(String.init) ?? "?")"
    }
}

/// What a transport returns: the response head and the body in the form asked for.
public struct TransportResponse: Sendable {
    /// The status, header fields and final URL.
    public var head: HTTPResponse
    /// The body.
    public var body: ResponseContent
    /// Request body bytes sent, when the transport counts them.
    public var bytesSent: Int64?

    /// Creates a response.
    /// - Parameters:
    ///   - head: The response head.
    ///   - body: The body.
    ///   - bytesSent: Request body bytes sent, if counted.
    public init(head: HTTPResponse, body: ResponseContent, bytesSent: Int64? = nil) {
        self.head = head
        self.body = body
        self.bytesSent = bytesSent
    }
}

/// A response body as a transport delivers it.
public enum ResponseContent: Sendable {
    /// The whole body in memory.
    case data(Data)
    /// The whole body in a file at this URL, `byteCount` bytes long.
    case file(URL, byteCount: Int64)
    /// The body as it arrives.
    case stream(ResponseStream)
}

/// A response body arriving in chunks.
///
/// Iterate it once. Chunks that the reader has not consumed are buffered up to the
/// limit set in ``ResponseBodyMode/stream(bufferLimit:)``.
public struct ResponseStream: AsyncSequence, Sendable {
    /// A chunk of bytes.
    public typealias Element = Data

    private let base: AsyncThrowingStream<Data, any Error>

    /// Wraps a stream of chunks.
    /// - Parameter base: The chunks; it ends with the body or throws its failure.
    public init(_ base: AsyncThrowingStream<Data, any Error>) { self.base = base }

    /// Starts reading the chunks.
    /// - Returns: The iterator.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator()) }

    /// Reads chunks one at a time.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Data, any Error>.AsyncIterator

        /// The next chunk, or `nil` at the end of the body.
        ///
        /// A cancelled reader gets `CancellationError`, never a `nil` that would pass a cut
        /// body off as complete (an `AsyncThrowingStream` simply ends when its reader is
        /// cancelled).
        /// - Returns: A chunk, or `nil`.
        /// - Throws: The transport's failure, as ``ClientError``, or `CancellationError`.
        public mutating func next() async throws -> Data? {
            guard let chunk = try await base.next() else {
                try Task.checkCancellation()
                return nil
            }
            return chunk
        }
    }
}
