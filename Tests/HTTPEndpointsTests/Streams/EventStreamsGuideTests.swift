import HTTPEndpoints
import TestSupport
import Testing

// The snippets of Docs/EventStreams.md, verbatim, run against the fault server with `print` captured.

@Suite("Snippets of the event streams guide")
struct EventStreamsGuideTests {
    @Test("every ```swift snippet of Docs/EventStreams.md appears verbatim in this file")
    func everySnippetIsHere() throws {
        let tests = try SnippetSource.read("Tests/HTTPEndpointsTests/Streams/EventStreamsGuideTests.swift")
        let blocks = SnippetSource.markdownBlocks(try SnippetSource.read("Docs/EventStreams.md"))
        #expect(blocks.count >= 6)
        for block in blocks {
            #expect(SnippetSource.contains(block, in: tests), "snippet is not tested:\n\(block)")
        }
    }

    @Test("the guide's calls against the fault server")
    func guide() async throws {
        let baseURL = try TestServers.faultServer()
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let client = Client(baseURL: baseURL)
        let stream = try await client.events(.get("events?count=3"))
        for try await event in stream {
            print(event.type, event.id, event.data)  // tick 1 {"n": 1}, then 2 and 3
        }
        #expect(printed == ["tick 1 {\"n\": 1}", "tick 2 {\"n\": 2}", "tick 3 {\"n\": 3}"])

        printed = []
        struct Tick: Decodable, Sendable { var n: Int }
        let ticks = try await client.events(.get("events?count=3"), as: Tick.self, where: { $0.type == "tick" })
        var total = 0
        for try await tick in ticks { total += tick.data.n }
        print(total)  // 6

        // The server drops the connection after every 2 events; 204 once all 6 were sent.
        let resumed = try await client.events(
            .get("events?count=6&drop_after=2&retry=50"), reconnection: EventReconnection(maximumAttempts: 5))
        var ids: [String] = []
        for try await event in resumed { ids.append(event.id) }
        print(ids)  // ["1", "2", "3", "4", "5", "6"]: none lost, none twice

        enum Feed {
            static let ticks = Endpoint<Empty, EventStream<Tick>>(
                .get, "/events?count=3&retry=50", response: .events(reconnection: .standard))
            static let lines = Endpoint<Empty, JSONStream<Tick>>(.get, "/events?format=jsonl&count=3")
        }
        var seen: [Int] = []
        for try await tick in try await client.call(Feed.ticks) { seen.append(tick.data.n) }
        for try await tick in try await client.call(Feed.lines) { seen.append(tick.n) }
        print(seen)  // [1, 2, 3, 1, 2, 3]

        let values = try await client.jsonStream(.get("events?format=json-seq&count=3"), as: Tick.self)
        var numbers: [Int] = []
        for try await tick in values { numbers.append(tick.n) }
        print(numbers, values.truncatedRecords.count)  // [1, 2, 3] 0

        let chunks = AsyncStream<Data> { continuation in
            continuation.yield(Data("id: 7\r\ndata: {\"n\": 7}\r".utf8))  // cut between CR and LF
            continuation.yield(Data("\n\r\n".utf8))
            continuation.finish()
        }
        for try await event in chunks.serverSentEvents().decoded(as: Tick.self) {
            print(event.id, event.data.n)  // 7 7
        }
        #expect(printed == ["6", #"["1", "2", "3", "4", "5", "6"]"#, "[1, 2, 3, 1, 2, 3]", "[1, 2, 3] 0", "7 7"])
    }
}
