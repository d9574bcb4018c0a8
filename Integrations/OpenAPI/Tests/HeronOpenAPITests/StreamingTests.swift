import Foundation
import HTTPClient
import HeronOpenAPI
import OpenAPIRuntime
import Testing

/// Bodies through the bridge: streamed as they come, both ways, and cancelled promptly.
@Suite("Streamed bodies and cancellation through HeronTransport, against httpbin")
struct StreamingTests {
    static func api(_ responseBodies: HeronTransport.ResponseBodies = .streamed) throws -> Client {
        let url = try TestServers.httpbin()
        let heron = HTTPClient.Client(baseURL: url, retry: .none)
        return Client(serverURL: url, transport: HeronTransport(client: heron, responseBodies: responseBodies))
    }

    @Test("A streamed response reaches the generated code at its head; its bytes come as they drip")
    func streamedResponse() async throws {
        let api = try Self.api()
        let start = ContinuousClock.now
        // 4 bytes, 0.5 s apart: the first at once, the last about 1.5 s later.
        let body = try await api.drip(query: .init(numbytes: 4, duration: 2)).ok.body.binary
        let head = ContinuousClock.now - start
        var arrivals: [Duration] = []
        var bytes = 0
        for try await chunk in body {
            arrivals.append(ContinuousClock.now - start)
            bytes += chunk.count
        }
        #expect(bytes == 4)
        #expect(body.length == .known(4))
        #expect(arrivals.count >= 2)
        // The server sleeps between bytes, so the last came at least a second after the head.
        #expect(try #require(arrivals.last) - head >= .seconds(1))
    }

    @Test("A buffered response reaches the generated code once it has all arrived")
    func bufferedResponse() async throws {
        let api = try Self.api(.buffered)
        let start = ContinuousClock.now
        let body = try await api.drip(query: .init(numbytes: 4, duration: 2)).ok.body.binary
        #expect(ContinuousClock.now - start >= .seconds(1))
        #expect(body.iterationBehavior == .multiple)
        #expect(try await [UInt8](collecting: body, upTo: 16) == Array("****".utf8))
    }

    @Test("A chunked response has no known length and streams whole")
    func chunkedResponse() async throws {
        let api = try Self.api()
        let body = try await api.streamBytes(path: .init(n: 50_000), query: .init(chunkSize: 1_000)).ok.body.binary
        #expect(body.length == .unknown)
        var bytes = 0
        for try await chunk in body { bytes += chunk.count }
        #expect(bytes == 50_000)
    }

    @Test(
        "A streamed request body is sent as it is read: Content-Length when its length is known, chunked otherwise",
        arguments: [true, false])
    func streamedUpload(knownLength: Bool) async throws {
        let api = try Self.api()
        let chunks = (0..<50).map { "chunk \($0) of a streamed upload;" }
        let total = chunks.reduce(0) { $0 + $1.utf8.count }
        let (stream, continuation) = AsyncStream.makeStream(of: OpenAPIRuntime.HTTPBody.ByteChunk.self)
        for chunk in chunks { continuation.yield(ArraySlice(chunk.utf8)) }
        continuation.finish()
        let body = OpenAPIRuntime.HTTPBody(stream, length: knownLength ? .known(Int64(total)) : .unknown)

        let echo = try await api.upload(body: .binary(body)).ok.body.json
        #expect(echo.data == chunks.joined())
        let fields = echo.headers.additionalProperties
        #expect(fields["Content-Length"] == (knownLength ? String(total) : nil))
        #expect(fields["Transfer-Encoding"] == (knownLength ? nil : "chunked"))
        #expect(fields["Content-Type"] == "application/octet-stream")
    }

    @Test("Cancelling the task that awaits an operation ends it promptly with Heron's cancelled")
    func cancelledCall() async throws {
        let api = try Self.api()
        let start = ContinuousClock.now
        let call = Task { try await api.delay(path: .init(seconds: 10)) }
        try await Task.sleep(for: .milliseconds(300))
        call.cancel()
        let result = await call.result
        #expect(ContinuousClock.now - start < .seconds(5))
        #expect(throws: OpenAPIRuntime.ClientError.self) { try result.get() }
        guard case .failure(let error as OpenAPIRuntime.ClientError) = result else { return }
        #expect((error.underlyingError as? HTTPClient.ClientError)?.code == .cancelled)
        #expect(error.operationID == "delay")
    }

    @Test("Cancelling the reader of a streamed body ends it with CancellationError, never a short body")
    func cancelledBody() async throws {
        let api = try Self.api()
        let start = ContinuousClock.now
        // 10 bytes over 5 s; the reader cancels itself after the first.
        let reader = Task {
            let body = try await api.drip(query: .init(numbytes: 10, duration: 5)).ok.body.binary
            var bytes = 0
            for try await chunk in body {
                bytes += chunk.count
                withUnsafeCurrentTask { $0?.cancel() }
            }
            return bytes
        }
        let result = await reader.result
        #expect(ContinuousClock.now - start < .seconds(4))
        #expect(throws: CancellationError.self) { try result.get() }
    }
}
