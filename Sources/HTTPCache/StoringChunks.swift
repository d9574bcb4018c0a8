import Foundation
import HTTPClient
import HTTPCore

/// A response body passed on to its reader chunk by chunk while each chunk also goes to a
/// ``CacheBodyWriter``: the entry is committed only when the body ended as declared, and
/// discarded when it failed, came short or long of its `Content-Length`, the storage
/// refused a chunk, or the reader stopped early.
struct StoringChunks: AsyncSequence, Sendable {
    typealias Element = Data

    let body: HTTPBody
    let writer: any CacheBodyWriter
    /// The length the response declared, checked before committing.
    let expected: Int64?
    /// Called once, with whether the entry was stored.
    let finished: @Sendable (Bool) -> Void

    func makeAsyncIterator() -> Iterator {
        Iterator(
            base: body.chunks().makeAsyncIterator(), tee: Tee(writer: writer, expected: expected, finished: finished))
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: HTTPBody.Chunks.AsyncIterator
        let tee: Tee

        mutating func next() async throws -> Data? {
            let chunk: Data?
            do {
                chunk = try await base.next()
            } catch {
                tee.end(stored: false)
                throw error
            }
            guard let chunk else {
                tee.end(stored: true)
                return nil
            }
            tee.write(chunk)
            return chunk
        }
    }

    /// The writer's side; discards the entry when dropped before the body ended.
    final class Tee: Sendable {
        private struct State {
            var written: Int64 = 0
            var failed = false
            var ended = false
        }

        private let state = Locked(State())
        private let writer: any CacheBodyWriter
        private let expected: Int64?
        private let finished: @Sendable (Bool) -> Void

        init(writer: any CacheBodyWriter, expected: Int64?, finished: @escaping @Sendable (Bool) -> Void) {
            self.writer = writer
            self.expected = expected
            self.finished = finished
        }

        deinit { end(stored: false) }

        func write(_ chunk: Data) {
            state.withLock { state in
                guard !state.failed, !state.ended else { return }
                do {
                    try writer.write(chunk)
                    state.written += Int64(chunk.count)
                } catch {
                    state.failed = true
                }
            }
        }

        /// Ends the body: commits when `complete` and every byte declared arrived.
        func end(stored complete: Bool) {
            let commit: Bool? = state.withLock { state in
                guard !state.ended else { return nil }
                state.ended = true
                let whole = expected.map { $0 == state.written } ?? true
                return complete && !state.failed && whole
            }
            guard let commit else { return }
            if commit {
                do {
                    try writer.commit()
                    finished(true)
                    return
                } catch {}
            }
            writer.discard()
            finished(false)
        }
    }
}
