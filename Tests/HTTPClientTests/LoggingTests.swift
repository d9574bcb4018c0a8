import Foundation
import HTTPClientTesting
import HTTPCore
import Testing

@testable import HTTPClient

@Suite("Logging interceptor")
struct LoggingTests {
    func log(
        _ level: Logging.Level, request: HTTPRequest, reply: StubTransport.Reply, extra: [any Interceptor] = []
    ) async throws -> [String] {
        let lines = Collector<String>()
        let stub = StubTransport(fallback: reply)
        _ = try? await Fixtures.client(stub, interceptors: extra + [Logging(level) { lines.append($0) }]).send(request)
        return lines.values
    }

    @Test("line level writes the request line and the status line")
    func lineLevel() async throws {
        let lines = try await log(.line, request: Fixtures.request("users"), reply: .status(.ok))
        #expect(lines.count == 2)
        #expect(lines[0] == "-> GET https://api.test/v2/users (attempt 1)")
        #expect(lines[1].hasPrefix("<- 200 OK GET https://api.test/v2/users ("))
    }

    @Test("headers level redacts credentials on requests and responses")
    func redaction() async throws {
        var request = Fixtures.request("x")
        try request.headerFields.set(.cookie, "session=s3cret")
        try request.headerFields.set(.proxyAuthorization, "Basic cHJveHk=")
        try request.headerFields.set(.accept, "application/json")
        let reply = StubTransport.Reply.status(.ok, headerFields: Fixtures.fields(["Set-Cookie": "id=s3cret2"]))
        let lines = try await log(.headers, request: request, reply: reply, extra: [BearerAuth(token: "tok3n")])
        let all = lines.joined(separator: "\n")
        #expect(!all.contains("tok3n"))
        #expect(!all.contains("s3cret"))
        #expect(!all.contains("cHJveHk="))
        #expect(all.contains("Authorization: <redacted>"))
        #expect(all.contains("Cookie: <redacted>"))
        #expect(all.contains("Set-Cookie: <redacted>"))
        #expect(all.contains("Proxy-Authorization: <redacted>"))
        #expect(all.contains("Accept: application/json"))
    }

    @Test("extra names can be redacted")
    func extraRedaction() async throws {
        let lines = Collector<String>()
        let apiKey = try HTTPFieldName("X-Api-Key")
        var request = Fixtures.request("x")
        try request.headerFields.set(apiKey, "k3y")
        _ = try await Fixtures.client(
            StubTransport(fallback: .status(.ok)),
            interceptors: [Logging(.headers, redacting: [apiKey]) { lines.append($0) }]
        ).send(request)
        #expect(lines.values.joined().contains("X-Api-Key: <redacted>"))
        #expect(!lines.values.joined().contains("k3y"))
    }

    @Test("bodies level shows bodies up to the limit")
    func bodies() async throws {
        let request = Fixtures.request("x", method: .post, body: HTTPBody("hello request body"))
        let lines = try await log(
            .bodies(limit: 5), request: request, reply: .status(.ok, body: Data("response text".utf8)))
        #expect(lines[0].hasSuffix("\nhello … (18 bytes in all)"))
        #expect(lines[1].hasSuffix("\nrespo … (13 bytes in all)"))
    }

    @Test("a one-shot stream body is never read for logging and still reaches the transport")
    func oneShotNotRead() async throws {
        let lines = Collector<String>()
        let stub = StubTransport(fallback: .status(.ok))
        let request = Fixtures.request("x", method: .put, body: Fixtures.oneShotBody("secret stream"))
        _ = try await Fixtures.client(stub, interceptors: [Logging(.bodies(limit: 1000)) { lines.append($0) }])
            .send(request)
        #expect(lines.values[0].contains("<one-shot stream body"))
        #expect(!lines.values.joined().contains("secret stream"))
        #expect(stub.recordedRequests.first?.body == Data("secret stream".utf8))
    }

    @Test("binary bodies are summarised, not printed")
    func binary() async throws {
        let lines = try await log(
            .bodies(limit: 100), request: Fixtures.request("x"), reply: .status(.ok, body: Data([0, 1, 2, 255])))
        #expect(lines[1].hasSuffix("<4 bytes of binary data>"))
    }

    @Test("failures are logged with their code")
    func failure() async throws {
        let lines = try await log(
            .line, request: Fixtures.request("x"), reply: .failure(ClientError(.connectionLost, "reset by peer")))
        #expect(lines[1].hasPrefix("<- failed connectionLost GET https://api.test/v2/x"))
        #expect(lines[1].hasSuffix("reset by peer"))
    }

    @Test("without a sink, each message is printed whole to standard output")
    func defaultSink() async throws {
        let marker = "default-sink-\(UUID().uuidString)"
        let stub = StubTransport(fallback: .status(.ok))
        let client = Fixtures.client(stub, interceptors: [Logging()])
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("heron-\(marker).log")
        defer { try? FileManager.default.removeItem(at: file) }
        // Standard output goes to the file for this one call, then back.
        let captured = open(file.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(captured >= 0)
        fflush(nil)
        let saved = dup(1)
        dup2(captured, 1)
        _ = try? await client.send(Fixtures.request(marker))
        fflush(nil)
        dup2(saved, 1)
        close(saved)
        close(captured)
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains("-> GET https://api.test/v2/\(marker) (attempt 1)\n"))
        #expect(text.contains("<- 200 OK GET https://api.test/v2/\(marker) ("))
    }
}
