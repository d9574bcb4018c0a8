import Foundation

/// The content of a request: bytes in memory, a file on disk, or a stream of chunks.
///
/// A body knows its ``length`` when it can (so a transport can send `Content-Length`)
/// and whether it can be read more than once (``iterationBehavior``): retry, redirect
/// and logging look at that before they send or print a body again, so a one-shot
/// stream is never silently re-sent. A file body is read in chunks when sent, never
/// loaded whole.
///
/// ```swift
/// let small = HTTPBody("name=heron")
/// let file = FileManager.default.temporaryDirectory.appendingPathComponent("heron-upload.bin")
/// try Data(count: 4096).write(to: file)
/// let upload = try HTTPBody(fileAt: file)  // size taken now; the bytes are read when sent
/// print(small.length, upload.length, upload.iterationBehavior)  // known(10) known(4096) multiple
/// let bytes = try await small.collect(upTo: 1 << 20)
/// print(bytes.count)  // 10
/// ```
public struct HTTPBody: Sendable {
    /// The number of bytes a body holds, when known in advance.
    public enum Length: Hashable, Sendable {
        /// Exactly this many bytes.
        case known(Int64)
        /// Not known until the stream ends; transports send such a body chunked.
        case unknown
    }

    /// How many times a body's content can be read.
    public enum IterationBehavior: Hashable, Sendable {
        /// Once only: a second read throws ``HTTPCoreError/Code/bodyAlreadyConsumed``.
        case single
        /// Any number of times, each read yielding the same bytes.
        case multiple
    }

    /// Where the bytes come from, for transports that can send some sources better
    /// (a file as a file upload, bytes as one buffer).
    public enum Source: Sendable {
        /// Bytes in memory.
        case data(Data)
        /// A regular file, read from its start.
        case file(URL)
        /// A stream of chunks; read it with ``chunks(size:)``.
        case stream
    }

    enum Storage: Sendable {
        case data(Data)
        case file(URL, size: Int64)
        case stream(ChunkProducer)
    }

    /// The number of bytes, when known.
    public let length: Length
    /// Whether the content can be read more than once.
    public let iterationBehavior: IterationBehavior
    let storage: Storage

    /// A body holding `data`.
    /// - Parameter data: The bytes to send; readable any number of times.
    public init(_ data: Data) {
        self.storage = .data(data)
        self.length = .known(Int64(data.count))
        self.iterationBehavior = .multiple
    }

    /// A body holding `data`, followed by the trailer section `trailerFields` when there is
    /// one: how a transport hands on a body it read whole with the trailer fields that came
    /// after it (RFC 9110 §6.5). Without trailers it is `HTTPBody(data)`.
    /// - Parameters:
    ///   - data: The bytes; readable any number of times.
    ///   - trailerFields: The trailer section, if any; ``trailerFields`` returns it.
    public init(_ data: Data, trailerFields: HTTPFields?) {
        guard let trailerFields else {
            self.init(data)
            return
        }
        self.init(
            length: .known(Int64(data.count)), iterationBehavior: .multiple,
            makeSequence: { HTTPBody(data).chunks() }, trailerFields: { trailerFields })
    }

    /// A body holding the UTF-8 bytes of `string`.
    /// - Parameter string: The text to send.
    public init(_ string: String) { self.init(Data(string.utf8)) }

    /// A body holding `bytes`.
    /// - Parameter bytes: The bytes to send.
    public init(bytes: some Sequence<UInt8>) { self.init(Data(bytes)) }

    /// An empty body of known length zero.
    public static let empty = HTTPBody(Data())

    /// A body read from the regular file at `url` when sent, in chunks.
    ///
    /// The file's size is read now (with `stat`, not by reading the file) and becomes the
    /// body's known length; if the file is shorter when it is read, reading throws
    /// ``HTTPCoreError/Code/bodyLengthMismatch``.
    /// - Parameter url: A `file:` URL of a regular file.
    /// - Throws: ``HTTPCoreError`` with code ``HTTPCoreError/Code/unreadableFile`` naming the
    ///   path when it is missing, not a regular file, or not readable.
    public init(fileAt url: URL) throws(HTTPCoreError) {
        let size = try FileChunkReader.regularFileSize(at: url)
        self.storage = .file(url, size: size)
        self.length = .known(size)
        self.iterationBehavior = .multiple
    }

    /// A body streamed from an asynchronous sequence of chunks, readable once.
    ///
    /// When `length` is known, reading checks it: a sequence that ends early or yields
    /// more throws ``HTTPCoreError/Code/bodyLengthMismatch`` instead of sending a wrong body.
    /// - Parameters:
    ///   - sequence: The chunks, in order.
    ///   - length: The total length, if known.
    public init<ChunkSequence: AsyncSequence & Sendable>(stream sequence: ChunkSequence, length: Length)
    where ChunkSequence.Element == Data {
        self.init(length: length, iterationBehavior: .single) { sequence }
    }

    /// A body streamed from sequences made on demand, one per read.
    ///
    /// Use `.multiple` when every call of `makeSequence` yields the same bytes (the body
    /// can then be retried); `.single` reads it at most once.
    /// - Parameters:
    ///   - length: The total length, if known; checked while reading.
    ///   - iterationBehavior: Whether `makeSequence` may be called more than once.
    ///   - makeSequence: Makes a fresh sequence of the chunks.
    public init<ChunkSequence: AsyncSequence & Sendable>(
        length: Length, iterationBehavior: IterationBehavior, makeSequence: @escaping @Sendable () -> ChunkSequence
    ) where ChunkSequence.Element == Data {
        self.init(length: length, iterationBehavior: iterationBehavior, makeSequence: makeSequence, trailerFields: nil)
    }

    /// A response body streamed from a sequence, followed by a trailer section (RFC 9110
    /// §6.5) that `trailerFields` returns once the sequence has ended: how a transport hands
    /// on the trailer fields it receives.
    ///
    /// ```swift
    /// let body = HTTPBody(
    ///     length: .unknown, iterationBehavior: .single,
    ///     makeSequence: { HTTPBody("hello").chunks() },
    ///     trailerFields: { try? HTTPFields(["Checksum": "abc123"]) })
    /// _ = try await body.collect(upTo: 1024)
    /// print(body.trailerFields?[try HTTPFieldName("Checksum")] ?? "none")  // abc123
    /// ```
    /// - Parameters:
    ///   - length: The total length, if known; checked while reading.
    ///   - iterationBehavior: Whether `makeSequence` may be called more than once.
    ///   - makeSequence: Makes a fresh sequence of the chunks.
    ///   - trailerFields: Returns the trailer section once the sequence has ended, `nil`
    ///     before then or when there is none; called each time ``trailerFields`` is read.
    public init<ChunkSequence: AsyncSequence & Sendable>(
        length: Length, iterationBehavior: IterationBehavior, makeSequence: @escaping @Sendable () -> ChunkSequence,
        trailerFields: (@Sendable () -> HTTPFields?)?
    ) where ChunkSequence.Element == Data {
        self.storage = .stream(
            ChunkProducer(single: iterationBehavior == .single, trailerFields: trailerFields) {
                var iterator = makeSequence().makeAsyncIterator()
                return { _ in try await iterator.next() }
            })
        self.length = length
        self.iterationBehavior = iterationBehavior
    }

    /// The trailer section (RFC 9110 §6.5) that followed the body, once the body has been
    /// read to its end; `nil` before then, when there was none, and for bodies whose
    /// transport does not deliver trailers.
    ///
    /// Of Heron's transports only the AsyncHTTPClient one delivers them, with its
    /// `ResponseTrailers` package trait; URLSession does not expose trailers (and on Linux
    /// a response with trailers ends the process: see the transports guide). A body in
    /// memory or in a file has none.
    public var trailerFields: HTTPFields? {
        guard case .stream(let producer) = storage else { return nil }
        return producer.trailerFields?()
    }

    /// Where the bytes come from.
    public var source: Source {
        switch storage {
        case .data(let data): return .data(data)
        case .file(let url, _): return .file(url)
        case .stream: return .stream
        }
    }

    /// Whether the body can be sent again (for a retry or a redirect).
    public var isReplayable: Bool { iterationBehavior == .multiple }

    /// The content as a sequence of chunks.
    ///
    /// Bytes are sliced and files read in chunks of at most `size` bytes; a stream's
    /// chunks come as the stream yields them. A known length is enforced.
    /// - Parameter size: The largest chunk to make from bytes or a file; 256 KiB by default.
    /// - Returns: A sequence that reads the body once; for a `.single` body a second
    ///   call's sequence throws ``HTTPCoreError/Code/bodyAlreadyConsumed``.
    public func chunks(size: Int = 256 * 1024) -> Chunks {
        Chunks(body: self, chunkSize: max(1, size))
    }

    /// Reads the whole body into memory, up to `limit` bytes.
    /// - Parameter limit: The most bytes to accept.
    /// - Returns: The bytes.
    /// - Throws: ``HTTPCoreError/Code/bodyTooLarge`` when the body is longer than `limit`
    ///   (checked up front when the length is known), or any error of reading the body.
    public func collect(upTo limit: Int) async throws -> Data {
        if case .known(let count) = length, count > Int64(limit) {
            throw HTTPCoreError(
                .bodyTooLarge, value: String(count), reason: "body of \(count) bytes exceeds the limit of \(limit)")
        }
        if case .data(let data) = storage { return data }
        var chunks = chunks().makeAsyncIterator()
        // A body in one chunk (most small responses) is returned as it came, uncopied.
        var result = try await chunks.next() ?? Data()
        var grown = false
        while true {
            guard result.count <= limit else {
                throw HTTPCoreError(
                    .bodyTooLarge, value: "\(result.count)+", reason: "body exceeds the limit of \(limit) bytes")
            }
            guard let chunk = try await chunks.next() else { return result }
            if !grown, case .known(let count) = length { result.reserveCapacity(Int(count)) }
            grown = true
            result.append(chunk)
        }
    }
}

extension HTTPBody.Length: CustomStringConvertible {
    /// `known(N)` or `unknown`.
    public var description: String {
        switch self {
        case .known(let count): return "known(\(count))"
        case .unknown: return "unknown"
        }
    }
}

extension HTTPBody.IterationBehavior: CustomStringConvertible {
    /// `single` or `multiple`.
    public var description: String { self == .single ? "single" : "multiple" }
}

/// Makes chunk iterators for a stream body, allowing one for a single-use body.
///
/// `@unchecked Sendable`: the only mutable state, `consumed`, is read and written under `lock`.
final class ChunkProducer: @unchecked Sendable {
    /// Reads the next chunk of at most the given size (a hint sequences may ignore), `nil` at the end.
    typealias Next = (Int) async throws -> Data?

    private let single: Bool
    private let make: @Sendable () -> Next
    /// Makes the `InputStream` of a body made from streams, which transports may read directly.
    let makeInputStream: (@Sendable () throws -> InputStream)?
    /// Returns the trailer section once the stream has ended, when its maker delivers one.
    let trailerFields: (@Sendable () -> HTTPFields?)?
    private let lock = NSLock()
    private var consumed = false

    init(
        single: Bool, makeInputStream: (@Sendable () throws -> InputStream)? = nil,
        trailerFields: (@Sendable () -> HTTPFields?)? = nil, make: @escaping @Sendable () -> Next
    ) {
        self.single = single
        self.makeInputStream = makeInputStream
        self.trailerFields = trailerFields
        self.make = make
    }

    /// A fresh `next` function, counting as one read of the body.
    /// - Throws: ``HTTPCoreError/Code/bodyAlreadyConsumed`` when a single-use body was read before.
    func take() throws(HTTPCoreError) -> Next {
        try claim()
        return make()
    }

    /// Counts one read of the body.
    /// - Throws: ``HTTPCoreError/Code/bodyAlreadyConsumed`` when a single-use body was read before.
    func claim() throws(HTTPCoreError) {
        guard single else { return }
        lock.lock()
        defer { lock.unlock() }
        if consumed {
            throw HTTPCoreError(
                .bodyAlreadyConsumed, value: "stream", reason: "a single-use stream body can be read only once")
        }
        consumed = true
    }
}
