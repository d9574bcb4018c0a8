import Foundation
import HTTPClientTesting
import HTTPCore
import Testing

@testable import HTTPClient

@Suite("Client")
struct ClientTests {
    @Test("send resolves the URL, returns status, fields and body")
    func sendBuffers() async throws {
        let stub = StubTransport()
        stub.on(
            .path("/v2/users/42"),
            reply: .status(
                .ok, headerFields: Fixtures.fields(["Content-Type": "application/json"]), body: Data("{}".utf8)))
        let client = Fixtures.client(stub)
        let response = try await client.send(Fixtures.request("users/42"))
        #expect(response.status == .ok)
        #expect(response.body == Data("{}".utf8))
        #expect(response.headerFields[.contentType] == "application/json")
        #expect(response.request.url.absoluteString == "https://api.test/v2/users/42")
        #expect(response.head.url?.absoluteString == "https://api.test/v2/users/42")
        #expect(stub.requests.map(\.url.absoluteString) == ["https://api.test/v2/users/42"])
    }

    @Test("a non-2xx status is returned, not thrown, without a validating interceptor")
    func errorStatusReturned() async throws {
        let stub = StubTransport(fallback: .status(.notFound, body: Data("missing".utf8)))
        let response = try await Fixtures.client(stub).send(Fixtures.request("x"))
        #expect(response.status == .notFound)
        #expect(response.body == Data("missing".utf8))
    }

    @Test("default header fields are added only where the request lacks them")
    func defaultHeaderFields() async throws {
        let stub = StubTransport(fallback: .status(.ok))
        let client = Client(
            baseURL: Fixtures.base,
            headerFields: Fixtures.fields(["Accept": "application/json", "X-App": "heron", "X-App": "second"]),
            transport: stub, retry: .none)
        var request = Fixtures.request("x")
        try request.headerFields.set(.accept, "text/plain")
        _ = try await client.send(request)
        let sent = try #require(stub.requests.first)
        #expect(sent.headerFields[values: .accept] == ["text/plain"])
        #expect(sent.headerFields[values: try HTTPFieldName("X-App")] == ["heron", "second"])
    }

    @Test("download writes the body to the destination file")
    func downloadToFile() async throws {
        let payload = Data((0..<50_000).map { UInt8($0 % 251) })
        let stub = StubTransport(fallback: .status(.ok, body: payload))
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("heron-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: destination) }
        let response = try await Fixtures.client(stub).download(Fixtures.request("file"), to: destination)
        #expect(response.body == destination)
        #expect(try Data(contentsOf: destination) == payload)
        #expect(response.metrics.bytesReceived == Int64(payload.count))
    }

    @Test("a download the client gives up on leaves an existing destination as it was, and nothing beside it")
    func downloadGivenUpKeepsTheOldFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("heron-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("report.bin")
        try Data("old".utf8).write(to: destination)
        let stub = StubTransport(fallback: .status(.internalServerError, body: Data("boom".utf8)))
        let client = Client(
            baseURL: URL(string: "https://api.example.com")!, transport: stub, retry: [.status([500], max: 1)])
        let error = await #expect(throws: ClientError.self) {
            _ = try await client.download(Fixtures.request("file"), to: destination)
        }
        #expect(error?.code == .tooManyRetries)
        #expect(stub.requests.count == 2)
        #expect(try Data(contentsOf: destination) == Data("old".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["report.bin"])
    }

    @Test("a download failed by ResponseValidation leaves an existing destination as it was, and nothing beside it")
    func downloadFailedByValidationKeepsTheOldFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("heron-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("report.bin")
        try Data("old".utf8).write(to: destination)
        let stub = StubTransport(fallback: .status(.notFound, body: Data("no such report".utf8)))
        let client = Client(
            baseURL: URL(string: "https://api.example.com")!, transport: stub, interceptors: [ResponseValidation()],
            retry: .none)
        let error = await #expect(throws: ClientError.self) {
            _ = try await client.download(Fixtures.request("file"), to: destination)
        }
        #expect(error?.code == .validationFailed)
        #expect(try Data(contentsOf: destination) == Data("old".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["report.bin"])
    }

    @Test("stream delivers the body in chunks that add up to it")
    func streamChunks() async throws {
        let payload = Data((0..<40_000).map { UInt8($0 % 253) })
        let stub = StubTransport(fallback: .status(.ok, body: payload))
        let response = try await Fixtures.client(stub).stream(Fixtures.request("stream"))
        var received = Data()
        var chunks = 0
        for try await chunk in response.body {
            received.append(chunk)
            chunks += 1
        }
        #expect(received == payload)
        #expect(chunks > 1)
    }

    @Test("a buffered body over the limit fails with responseTooLarge")
    func bufferLimit() async throws {
        let stub = StubTransport(fallback: .status(.ok, body: Data(count: 100)))
        let error = await #expect(throws: ClientError.self) {
            _ = try await Fixtures.client(stub).send(
                Fixtures.request("x"), options: RequestOptions(responseBodyLimit: 10))
        }
        #expect(error?.code == .responseTooLarge)
    }

    @Test("progress reaches the callback and the stream, and the stream finishes")
    func progressCallbackAndStream() async throws {
        let stub = StubTransport(fallback: .status(.ok, body: Data(count: 1000)))
        let callbacks = Collector<TransferProgress>()
        let (updates, continuation) = AsyncStream.makeStream(of: TransferProgress.self)
        var options = RequestOptions()
        options.progress = .both(.callback { callbacks.append($0) }, .updates(continuation))
        var request = Fixtures.request("up", method: .put)
        request.body = HTTPBody(Data(count: 300))
        async let response = Fixtures.client(stub).send(request, options: options)
        var streamed: [TransferProgress] = []
        for await update in updates { streamed.append(update) }
        _ = try await response
        #expect(streamed == callbacks.values)
        #expect(streamed.last == TransferProgress(direction: .download, completed: 1000, expected: 1000))
        #expect(streamed.contains(TransferProgress(direction: .upload, completed: 300, expected: 300)))
    }

    @Test("metrics count attempts and bytes")
    func metrics() async throws {
        let stub = StubTransport()
        stub.enqueue(.status(.serviceUnavailable), .status(.ok, body: Data(count: 7)))
        let client = Fixtures.client(stub, retry: [.status([503]), .attempts(max: 3)])
        let response = try await client.send(Fixtures.request("x"))
        #expect(response.metrics.attempts.map(\.number) == [1, 2])
        #expect(response.metrics.attempts.map(\.status) == [.serviceUnavailable, .ok])
        #expect(response.metrics.bytesReceived == 7)
    }
}

@Suite("Client body forms")
struct ClientBodyFormTests {
    /// A transport that answers with a stream of chunks.
    struct StreamingOnly: ClientTransport {
        let chunks: [Data]
        func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
            let stream = AsyncThrowingStream<Data, any Error> { continuation in
                for chunk in chunks { continuation.yield(chunk) }
                continuation.finish()
            }
            return TransportResponse(head: HTTPResponse(status: .ok), body: HTTPBody(stream: stream, length: .unknown))
        }
    }

    @Test("send collects a streamed body")
    func sendCollectsStream() async throws {
        let client = Client(
            baseURL: Fixtures.base, transport: StreamingOnly(chunks: [Data("ab".utf8), Data("cd".utf8)]), retry: .none)
        #expect(try await client.send(Fixtures.request("x")).body == Data("abcd".utf8))
    }

    @Test("send enforces the body limit on a streamed body")
    func sendLimitsStream() async throws {
        let client = Client(
            baseURL: Fixtures.base, transport: StreamingOnly(chunks: [Data(count: 8), Data(count: 8)]), retry: .none)
        let error = await #expect(throws: ClientError.self) {
            _ = try await client.send(Fixtures.request("x"), options: RequestOptions(responseBodyLimit: 10))
        }
        #expect(error?.code == .responseTooLarge)
    }
}

@Suite("Hop-by-hop fields")
struct HopByHopFieldTests {
    @Test("Connection, the fields it names, Keep-Alive, Proxy-Connection and Upgrade never reach a transport")
    func dropped() async throws {
        let stub = StubTransport(fallback: .status(.ok))
        let client = Client(baseURL: URL(string: "https://api.example.com")!, transport: stub)
        _ = try await client.send(
            .get("x").header(.connection, "X-Hop, close").header("X-Hop", "1").header("Keep-Alive", "timeout=5")
                .header("Proxy-Connection", "keep-alive").header("Upgrade", "h2c").header("X-Kept", "yes"))
        let sent = try #require(stub.requests.first).headerFields.map(\.name.canonicalName)
        #expect(sent.contains("x-kept"))
        for name in ["connection", "x-hop", "keep-alive", "proxy-connection", "upgrade"] {
            #expect(!sent.contains(name), "\(name) was sent")
        }
        // A request without them is passed on as it is.
        _ = try await client.send(.get("y").header("X-Kept", "yes").header("X-Other", "1"))
        let plain = try #require(stub.requests.last).headerFields.map(\.name.canonicalName)
        #expect(plain.contains("x-kept") && plain.contains("x-other"))
    }
}
