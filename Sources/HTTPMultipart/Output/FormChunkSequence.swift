import Foundation

/// A form's body as chunks of a fixed size (the last one shorter), read on demand.
///
/// Memory stays bounded by one chunk: file parts are read into the chunk being made,
/// never loaded whole, and nothing is written to disk.
struct FormChunkSequence: AsyncSequence, Sendable {
    typealias Element = Data

    let layout: FormLayout
    let chunkSize: Int

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(layout: layout, chunkSize: chunkSize)
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        private let layout: FormLayout
        private let chunkSize: Int
        private var nextSegment = 0
        private var reader: SegmentReader?
        private var unread: Int64

        init(layout: FormLayout, chunkSize: Int) {
            self.layout = layout
            self.chunkSize = chunkSize
            self.unread = layout.length
        }

        mutating func next() async throws -> Data? {
            let size = Int(Swift.min(Int64(chunkSize), unread))
            guard size > 0 else { return nil }
            if Task.isCancelled {
                throw MultipartError(.cancelled, value: "stream", reason: "reading the form body was cancelled")
            }
            var chunk = Data(count: size)
            var filled = 0
            while filled < size {
                var current = try await currentReader()
                try await current.prepare()
                let start = filled
                let result: Result<Int, MultipartError> = chunk.withUnsafeMutableBytes {
                    (buffer: UnsafeMutableRawBufferPointer) -> Result<Int, MultipartError> in
                    do throws(MultipartError) {
                        return .success(
                            try current.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[start...])))
                    } catch {
                        return .failure(error)
                    }
                }
                filled += try result.get()
                reader = current
            }
            unread -= Int64(size)
            return chunk
        }

        /// The reader of the segment holding the next byte, finishing exhausted segments on the way.
        private mutating func currentReader() async throws(MultipartError) -> SegmentReader {
            while true {
                if var current = reader {
                    if current.remaining > 0 { return current }
                    reader = nil
                    try await current.finish()
                }
                guard nextSegment < layout.segments.count else {
                    throw MultipartError(.lengthMismatch, value: "stream", reason: "the form ended before its length")
                }
                reader = try SegmentReader(layout.segments[nextSegment], chunkSize: chunkSize)
                nextSegment += 1
            }
        }
    }
}
