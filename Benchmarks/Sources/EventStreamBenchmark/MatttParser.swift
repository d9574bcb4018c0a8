// mattt/EventSource 1.1.1's parser, fed the same chunks as Heron's (its sources compiled
// unchanged by the MatttEventSource target). Two ways: its public async sequence over the
// chunks' bytes (`.events`, which awaits its parser actor once per byte), and its parser
// actor handed a whole chunk per call (one hop per chunk, the least its design allows).

import Foundation
import HTTPEncoding
import MatttEventSource

/// The bytes of `chunks` as an async sequence that never suspends: the cheapest byte source
/// the package's `.events` can read.
struct ChunkBytes: AsyncSequence, Sendable {
    typealias Element = UInt8

    let chunks: [Data]

    struct AsyncIterator: AsyncIteratorProtocol {
        let chunks: [Data]
        var chunk = 0
        var offset = 0

        mutating func next() async throws -> UInt8? {
            while chunk < chunks.count {
                let current = chunks[chunk]
                if offset < current.count {
                    defer { offset += 1 }
                    return current[current.startIndex + offset]
                }
                chunk += 1
                offset = 0
            }
            return nil
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunks: chunks) }
}

extension MatttEventSource.EventSource.Parser {
    /// Consumes every byte of `chunk` in one call on the actor and returns the events it
    /// completed.
    func consume(contentsOf chunk: Data) -> [MatttEventSource.EventSource.Event] {
        var events: [MatttEventSource.EventSource.Event] = []
        for byte in chunk {
            consume(byte)
            while let event = getNextEvent() { events.append(event) }
        }
        return events
    }

    /// Ends the stream and returns the events still queued.
    func finishAndDrain() -> [MatttEventSource.EventSource.Event] {
        finish()
        var events: [MatttEventSource.EventSource.Event] = []
        while let event = getNextEvent() { events.append(event) }
        return events
    }
}

/// The package's public reading: `.events` over the chunks' bytes.
func matttSequenceParse(_ chunks: [Data]) async throws -> [MatttEventSource.EventSource.Event] {
    var events: [MatttEventSource.EventSource.Event] = []
    for try await event in ChunkBytes(chunks: chunks).events { events.append(event) }
    return events
}

/// The package's parser actor, one call per chunk.
func matttChunkParse(_ chunks: [Data]) async -> [MatttEventSource.EventSource.Event] {
    let parser = MatttEventSource.EventSource.Parser()
    var events: [MatttEventSource.EventSource.Event] = []
    for chunk in chunks { events += await parser.consume(contentsOf: chunk) }
    events += await parser.finishAndDrain()
    return events
}

/// Fails the run unless `events` are Heron's, field by field (no `event:` field was written,
/// so the package reports none where Heron reports the default type, `message`).
func checkMattt(
    _ events: [MatttEventSource.EventSource.Event], against heron: [HTTPEncoding.ServerSentEvent<String>], _ way: String
) {
    guard events.count == heron.count else {
        mismatch("mattt/EventSource (\(way)) gave \(events.count) events, Heron \(heron.count)")
    }
    for (offset, event) in events.enumerated() {
        let expected = heron[offset]
        guard event.id == expected.id, event.data == expected.data, event.event == nil, expected.type == "message",
            event.retry == nil
        else { mismatch("mattt/EventSource's event \(offset + 1) (\(way)) differs from Heron's") }
    }
}
