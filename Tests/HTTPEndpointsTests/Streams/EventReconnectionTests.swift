import Foundation
import HTTPClientTesting
import HTTPEndpoints
import Testing

@testable import HTTPCore

/// How an event stream reconnects, through a stub transport that answers each request of
/// the stream (the first, its retries and every reconnect) as a script says: what a real
/// server cannot be made to do on cue, such as refusing only the third request.
@Suite("Event streams: reconnecting")
struct EventReconnectionTests {
    static let baseURL = URL(string: "https://api.test")!

    /// A `200 OK` reply of media type `type` holding `text`.
    static func reply(_ type: String, _ text: String) throws -> StubTransport.Reply {
        .status(.ok, headerFields: [try HTTPField(name: .contentType, value: type)], body: Data(text.utf8))
    }

    /// The standard policy without its half-second floor, for the cases where the waits are
    /// not what is tested (the stub answers at once, and the server's `retry: 1` is kept).
    static let prompt = EventReconnection(minimumDelay: .zero)

    /// A `text/event-stream` reply holding `text`.
    static func events(_ text: String) throws -> StubTransport.Reply { try reply("text/event-stream", text) }

    /// `duration` in whole milliseconds, rounded: a backoff computed in floating-point
    /// seconds is a few attoseconds off.
    static func milliseconds(_ duration: Duration) -> Int {
        Int((Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15).rounded())
    }

    /// The reconnects the observers were told of: their number and delay.
    final class Reconnects: Sendable {
        private let seen = Locked<[(number: Int, delay: Duration, lastEventID: String)]>([])
        var observer: EventObserver {
            EventObserver { [self] event in
                if case .reconnecting(_, let number, let delay, let id, _) = event.kind {
                    seen.withLock { $0.append((number, delay, id)) }
                }
            }
        }
        /// The reconnects told so far, once `count` have been (observers are told asynchronously).
        func all(count: Int) async throws -> [(number: Int, delay: Duration, lastEventID: String)] {
            for _ in 0..<200 where seen.withLock({ $0.count }) < count { try await Task.sleep(for: .milliseconds(10)) }
            return seen.withLock { $0 }
        }
    }

    @Test("reconnects that bring no event wait longer each time: the client's backoff is added to the server's retry")
    func backoffGrows() async throws {
        let stub = StubTransport()
        stub.on(
            .path("/ticks"), reply: [try Self.events("retry: 10\nid: 1\ndata: a\n\n"), try Self.events(": nothing\n")])
        let reconnects = Reconnects()
        let client = Client(
            baseURL: Self.baseURL, transport: stub, observers: [reconnects.observer],
            retry: [.backoff(.exponential(base: 0.02, cap: 1), jitter: .none)])
        let stream = try await client.events(
            .get("ticks"), reconnection: EventReconnection(delay: .seconds(5), maximumAttempts: 4, minimumDelay: .zero))
        var data: [String] = []
        for try await event in stream { data.append(event.data) }  // ends after 4 fruitless reconnects
        #expect(data == ["a"])
        #expect(stub.requests.count == 5)
        #expect(stub.requests.dropFirst().allSatisfy { $0.headerFields[.lastEventID] == "1" })
        let told = try await reconnects.all(count: 4)
        #expect(told.map(\.number) == [1, 2, 3, 4])
        // The server's 10 ms, then 10 ms plus the backoff for retries 1, 2 and 3 (20, 40, 80 ms).
        #expect(told.map { Self.milliseconds($0.delay) } == [10, 30, 50, 90])
    }

    @Test(
        "an event on a connection that lasted resets the backoff: the reconnect after it waits only the reconnection time"
    )
    func eventResetsBackoff() async throws {
        let stub = StubTransport()
        stub.on(
            .path("/ticks"),
            reply: [
                try Self.events("retry: 10\nid: 1\ndata: a\n\n"), try Self.events(""),
                try Self.events("id: 2\ndata: b\n\n"),
                .status(.noContent),
            ])
        let reconnects = Reconnects()
        let client = Client(
            baseURL: Self.baseURL, transport: stub, observers: [reconnects.observer],
            retry: [.backoff(.constant(0.05), jitter: .none)])
        let stream = try await client.events(
            .get("ticks"), reconnection: EventReconnection(minimumDelay: .zero, backoffResetAfter: .zero)
        )
        var data: [String] = []
        for try await event in stream { data.append(event.data) }  // 204 ends it
        #expect(data == ["a", "b"])
        let told = try await reconnects.all(count: 3)
        #expect(told.map { Self.milliseconds($0.delay) } == [10, 60, 10])
        #expect(told.map(\.lastEventID) == ["1", "1", "2"])
    }

    @Test("connections that bring an event but close at once keep the backoff growing")
    func shortConnectionsKeepBackingOff() async throws {
        let stub = StubTransport()
        stub.on(
            .path("/ticks"),
            reply: [
                try Self.events("retry: 10\nid: 1\ndata: a\n\n"), try Self.events("id: 2\ndata: b\n\n"),
                try Self.events("id: 3\ndata: c\n\n"), .status(.noContent),
            ])
        let reconnects = Reconnects()
        let client = Client(
            baseURL: Self.baseURL, transport: stub, observers: [reconnects.observer],
            retry: [.backoff(.exponential(base: 0.02, cap: 1), jitter: .none)])
        let stream = try await client.events(.get("ticks"), reconnection: EventReconnection(minimumDelay: .zero))
        var data: [String] = []
        for try await event in stream { data.append(event.data) }
        #expect(data == ["a", "b", "c"])
        let told = try await reconnects.all(count: 3)
        // Every connection lived less than 5 s: 10 ms, then 10 plus 20 and 40 ms.
        #expect(told.map { Self.milliseconds($0.delay) } == [10, 30, 50])
    }

    @Test("the floor: a server's retry shorter than minimumDelay waits the floor; without a client backoff, it doubles")
    func floorAndFallbackBackoff() async throws {
        let stub = StubTransport()
        stub.on(
            .path("/ticks"),
            reply: [
                try Self.events("retry: 0\nid: 1\ndata: a\n\n"), try Self.events("id: 2\ndata: b\n\n"),
                try Self.events(""), .status(.noContent),
            ])
        let reconnects = Reconnects()
        let client = Client(baseURL: Self.baseURL, transport: stub, observers: [reconnects.observer], retry: .none)
        let stream = try await client.events(
            .get("ticks"), reconnection: EventReconnection(minimumDelay: .milliseconds(20)))
        var data: [String] = []
        for try await event in stream { data.append(event.data) }
        #expect(data == ["a", "b"])
        let told = try await reconnects.all(count: 3)
        // The 20 ms floor over the server's 0, then 20 ms doubling: 20 + 20, 20 + 40.
        #expect(told.map { Self.milliseconds($0.delay) } == [20, 40, 60])
        #expect(EventReconnection.standard.minimumDelay == .milliseconds(500))
    }

    @Test("maximumAttempts failed reconnects in a row end the stream with the last failure, a ClientError")
    func givesUp() async throws {
        let stub = StubTransport()
        stub.on(
            .path("/ticks"),
            reply: [
                try Self.events("retry: 1\nid: 1\ndata: a\n\n"),
                .failure(ClientError(.cannotConnect, "connection refused (stub)")),
            ])
        let client = Client(baseURL: Self.baseURL, transport: stub, retry: .none)
        let stream = try await client.events(
            .get("ticks"), reconnection: EventReconnection(delay: .seconds(5), maximumAttempts: 3, minimumDelay: .zero))
        var data: [String] = []
        let error = await #expect(throws: ClientError.self) {
            for try await event in stream { data.append(event.data) }
        }
        #expect(data == ["a"])
        #expect(error?.code == .cannotConnect)
        #expect(stub.requests.count == 4)  // the first connection and 3 reconnects
    }

    @Test("a status the call does not accept at a reconnect ends the stream with EndpointError unacceptableStatus")
    func refusedAtReconnect() async throws {
        let stub = StubTransport()
        stub.on(
            .path("/ticks"),
            reply: [try Self.events("retry: 1\nid: 1\ndata: a\n\n"), .status(.notFound, body: Data("gone".utf8))])
        let client = Client(baseURL: Self.baseURL, transport: stub, retry: .none)
        let stream = try await client.events(.get("ticks"), reconnection: Self.prompt)
        var data: [String] = []
        let error = await #expect(throws: EndpointError.self) {
            for try await event in stream { data.append(event.data) }
        }
        #expect(data == ["a"])
        #expect(error?.code == .unacceptableStatus)
        #expect(error?.body == Data("gone".utf8))
        #expect(stub.requests.count == 2)  // a refusal is not reconnected after
    }

    @Test("a 503 at a reconnect is retried by the client's stack, then ends the stream with its tooManyRetries")
    func retriedStatusAtReconnect() async throws {
        let stub = StubTransport()
        stub.on(
            .path("/ticks"),
            reply: [try Self.events("retry: 1\nid: 1\ndata: a\n\n"), .status(.serviceUnavailable)])
        let client = Client(
            baseURL: Self.baseURL, transport: stub, retry: RetryStack(RetryStack.default.policies, random: { 0 }))
        let stream = try await client.events(.get("ticks"), reconnection: Self.prompt)
        var data: [String] = []
        let error = await #expect(throws: ClientError.self) {
            for try await event in stream { data.append(event.data) }
        }
        #expect(data == ["a"])
        #expect(error?.code == .tooManyRetries)
        #expect(error?.response?.status == .serviceUnavailable)
        // The first connection, then the reconnect's 3 attempts; no reconnect after them.
        #expect(stub.requests.count == 4)
    }

    @Test("another Content-Type at a reconnect ends the stream with EndpointError unexpectedContentType")
    func wrongTypeAtReconnect() async throws {
        let stub = StubTransport()
        stub.on(
            .path("/ticks"),
            reply: [
                try Self.events("retry: 1\nid: 1\ndata: a\n\n"),
                try Self.reply("application/json", "{}"),
            ])
        let client = Client(baseURL: Self.baseURL, transport: stub, retry: .none)
        let stream = try await client.events(.get("ticks"), reconnection: Self.prompt)
        var data: [String] = []
        let error = await #expect(throws: EndpointError.self) {
            for try await event in stream { data.append(event.data) }
        }
        #expect(data == ["a"])
        #expect(error?.code == .unexpectedContentType)
        #expect(stub.requests.count == 2)
    }

    @Test("BearerAuth and the client's retry of a failed first request apply to the stream's every request")
    func authAndRetry() async throws {
        let stub = StubTransport()
        stub.on(
            .path("/ticks"),
            reply: [
                .status(.serviceUnavailable), try Self.events("retry: 1\nid: 1\ndata: a\n\n"),
                try Self.events("id: 2\ndata: b\n\n"), .status(.noContent),
            ])
        let client = Client(
            baseURL: Self.baseURL, transport: stub, interceptors: [BearerAuth(token: "s3cret")],
            retry: RetryStack(RetryStack.default.policies, random: { 0 }))
        let stream = try await client.events(.get("ticks"), reconnection: Self.prompt)
        var data: [String] = []
        for try await event in stream { data.append(event.data) }
        #expect(data == ["a", "b"])
        // The 503, its retry, the reconnect after event 1 and the one after event 2 (204).
        #expect(stub.requests.count == 4)
        #expect(stub.requests.allSatisfy { $0.headerFields[.authorization] == "Bearer s3cret" })
        #expect(stub.requests.map { $0.headerFields[.lastEventID] ?? "-" } == ["-", "-", "1", "2"])
    }

    @Test("a token refused at a reconnect is refreshed by BearerAuth and the stream goes on")
    func tokenRefreshedAtReconnect() async throws {
        let accepted = Locked("one")
        let stub = StubTransport()
        stub.on(
            .path("/ticks"),
            reply: .handler { request in
                guard request.headerFields[.authorization] == "Bearer \(accepted.withLock { $0 })" else {
                    return .status(.unauthorized)
                }
                switch request.headerFields[.lastEventID] {
                case nil:
                    accepted.withLock { $0 = "two" }  // the token expires while the stream runs
                    return try Self.events("retry: 1\nid: 1\ndata: a\n\n")
                case "1": return try Self.events("id: 2\ndata: b\n\n")
                default: return .status(.noContent)
                }
            })
        let tokens = TokenRefresher(token: "one") { _ in "two" }
        let client = Client(baseURL: Self.baseURL, transport: stub, interceptors: [BearerAuth(tokens)], retry: .none)
        let stream = try await client.events(.get("ticks"), reconnection: Self.prompt)
        var data: [String] = []
        for try await event in stream { data.append(event.data) }
        #expect(data == ["a", "b"])
        #expect(
            stub.requests.map { $0.headerFields[.authorization] ?? "-" } == [
                "Bearer one", "Bearer one", "Bearer two", "Bearer two",
            ])
    }
}
