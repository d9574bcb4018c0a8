import Foundation

extension HTTPBody {
    /// The content of a body as an asynchronous sequence of `Data` chunks.
    ///
    /// Made by ``HTTPBody/chunks(size:)``. Each iteration reads the body from its start.
    public struct Chunks: AsyncSequence, Sendable {
        /// A chunk of bytes.
        public typealias Element = Data

        let body: HTTPBody
        let chunkSize: Int

        /// Starts reading the body.
        /// - Returns: An iterator over the chunks.
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(body: body, chunkSize: chunkSize)
        }

        /// Reads chunks one at a time.
        public struct AsyncIterator: AsyncIteratorProtocol {
            private enum State {
                case data(Data, offset: Int)
                case file(URL, size: Int64, reader: FileChunkReader?)
                case stream(ChunkProducer, next: ChunkProducer.Next?)
                case finished
            }

            private var state: State
            private let chunkSize: Int
            private let expected: HTTPBody.Length
            private var produced: Int64 = 0

            init(body: HTTPBody, chunkSize: Int) {
                self.chunkSize = chunkSize
                self.expected = body.length
                switch body.storage {
                case .data(let data): state = .data(data, offset: 0)
                case .file(let url, let size): state = .file(url, size: size, reader: nil)
                case .stream(let producer): state = .stream(producer, next: nil)
                }
            }

            /// The next chunk, or `nil` at the end.
            /// - Returns: A non-empty chunk, or `nil` when the body is over.
            /// - Throws: ``HTTPCoreError`` for an unreadable file, a consumed single-use body or
            ///   a length mismatch; otherwise whatever the underlying stream throws.
            public mutating func next() async throws -> Data? {
                switch state {
                case .finished:
                    return nil
                case .data(let data, let offset):
                    guard offset < data.count else {
                        state = .finished
                        return nil
                    }
                    let end = Swift.min(data.count, offset + chunkSize)
                    state = .data(data, offset: end)
                    return data.subdata(in: data.startIndex + offset..<data.startIndex + end)
                case .file(let url, let size, let reader):
                    // A failure ends the iteration: a later `next()` must not reopen the file
                    // and send its first bytes again.
                    state = .finished
                    let active = try reader ?? FileChunkReader(url: url, expectedSize: size)
                    guard let chunk = try active.read(upTo: chunkSize) else { return nil }
                    state = .file(url, size: size, reader: active)
                    return chunk
                case .stream(let producer, var next):
                    if next == nil {
                        do {
                            next = try producer.take()
                        } catch {
                            state = .finished
                            throw error
                        }
                    }
                    guard let pull = next else { return nil }
                    state = .stream(producer, next: pull)
                    while true {
                        let pulled: Data?
                        do {
                            pulled = try await pull(chunkSize)
                        } catch {
                            state = .finished
                            throw error
                        }
                        guard let chunk = pulled else {
                            state = .finished
                            try checkEnd()
                            return nil
                        }
                        if chunk.isEmpty { continue }
                        produced += Int64(chunk.count)
                        if case .known(let count) = expected, produced > count {
                            state = .finished
                            throw HTTPCoreError(
                                .bodyLengthMismatch, value: String(produced),
                                reason: "stream yielded more than its declared \(count) bytes")
                        }
                        return chunk
                    }
                }
            }

            private func checkEnd() throws(HTTPCoreError) {
                if case .known(let count) = expected, produced != count {
                    throw HTTPCoreError(
                        .bodyLengthMismatch, value: String(produced),
                        reason: "stream ended after \(produced) of its declared \(count) bytes")
                }
            }
        }
    }
}
