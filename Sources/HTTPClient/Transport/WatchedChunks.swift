import Foundation
import HTTPCore

/// What a transport wrapper learns of a response body it passes on: each chunk, and how the
/// body ended.
package protocol ChunkWatcher: Sendable {
    /// A chunk went to the reader.
    func take(_ chunk: Data)
    /// The body ended, with `failure` or completely.
    func end(failure: (any Error)?)
    /// The reader waits for the next chunk.
    func waiting()
}

extension ChunkWatcher {
    package func waiting() {}
}

/// A response body's chunks passed on unchanged, each shown to `watcher` on the way, and
/// its end (complete or failed) told to it: how ``HostLimiter`` holds a request's place until
/// its body ends, and how a recording transport can keep a body while its caller reads it.
package struct WatchedChunks<Watcher: ChunkWatcher>: AsyncSequence, Sendable {
    package typealias Element = Data

    let chunks: HTTPBody.Chunks
    let watcher: Watcher

    /// `chunks`, each shown to `watcher` on the way.
    package init(chunks: HTTPBody.Chunks, watcher: Watcher) {
        self.chunks = chunks
        self.watcher = watcher
    }

    package func makeAsyncIterator() -> Iterator { Iterator(base: chunks.makeAsyncIterator(), watcher: watcher) }

    package struct Iterator: AsyncIteratorProtocol {
        var base: HTTPBody.Chunks.AsyncIterator
        let watcher: Watcher

        package mutating func next() async throws -> Data? {
            do {
                watcher.waiting()
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
