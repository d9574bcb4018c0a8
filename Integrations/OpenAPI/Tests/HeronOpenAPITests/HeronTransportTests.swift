import Foundation
import HTTPClient
import HTTPClientTesting
import HTTPTypes
import HeronOpenAPI
import OpenAPIRuntime
import Testing

/// HeronTransport on its own, over Heron's StubTransport: what request it makes of an OpenAPI
/// one, and what it hands back. No server needed.
@Suite("HeronTransport's requests and responses, over a stub transport")
struct HeronTransportTests {
    static let server = URL(string: "https://api.example.com/v1")!

    /// Sends `path` with `body` through a client over `stub`; returns what the generated code
    /// would get.
    static func send(
        _ path: String, method: HTTPTypes.HTTPRequest.Method = .get, fields: HTTPTypes.HTTPFields = [:],
        body: OpenAPIRuntime.HTTPBody? = nil, baseURL: URL = server, stub: StubTransport,
        retry: RetryStack = .none, interceptors: [any Interceptor] = []
    ) async throws -> (HTTPTypes.HTTPResponse, OpenAPIRuntime.HTTPBody?) {
        let client = HTTPClient.Client(transport: stub, interceptors: interceptors, retry: retry)
        let request = HTTPTypes.HTTPRequest(
            method: method, scheme: nil, authority: nil, path: path, headerFields: fields)
        return try await HeronTransport(client: client).send(
            request, body: body, baseURL: baseURL, operationID: "anOperation")
    }

    @Test(
        "The request URL is the server URL with the operation's path and query appended",
        arguments: [
            ("https://api.example.com", "/pets?limit=1", "https://api.example.com/pets?limit=1"),
            ("https://api.example.com/", "/pets", "https://api.example.com/pets"),
            ("https://api.example.com/v1", "/pets/a%20b", "https://api.example.com/v1/pets/a%20b"),
            ("https://api.example.com/v1/", "/pets", "https://api.example.com/v1/pets"),
            ("http://127.0.0.1:8080/v1?key=k", "/pets?limit=1", "http://127.0.0.1:8080/v1/pets?key=k&limit=1"),
            ("http://127.0.0.1:8080/v1?key=k", "/pets", "http://127.0.0.1:8080/v1/pets?key=k"),
        ])
    func requestURL(server: String, path: String, expected: String) async throws {
        let stub = StubTransport(fallback: .status(.ok))
        _ = try await Self.send(path, baseURL: try #require(URL(string: server)), stub: stub)
        #expect(stub.requests.map(\.url.absoluteString) == [expected])
    }

    @Test(
        "A path or server URL that cannot make a request URL is refused as invalidRequest, nothing sent",
        arguments: [
            ("https://api.example.com", "pets"), ("https://api.example.com", "/a b"),
            ("https://api.example.com", "/pets#top"), ("https://api.example.com", "//other.example.com/pets"),
            ("relative/v1", "/pets"), ("file:///v1", "/pets"),
        ])
    func invalidTarget(server: String, path: String) async throws {
        let stub = StubTransport(fallback: .status(.ok))
        let error = await #expect(throws: HTTPClient.ClientError.self) {
            _ = try await Self.send(path, baseURL: try #require(URL(string: server)), stub: stub)
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains(path) == true)
        #expect(stub.requests.isEmpty)
    }

    @Test("Method and header fields arrive in order, repeats and spelling kept; the operation ID is a value")
    func headAndOperation() async throws {
        let stub = StubTransport(fallback: .status(.ok))
        let seen = Collector<String>()
        var fields = HTTPTypes.HTTPFields()
        fields.append(HTTPTypes.HTTPField(name: HTTPTypes.HTTPField.Name("X-Tag")!, value: "a"))
        fields.append(HTTPTypes.HTTPField(name: .accept, value: "application/json"))
        fields.append(HTTPTypes.HTTPField(name: HTTPTypes.HTTPField.Name("x-tag")!, value: "b"))
        _ = try await Self.send(
            "/files", method: HTTPTypes.HTTPRequest.Method("PROPFIND")!, fields: fields, stub: stub,
            interceptors: [OperationStamp(seen: seen)])
        let sent = try #require(stub.requests.first)
        #expect(sent.method.rawValue == "PROPFIND")
        #expect(sent.headerFields.map(\.name.rawName) == ["X-Tag", "Accept", "x-tag", "X-Operation"])
        #expect(sent.headerFields[values: try HTTPFieldName("x-tag")] == ["a", "b"])
        #expect(seen.values == ["anOperation #1"])
    }

    @Test("A body already in memory (one chunk of its known length) is handed over as bytes")
    func inMemoryBody() async throws {
        let stub = StubTransport(fallback: .status(.ok))
        _ = try await Self.send("/items", method: .post, body: OpenAPIRuntime.HTTPBody("{\"a\":1}"), stub: stub)
        let body = try #require(stub.requests.first?.body)
        guard case .data(let data) = body.source else {
            Issue.record("the body is \(body.source), not bytes")
            return
        }
        #expect(data == Data("{\"a\":1}".utf8))
        #expect(body.length == .known(7))
    }

    @Test("A body in several chunks is streamed, its length and replayability kept, and re-sent on a retry")
    func replayableStream() async throws {
        let stub = StubTransport()
        stub.enqueue(.status(.serviceUnavailable), .status(.ok))
        let chunks: [OpenAPIRuntime.HTTPBody.ByteChunk] = [ArraySlice("abc".utf8), ArraySlice("defg".utf8)]
        let body = OpenAPIRuntime.HTTPBody(chunks.async, length: .known(7), iterationBehavior: .multiple)
        let (response, _) = try await Self.send(
            "/items/1", method: .put, body: body, stub: stub, retry: [.status([503]), .attempts(max: 2)])
        #expect(response.status == .ok)
        let sent = stub.recordedRequests
        #expect(sent.map(\.body) == [Data("abcdefg".utf8), Data("abcdefg".utf8)])
        let heronBody = try #require(sent.first?.request.body)
        guard case .stream = heronBody.source else {
            Issue.record("the body is \(heronBody.source), not a stream")
            return
        }
        #expect(heronBody.length == .known(7))
        #expect(heronBody.iterationBehavior == .multiple)
    }

    @Test("A one-shot body stays one-shot, of unknown length when so declared")
    func oneShotStream() async throws {
        let stub = StubTransport(fallback: .status(.ok))
        let (stream, continuation) = AsyncStream.makeStream(of: OpenAPIRuntime.HTTPBody.ByteChunk.self)
        continuation.yield(ArraySlice("one-shot".utf8))
        continuation.finish()
        _ = try await Self.send(
            "/items", method: .post, body: OpenAPIRuntime.HTTPBody(stream, length: .unknown), stub: stub)
        let sent = try #require(stub.recordedRequests.first)
        #expect(sent.body == Data("one-shot".utf8))
        #expect(sent.request.body?.length == .unknown)
        #expect(sent.request.body?.iterationBehavior == .single)
    }

    @Test("A body shorter than its declared length fails the call instead of sending a wrong body")
    func lengthMismatch() async throws {
        let stub = StubTransport(fallback: .status(.ok))
        let chunks: [OpenAPIRuntime.HTTPBody.ByteChunk] = [ArraySlice("abc".utf8), ArraySlice("de".utf8)]
        let body = OpenAPIRuntime.HTTPBody(chunks.async, length: .known(10), iterationBehavior: .multiple)
        let error = await #expect(throws: HTTPClient.ClientError.self) {
            _ = try await Self.send("/items/1", method: .put, body: body, stub: stub)
        }
        #expect(error?.code == .invalidRequest)
        #expect((error?.underlying as? HTTPCoreError)?.code == .bodyLengthMismatch)
    }

    @Test("The response head keeps its status, reason and repeated fields; its body its length")
    func responseHead() async throws {
        let fields = try HTTPCore.HTTPFields([
            "Set-Cookie": "a=1", "Content-Type": "text/plain", "set-cookie": "b=2", "Content-Length": "5",
        ])
        let stub = StubTransport(
            fallback: .status(
                try HTTPStatus(code: 299, reasonPhrase: "Fine"), headerFields: fields, body: Data("hello".utf8)))
        let (head, body) = try await Self.send("/x", stub: stub)
        #expect(head.status.code == 299)
        #expect(head.status.reasonPhrase == "Fine")
        #expect(
            head.headerFields.map(\.name.rawName) == ["Set-Cookie", "Content-Type", "set-cookie", "Content-Length"])
        #expect(head.headerFields[values: .setCookie] == ["a=1", "b=2"])
        let received = try #require(body)
        #expect(received.length == .known(5))
        #expect(try await String(collecting: received, upTo: 100) == "hello")
    }

    @Test("A coded body's Content-Length is not its length as read")
    func codedBodyLength() async throws {
        let fields = try HTTPCore.HTTPFields(["Content-Encoding": "gzip", "Content-Length": "3"])
        let stub = StubTransport(fallback: .status(.ok, headerFields: fields, body: Data("abcdef".utf8)))
        let (_, body) = try await Self.send("/x", stub: stub)
        #expect(body?.length == .unknown)
    }

    @Test(
        "No body for a response to HEAD, nor for 204 and 304", arguments: [("HEAD", 200), ("GET", 204), ("GET", 304)])
    func noContent(method: String, status: Int) async throws {
        let stub = StubTransport(fallback: .status(try HTTPStatus(code: status)))
        let (head, body) = try await Self.send("/x", method: HTTPTypes.HTTPRequest.Method(method)!, stub: stub)
        #expect(head.status.code == status)
        #expect(body == nil)
    }

    @Test("A 404 with a body is handed over like any response, body included")
    func errorStatusWithBody() async throws {
        let stub = StubTransport(fallback: .status(.notFound, body: Data("{\"error\":\"no such pet\"}".utf8)))
        let (head, body) = try await Self.send("/pets/9", stub: stub)
        #expect(head.status == .notFound)
        #expect(try await String(collecting: try #require(body), upTo: 100) == "{\"error\":\"no such pet\"}")
    }
}

extension Array where Element: Sendable {
    /// The elements as an asynchronous sequence that can be iterated any number of times.
    var async: AsyncSyncSequence<Self> { AsyncSyncSequence(self) }
}

/// A synchronous sequence read as an asynchronous one.
struct AsyncSyncSequence<Base: Sequence & Sendable>: AsyncSequence, Sendable where Base.Element: Sendable {
    typealias Element = Base.Element

    let base: Base

    init(_ base: Base) { self.base = base }

    func makeAsyncIterator() -> Iterator { Iterator(base: base.makeIterator()) }

    struct Iterator: AsyncIteratorProtocol {
        var base: Base.Iterator

        mutating func next() async -> Base.Element? { base.next() }
    }
}
