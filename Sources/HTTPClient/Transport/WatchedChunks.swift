import Foundation
import HTTPCore

/// What a transport wrapper learns of a response body it passes on: each chunk, and how the
/// body ended.
protocol ChunkWatcher: Sendable {
    /// A chunk went to the reader.
    func take(_ chunk: Data)
    /// The body ended, with `failure` or completely.
    func end(failure: (any Error)?)
}

/// A response body's chunks passed on unchanged, each shown to `watcher` on the way, and
/// its end (complete or failed) told to it: how ``HostLimiter`` holds a request's place until
/// its body ends and ``HARRecorder`` records a body while its caller reads it.
struct WatchedChunks<Watcher: ChunkWatcher>: AsyncSequence, Sendable {
    typealias Element = Data

    let chunks: HTTPBody.Chunks
    let watcher: Watcher

    func makeAsyncIterator() -> Iterator { Iterator(base: chunks.makeAsyncIterator(), watcher: watcher) }

    struct Iterator: AsyncIteratorProtocol {
        var base: HTTPBody.Chunks.AsyncIterator
        let watcher: Watcher

        mutating func next() async throws -> Data? {
            do {
                guard let chunk = try await base.next() else {
                    watcher.end(failure: nil)
                    return nil
                }
                watcher.take(chunk)
                return chunk
            } catch {
                watcher.end(failure: error)
                throw error
            }
        }
    }
}
