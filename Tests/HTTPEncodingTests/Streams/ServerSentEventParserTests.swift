import Foundation
import HTTPEncoding
import TestSupport
import TestTraits
import Testing

@Suite("Server-sent events: the parser", .heavyWork)
struct ServerSentEventParserTests {
    private func parse(_ text: String, cutEvery size: Int = .max) throws -> [ServerSentEvent<String>] {
        try parse(Array(text.utf8), cuts: stride(from: size, to: text.utf8.count, by: size).map { $0 })
    }

    private func parse(_ bytes: [UInt8], cuts: [Int]) throws -> [ServerSentEvent<String>] {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent<String>] = []
        var start = 0
        for cut in cuts + [bytes.count] where cut >= start {
            events += try parser.parse(Data(bytes[start..<cut]))
            start = cut
        }
        parser.finish()
        return events
    }

    @Test("the standard's examples: data lines joined, ids kept, the unfinished event dropped")
    func standardExamples() throws {
        #expect(try parse("data: YHOO\ndata: +2\ndata: 10\n\n").map(\.data) == ["YHOO\n+2\n10"])
        let second = try parse(
            ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n")
        #expect(
            second == [ServerSentEvent(data: "first event", id: "1"), ServerSentEvent(data: "second event", id: "")])
        #expect(try parse("data\n\ndata\ndata\n\ndata:").map(\.data) == ["", "\n"])
        #expect(try parse("data:test\n\ndata: test\n\n").map(\.data) == ["test", "test"])
    }

    @Test("event types, unknown fields, comments and an event without data")
    func fields() throws {
        let events = try parse("event: add\ndata: 1\nfoo: bar\n:comment\n\nevent: lone\n\ndata: 2\n\n")
        #expect(events == [ServerSentEvent(type: "add", data: "1"), ServerSentEvent(data: "2")])
    }

    @Test("an id holding NUL is ignored; the last event ID outlives events that set none")
    func ids() throws {
        let events = try parse("id: 7\ndata: a\n\nid: x\u{0}y\ndata: b\n\ndata: c\n\n")
        #expect(events.map(\.id) == ["7", "7", "7"])
        var parser = ServerSentEventParser()
        _ = try parser.parse(Data("id: 9\ndata: a\n\nid: 10\n".utf8))
        #expect(parser.lastEventID == "9")  // 10 is in force only once its event is dispatched
        _ = try parser.parse(Data("\n".utf8))
        #expect(parser.lastEventID == "10")
    }

    @Test("a parser started from a last event ID keeps it for events that set none (a reconnect)")
    func idSurvivesReconnect() throws {
        var parser = ServerSentEventParser(lastEventID: "41")
        let events = try parser.parse(Data("data: after reconnect\n\n".utf8))
        #expect(events.map(\.id) == ["41"])
        #expect(parser.lastEventID == "41")
        _ = try parser.parse(Data("id\ndata: reset\n\n".utf8))
        #expect(parser.lastEventID == "")  // an empty `id` line still resets it
    }

    @Test("retry takes digits only and sets the reconnection time at once")
    func retry() throws {
        var parser = ServerSentEventParser()
        _ = try parser.parse(Data("retry: 1a\nretry: -5\nretry:\n".utf8))
        #expect(parser.reconnectionTime == nil)
        let events = try parser.parse(Data("retry: 2500\ndata: x\n\nretry: 99999999999999999999999\n".utf8))
        #expect(events.first?.retry == .milliseconds(2500))
        #expect(parser.reconnectionTime == .milliseconds(Int.max))
    }

    @Test("CR, LF and CR LF end lines, also when a chunk ends between CR and LF")
    func lineEnds() throws {
        for size in 1...6 {
            #expect(try parse("data: a\rdata: b\r\n\r\ndata: c\n\r\n", cutEvery: size).map(\.data) == ["a\nb", "c"])
        }
        var parser = ServerSentEventParser()
        var events = try parser.parse(Data("data: a\r".utf8))
        events += try parser.parse(Data("\n".utf8))  // the LF of the CR before: no blank line
        #expect(events.isEmpty)
        events += try parser.parse(Data("\r".utf8))
        #expect(events.map(\.data) == ["a"])
    }

    @Test("a byte order mark is dropped at the start only, even cut across chunks")
    func byteOrderMark() throws {
        let bom = "\u{FEFF}"
        for size in 1...4 {
            #expect(try parse("\(bom)data: a\n\n", cutEvery: size).map(\.data) == ["a"])
            // A second BOM is part of the field name, which is then unknown.
            #expect(try parse("\(bom)\(bom)data: a\n\ndata: b\n\n", cutEvery: size).map(\.data) == ["b"])
        }
    }

    @Test("UTF-8 cut inside a character is joined; invalid bytes become U+FFFD")
    func utf8() throws {
        let text = "data: é漢🎉\n\n"
        for size in 1...5 { #expect(try parse(text, cutEvery: size).map(\.data) == ["é漢🎉"]) }
        let invalid: [UInt8] = Array("data: a".utf8) + [0xFF, 0xE2, 0x82] + Array("b\n\n".utf8)
        #expect(try parse(invalid, cuts: [8]).map(\.data) == ["a\u{FFFD}\u{FFFD}b"])
    }

    @Test("an event outgrowing the limit fails with elementTooLarge naming it")
    func limit() throws {
        var parser = ServerSentEventParser(maximumEventSize: 100)
        _ = try parser.parse(Data("data: \(String(repeating: "x", count: 60))\n".utf8))
        let error = #expect(throws: HTTPEncodingError.self) {
            _ = try parser.parse(Data("data: \(String(repeating: "y", count: 60))".utf8))
        }
        #expect(error?.code == .elementTooLarge)
        #expect(error?.reason.contains("100 bytes") == true)
        // A long line without an end is bounded too.
        var lines = ServerSentEventParser(maximumEventSize: 100)
        #expect(throws: HTTPEncodingError.self) {
            for _ in 0..<20 { _ = try lines.parse(Data(String(repeating: "z", count: 10).utf8)) }
        }
    }

    @Test("a 10 MB event or comment line inside one chunk outgrows the default limit, whatever its field")
    func limitInOneChunk() throws {
        let huge = String(repeating: "x", count: 10_000_000)
        for line in ["event: \(huge)\n\n", ":\(huge)\n", "id: \(huge)\n", "retry: \(huge)\n", "\(huge)\n"] {
            var parser = ServerSentEventParser()
            let error = #expect(throws: HTTPEncodingError.self) { _ = try parser.parse(Data(line.utf8)) }
            #expect(error?.code == .elementTooLarge)
            #expect(error?.reason.contains("\(8 << 20) bytes (maximumEventSize)") == true)
        }
    }

    @Test("the events a chunk completed before an over-limit line come out before the failure")
    func eventsBeforeTheFailure() async throws {
        let text = "data: one\n\n: \(String(repeating: "c", count: 500))\n"
        let chunks = AsyncStream<Data> { continuation in
            continuation.yield(Data(text.utf8))
            continuation.finish()
        }
        var events = chunks.serverSentEvents(maximumEventSize: 100).makeAsyncIterator()
        #expect(try await events.next()?.data == "one")
        let error = await #expect(throws: HTTPEncodingError.self) { _ = try await events.next() }
        #expect(error?.code == .elementTooLarge)
        #expect(try await events.next() == nil)
    }

    @Test("a line counts with the data its event holds, and a line finished in a later chunk is checked whole")
    func limitCountsEveryLine() throws {
        var parser = ServerSentEventParser(maximumEventSize: 100)
        let comment = "data: \(String(repeating: "x", count: 60))\n: \(String(repeating: "c", count: 50))\n"
        #expect(throws: HTTPEncodingError.self) { _ = try parser.parse(Data(comment.utf8)) }
        var split = ServerSentEventParser(maximumEventSize: 100)
        _ = try split.parse(Data("event: ".utf8))
        let error = #expect(throws: HTTPEncodingError.self) {
            _ = try split.parse(Data("\(String(repeating: "t", count: 200))\n".utf8))
        }
        #expect(error?.code == .elementTooLarge)
        // Lines up to the limit, with no data held, pass; the data of a dispatched event no
        // longer counts.
        var fits = ServerSentEventParser(maximumEventSize: 100)
        let line = String(repeating: "d", count: 94)
        let events = try fits.parse(
            Data(": \(String(repeating: "c", count: 98))\ndata: \(line)\n\ndata: \(line)\n\n".utf8))
        #expect(events.map(\.data) == [line, line])
    }

    /// Hostile streams cut at random places (fixed seeds) read the same as the plain
    /// reference reading of the whole stream.
    @Test("streams cut at random read as the reference reads them whole", arguments: 0..<8)
    func randomCuts(seed: UInt64) throws {
        var random = SplitMix(seed: seed)
        var dispatched = 0
        for _ in 0..<400 {
            let stream = ReferenceEventStream.hostileStream(&random)
            let cuts = ReferenceEventStream.cuts(&random, count: stream.count)
            let expected = ReferenceEventStream.events(of: stream)
            let events = try parse(stream, cuts: cuts).map {
                ReferenceEventStream.Event(type: $0.type, data: $0.data, id: $0.id)
            }
            #expect(events == expected, "stream \(stream) cut at \(cuts)")
            dispatched += events.count
        }
        #expect(dispatched > 200)  // the streams do carry events
    }
}
