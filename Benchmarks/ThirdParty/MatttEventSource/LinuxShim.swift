// Heron's own file beside mattt/EventSource 1.1.1's sources (the `Upstream` link into the
// package's checkout, which SwiftPM makes when it resolves Benchmarks/; no file of that
// package is in this repository). The package does not build on Linux as it is: its client
// calls `URLSession.bytes(for:delegate:)`, which swift-corelibs-foundation does not have.
// This declares that method, so the package's sources compile unchanged and its parser can
// be measured; the benchmark never calls it, and it throws if anything does.

import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking

extension URLSession {
    /// The bytes of a response, which this shim never has: an empty sequence.
    struct UnavailableBytes: AsyncSequence {
        typealias Element = UInt8

        struct AsyncIterator: AsyncIteratorProtocol {
            mutating func next() async throws -> UInt8? { nil }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator() }
    }

    /// Throws `URLError(.unsupportedURL)`: the benchmark reads no response with it.
    func bytes(
        for request: URLRequest, delegate: (any URLSessionTaskDelegate)?
    ) async throws -> (UnavailableBytes, URLResponse) {
        throw URLError(.unsupportedURL)
    }
}
#endif
