import Foundation
import HTTPEndpoints
import TestSupport
import Testing

@testable import HTTPCore

/// How fast a stream's bytes flow: read on demand from a transport that can wait, bounded
/// by the call's `responseBodyLimit` on one that cannot (URLSession), and stopped for good
/// when the consumer's task is cancelled.
@Suite("Event streams: reading on demand, a slow consumer, cancellation")
struct EventStreamFlowTests {
    /// A transport whose response body is made on demand: each chunk (one event or line) is
    /// produced only when the reader asks for it, and counted.
    struct PullingTransport: ClientTransport {
        let contentType: String
        let chunk: @Sendable (Int) -> String
        let pulls = Locked(0)
        let cancelled = Locked(false)
        /// The wait before each chunk is produced.
        var pace: Duration = .zero

        func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
            let body = Chunks(transport: self)
            return TransportResponse(
                head: HTTPResponse(
                    status: .ok, headerFields: [try HTTPField(name: .contentType, value: contentType)]),
                body: HTTPBody(stream: body, length: .unknown))
        }

        /// The endless chunks of one response.
        struct Chunks: AsyncSequence, Sendable {
            let transport: PullingTransport
            func makeAsyncIterator() -> Iterator { Iterator(transport: transport) }
            struct Iterator: AsyncIteratorProtocol {
                let transport: PullingTransport
                mutating func next() async throws -> Data? {
                    do {
                        if transport.pace > .zero { try await Task.sleep(for: transport.pace) }
                        try Task.checkCancellation()
                    } catch {
                        transport.cancelled.withLock { $0 = true }
                        throw error
                    }
                    let number = transport.pulls.withLock {
                        $0 += 1
                        return $0
                    }
                    return Data(transport.chunk(number).utf8)
                }
            }
        }
    }

    @Test("events are read from the transport on demand: no chunk is pulled before the reader asks for it")
    func eventsOnDemand() async throws {
        let transport = PullingTransport(contentType: "text/event-stream", chunk: { "id: \($0)\ndata: \($0)\n\n" })
        let client = Client(baseURL: URL(string: "https://api.test")!, transport: transport)
        let stream = try await client.events(.get("ticks"))
        #expect(transport.pulls.withLock { $0 } == 0)  // the head is in, the body untouched
        var events = stream.makeAsyncIterator()
        for number in 1...5 {
            let event = try await events.next()
            #expect(event?.data == "\(number)")
            try await Task.sleep(for: .milliseconds(20))  // a slow reader: nothing is read meanwhile
            #expect(transport.pulls.withLock { $0 } == number)
        }
    }

    @Test("JSON Lines are read from the transport on demand too")
    func linesOnDemand() async throws {
        struct Tick: Decodable, Sendable { var n: Int }
        let transport = PullingTransport(contentType: "application/jsonl", chunk: { "{\"n\": \($0)}\n" })
        let client = Client(baseURL: URL(string: "https://api.test")!, transport: transport)
        let stream = try await client.jsonStream(.get("ticks"), as: Tick.self)
        var ticks = stream.makeAsyncIterator()
        for number in 1...5 {
            #expect(try await ticks.next()?.n == number)
            try await Task.sleep(for: .milliseconds(20))
            #expect(transport.pulls.withLock { $0 } == number)
        }
    }

    @Test("cancelling the consumer's task cancels the transport's body read: the transfer ends")
    func cancellationEndsTheBody() async throws {
        var transport = PullingTransport(contentType: "text/event-stream", chunk: { "id: \($0)\ndata: \($0)\n\n" })
        transport.pace = .milliseconds(20)
        let client = Client(baseURL: URL(string: "https://api.test")!, transport: transport)
        let stream = try await client.events(.get("ticks"), reconnection: EventReconnection(delay: .milliseconds(10)))
        let consumer = Task {
            var count = 0
            for try await _ in stream {
                count += 1
                if count == 3 { withUnsafeCurrentTask { $0?.cancel() } }
            }
        }
        await #expect(throws: CancellationError.self) { try await consumer.value }
        #expect(transport.cancelled.withLock { $0 })
        let pulled = transport.pulls.withLock { $0 }
        try await Task.sleep(for: .milliseconds(200))
        #expect(transport.pulls.withLock { $0 } == pulled)  // nothing reads on, nothing reconnects
    }

    #if os(Linux)
    @Test("cancelling the consumer's task closes the connection (the server sees it end), and no reconnect follows")
    func cancellationClosesTheConnection() async throws {
        let server = try EndlessEventServer(interval: .milliseconds(20))
        defer { server.stop() }
        let client = Client(baseURL: server.url)
        let stream = try await client.events(.get("ticks"), reconnection: EventReconnection(delay: .milliseconds(10)))
        let consumer = Task {
            var count = 0
            for try await _ in stream {
                count += 1
                if count == 3 { withUnsafeCurrentTask { $0?.cancel() } }
            }
        }
        await #expect(throws: CancellationError.self) { try await consumer.value }
        let started = ContinuousClock.now
        while server.connections.closed == 0, ContinuousClock.now - started < .seconds(10) {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(server.connections.closed == 1)
        try await Task.sleep(for: .milliseconds(300))
        #expect(server.connections == EndlessEventServer.Counts(accepted: 1, closed: 1))
    }
    #endif

    @Test("a consumer that stops reading while a fast server sends gets responseTooLarge past responseBodyLimit")
    func slowConsumerWithURLSession() async throws {
        // URLSession cannot slow the server down: what arrives unread is held up to the
        // call's limit, then the stream fails instead of growing.
        let limit = 64 * 1024
        let client = Client(baseURL: try TestServers.faultServer())
        let stream = try await client.events(
            .get("events?count=1000000"), options: RequestOptions(responseBodyLimit: limit))
        var events = stream.makeAsyncIterator()
        #expect(try await events.next()?.id == "1")
        try await Task.sleep(for: .seconds(2))  // the server sends far more than 64 KiB meanwhile
        var read = 1
        let error = await #expect(throws: ClientError.self) {
            while try await events.next() != nil { read += 1 }
        }
        #expect(error?.code == .responseTooLarge)
        // What was held unread: at most the limit and the chunk that passed it, in events of
        // at least 35 bytes (`id: N`, `event: tick`, `data: {"n": N}`).
        #expect(read < 1_000_000)
        #expect((read - 1) * 35 <= 2 * limit, "\(read) events were read before the failure")
    }
}
