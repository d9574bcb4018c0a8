import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import HTTPClient
@testable import HTTPClientTesting

@Suite("StubTransport")
struct StubTransportTests {
    let options = TransportOptions()

    func request(_ url: String, method: HTTPMethod = .get) -> HTTPRequest {
        HTTPRequest(method: method, url: URL(string: url)!)
    }

    @Test("queued replies are used once each, in order, before rules")
    func queueFirst() async throws {
        let stub = StubTransport(fallback: .status(.noContent))
        stub.on(.any, reply: .status(.accepted))
        stub.enqueue(.status(.created), .status(.ok))
        var statuses: [HTTPStatus] = []
        for _ in 0..<3 {
            statuses.append(try await stub.send(request("https://s.test/"), options: options).head.status)
        }
        #expect(statuses == [.created, .ok, .accepted])
    }

    @Test("a rule's replies are used in turn and the last repeats")
    func ruleSequence() async throws {
        let stub = StubTransport()
        stub.on(.path("/a"), reply: [.status(.serviceUnavailable), .status(.ok)])
        var statuses: [HTTPStatus] = []
        for _ in 0..<3 {
            statuses.append(try await stub.send(request("https://s.test/a"), options: options).head.status)
        }
        #expect(statuses == [.serviceUnavailable, .ok, .ok])
    }

    @Test("matchers select by path, method, host and their combination")
    func matchers() async throws {
        let stub = StubTransport(fallback: .status(.notFound))
        stub.on(.method(.post).and(.path("/items")), reply: .status(.created))
        stub.on(.host("other.test"), reply: .status(.accepted))
        #expect(
            try await stub.send(request("https://s.test/items", method: .post), options: options).head.status
                == .created)
        #expect(try await stub.send(request("https://s.test/items"), options: options).head.status == .notFound)
        #expect(try await stub.send(request("https://OTHER.test/x"), options: options).head.status == .accepted)
    }

    @Test("an unanswered request fails with invalidRequest naming it, and is still recorded")
    func unanswered() async throws {
        let stub = StubTransport()
        let error = await #expect(throws: ClientError.self) {
            _ = try await stub.send(self.request("https://s.test/missing"), options: self.options)
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("GET https://s.test/missing") == true)
        #expect(stub.requests.count == 1)
    }

    @Test("a handler computes the reply from the request")
    func handler() async throws {
        let stub = StubTransport(fallback: .handler { .status(.ok, body: Data($0.url.path.utf8)) })
        let response = try await stub.send(request("https://s.test/echo"), options: options)
        #expect(try await response.body?.collect(upTo: 1024) == Data("/echo".utf8))
    }

    @Test("scripted failures are thrown")
    func failure() async throws {
        let stub = StubTransport(fallback: .failure(ClientError(.connectionLost, "reset")))
        let error = await #expect(throws: ClientError.self) {
            _ = try await stub.send(self.request("https://s.test/"), options: self.options)
        }
        #expect(error?.code == .connectionLost)
    }

    @Test("request bodies are recorded and a one-shot stream is consumed")
    func recordsBodies() async throws {
        let stub = StubTransport(fallback: .status(.ok))
        var post = request("https://s.test/", method: .post)
        post.body = .oneShot("hello")
        _ = try await stub.send(post, options: options)
        #expect(stub.recordedRequests.first?.body == Data("hello".utf8))
        let error = await #expect(throws: ClientError.self) { _ = try await stub.send(post, options: self.options) }
        #expect(error?.code == .invalidRequest)
    }

    @Test("recording is thread-safe under concurrent sends")
    func concurrentRecording() async throws {
        let stub = StubTransport(fallback: .status(.ok))
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    _ = try? await stub.send(self.request("https://s.test/\(index)"), options: self.options)
                }
            }
        }
        #expect(Set(stub.requests.map(\.url.path)).count == 200)
    }

    @Test("a delay can be cancelled and throws CancellationError")
    func delayCancellation() async throws {
        let stub = StubTransport(fallback: .status(.ok, delay: .seconds(10)))
        let task = Task { try await stub.send(self.request("https://s.test/"), options: self.options) }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
    }
}
