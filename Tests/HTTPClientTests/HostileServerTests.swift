import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import HTTPClient

/// Servers that misbehave on purpose (the fault server on loopback): each call ends, within
/// its timeout, in the documented typed error or the documented result; nothing hangs.
@Suite("Hostile servers")
struct HostileServerTests {
    static func url(_ path: String, _ items: [String: String] = [:]) throws -> URL {
        try TestServers.faultServer().appending(path: path).appending(
            queryItems: items.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) })
    }

    /// Sends `url`, returning the outcome and how long it took.
    static func outcome(
        _ url: URL, client: Client = Client(timeout: .seconds(20))
    ) async -> (Result<ClientResponse<Data>, ClientError>, Duration) {
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let response = try await client.send(HTTPRequest(method: .get, url: url))
            return (.success(response), clock.now - start)
        } catch let error as ClientError {
            return (.failure(error), clock.now - start)
        } catch {
            return (.failure(ClientError(.transport, "\(error)", request: HTTPRequest(method: .get, url: url))), .zero)
        }
    }

    @Test(
        "a response head far beyond reason (100,000 fields, a 10 MB field) fails at once with responseTooLarge, not retried",
        arguments: [["fields": "100000"], ["field_bytes": String(10 << 20)]])
    func hugeHead(items: [String: String]) async throws {
        // Alone: on Linux a head of 100,000 fields holds URLSession's work queue, every
        // session's, for seconds (see HoggingStep).
        let url = try Self.url("huge-head", items)
        let (result, elapsed) = await HoggingStep.alone { await Self.outcome(url) }
        guard case .failure(let error) = result else {
            Issue.record("a hostile head was accepted: \(result)")
            return
        }
        // No retry can mend it: responseTooLarge, one attempt.
        #expect(error.code == .responseTooLarge)
        #expect(error.message.contains("the response head is larger than libcurl accepts"))
        #expect(error.response == nil)
        #expect(error.attempts.count == 1)
        #expect(elapsed < .seconds(60))
    }

    @Test("a body longer than its Content-Length is cut at the declared length (RFC 9112 §6.3)")
    func overlongBody() async throws {
        let (result, _) = await Self.outcome(try Self.url("overlong", ["declared": "10", "send": "100000"]))
        let body = try result.get().body
        #expect(body == Data((0..<10).map { UInt8($0) }))
        // The excess was not read as the next response (the server announced the close): the
        // next call is answered normally.
        let (next, _) = await Self.outcome(try Self.url("bytes", ["n": "5"]))
        #expect(try next.get().body == Data([0, 1, 2, 3, 4]))
    }

    @Test("a reset inside the body fails with truncatedBody, retried by the default stack, then tooManyRetries")
    func resetMidBody() async throws {
        let (result, elapsed) = await Self.outcome(
            try Self.url("reset-mid-body", ["declared": "100000", "send": "1000"]))
        guard case .failure(let error) = result else {
            Issue.record("a reset body was accepted: \(result)")
            return
        }
        #expect(error.code == .tooManyRetries)
        #expect(error.attempts.map(\.failure) == ["truncatedBody", "truncatedBody", "truncatedBody"])
        #expect(elapsed < .seconds(60))
    }

    @Test("Retry-After: 999999 gives up at once with tooManyRetries naming the limit; a garbage Retry-After is ignored")
    func retryAfter() async throws {
        let client = Client(retry: .default, timeout: .seconds(20))
        let (far, elapsed) = await Self.outcome(
            try Self.url("flaky", ["key": UUID().uuidString, "fail": "1", "retry_after": "999999"]), client: client)
        guard case .failure(let error) = far else {
            Issue.record("expected tooManyRetries, got \(far)")
            return
        }
        #expect(error.code == .tooManyRetries)
        #expect(error.message.contains("Retry-After of 999999.0 seconds exceeds the limit"))
        #expect(error.response?.status == .serviceUnavailable)
        #expect(elapsed < .seconds(30))
        let (garbage, _) = await Self.outcome(
            try Self.url("flaky", ["key": UUID().uuidString, "fail": "1", "retry_after": "garbage, 99 Foo 2026"]),
            client: client)
        #expect(try garbage.get().status == .ok)
    }

    @Test("a redirect loop ends with tooManyRedirects after the limit")
    func redirectLoop() async throws {
        let client = Client(redirectLimit: 5, timeout: .seconds(20))
        let (result, _) = await Self.outcome(try Self.url("redirect", ["loop": "1"]), client: client)
        guard case .failure(let error) = result else {
            Issue.record("expected tooManyRedirects, got \(result)")
            return
        }
        #expect(error.code == .tooManyRedirects)
    }
}
