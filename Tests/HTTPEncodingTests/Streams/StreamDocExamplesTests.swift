import Foundation
import HTTPEncoding
import TestSupport
import Testing

// The ```swift examples of Sources/HTTPEncoding/Streams, verbatim, with `print` captured.
@Suite("Examples in the HTTPEncoding stream documentation comments")
struct StreamDocExamplesTests {
    @Test("every ```swift example of Sources/HTTPEncoding/Streams appears verbatim in this file")
    func everyExampleIsHere() throws {
        let tests = try SnippetSource.read("Tests/HTTPEncodingTests/Streams/StreamDocExamplesTests.swift")
        let folder = SnippetSource.packageRoot.appendingPathComponent("Sources/HTTPEncoding/Streams")
        var count = 0
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
            for block in SnippetSource.docCommentBlocks(try SnippetSource.read("Sources/HTTPEncoding/Streams/\(file)"))
            {
                count += 1
                #expect(SnippetSource.contains(block, in: tests), "example in \(file) is not tested:\n\(block)")
            }
        }
        #expect(count >= 6)
    }

    @Test("ServerSentEvent and ServerSentEventParser")
    func parser() throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        do {
            var parser = ServerSentEventParser()
            let events = try parser.parse(Data("event: greeting\nid: 1\ndata: hello\n\n".utf8))
            print(events[0].type, events[0].id, events[0].data)  // greeting 1 hello
        }
        do {
            var parser = ServerSentEventParser()
            var events = try parser.parse(Data("data: first\r\ndata: line\r".utf8))  // none yet
            events += try parser.parse(Data("\n\r\nretry: 2500\n".utf8))
            print(events.map(\.data), parser.reconnectionTime ?? .zero)  // ["first\nline"] 2.5 seconds
        }
        #expect(printed == ["greeting 1 hello", #"["first\nline"] 2.5 seconds"#])
    }

    @Test("ServerSentEvents, decoded events, JSON Lines and JSON text sequences")
    func sequences() async throws {
        let output = Locked<[String]>([])
        @Sendable func print(_ items: Any...) {
            let line = items.map { "\($0)" }.joined(separator: " ")
            output.withLock { $0.append(line) }
        }
        do {
            let chunks = AsyncStream<Data> { continuation in
                continuation.yield(Data("data: {\"n\":1}\n\nda".utf8))
                continuation.yield(Data("ta: {\"n\":2}\n\n".utf8))
                continuation.finish()
            }
            for try await event in chunks.serverSentEvents() {
                print(event.data)  // {"n":1}, then {"n":2}
            }
        }
        do {
            struct Delta: Decodable, Sendable { var text: String }
            let chunks = AsyncStream<Data> { continuation in
                continuation.yield(Data("data: {\"text\":\"Hel\"}\n\ndata: [DONE]\n\n".utf8))
                continuation.finish()
            }
            let deltas = chunks.serverSentEvents().decoded(as: Delta.self, where: { $0.data != "[DONE]" })
            for try await delta in deltas { print(delta.data.text) }  // Hel
        }
        do {
            struct Entry: Decodable, Sendable { var level: String }
            let chunks = AsyncStream<Data> { continuation in
                continuation.yield(Data("{\"level\":\"info\"}\n{\"lev".utf8))
                continuation.yield(Data("el\":\"warn\"}\n\n".utf8))
                continuation.finish()
            }
            for try await entry in chunks.jsonLines().decoded(as: Entry.self) {
                print(entry.level)  // info, then warn
            }
        }
        do {
            struct Count: Decodable, Sendable { var n: Int }
            let chunks = AsyncStream<Data> { continuation in
                continuation.yield(Data("\u{1E}{\"n\":1}\n\u{1E}{\"n\":".utf8))  // the second is cut short
                continuation.yield(Data("\u{1E}{\"n\":3}\n".utf8))
                continuation.finish()
            }
            let counts = chunks.jsonTextSequence(onTruncatedRecord: { print($0) }).decoded(as: Count.self)
            for try await count in counts { print(count.n) }  // 1, a truncatedRecord error, then 3
        }
        let printed = output.withLock { $0 }
        #expect(printed.prefix(6) == [#"{"n":1}"#, #"{"n":2}"#, "Hel", "info", "warn", "1"])
        #expect(printed.count == 8 && printed[6].hasPrefix("truncatedRecord") && printed[7] == "3")
    }
}
