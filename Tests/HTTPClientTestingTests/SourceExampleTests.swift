import Foundation
import HTTPClient
import HTTPCore
import TestSupport
import Testing

@testable import HTTPClientTesting

// Each test holds, verbatim, the ```swift example of one documentation comment of
// Sources/HTTPClientTesting and runs it (against the local httpbin of `scripts/test` where
// it sends a request), with `print` captured. `everySourceExampleIsHere` fails when an
// example is missing from this file.

@Suite("Examples in the HTTPClientTesting documentation comments")
struct TestingSourceExampleTests {
    @Test("every ```swift example of Sources/HTTPClientTesting appears verbatim in this file")
    func everySourceExampleIsHere() throws {
        let (count, untested) = try SnippetSource.untestedDocCommentExamples(
            under: "Sources/HTTPClientTesting", testedIn: ["Tests/HTTPClientTestingTests/SourceExampleTests.swift"])
        for (file, block) in untested {
            Issue.record("example in \(file) is not tested:\n\(block.joined(separator: "\n"))")
        }
        #expect(count >= 4)
    }

    @Test("StubTransport")
    func stubTransport() async throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let stub = StubTransport()
        stub.on(.path("/users/42"), reply: .status(.ok, body: Data(#"{"id":42}"#.utf8)))
        stub.on(.method(.post), reply: [.status(.serviceUnavailable), .status(.created)])
        let client = Client(baseURL: URL(string: "https://api.test")!, transport: stub)
        _ = try await client.send(HTTPRequest(url: URL(string: "users/42")!))
        print(stub.requests.map(\.url.path))  // ["/users/42"]

        #expect(printed == [#"["/users/42"]"#])
    }

    @Test("HARLog")
    func harLog() throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let har = #"{"log":{"version":"1.2","creator":{"name":"Firefox","version":"128"},"entries":[]}}"#
        let log = try HARLog(data: Data(har.utf8))
        print(log.creator.name, log.entries.count)  // Firefox 0

        #expect(printed == ["Firefox 0"])
    }

    @Test("HARRecorder")
    func harRecorder() async throws {
        let baseURL = try TestServers.httpbin()
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let recorder = HARRecorder(wrapping: URLSessionTransport(), redacting: [try HTTPFieldName("X-Api-Key")])
        let client = Client(baseURL: baseURL, transport: recorder)
        _ = try await client.send(HTTPRequest(url: URL(string: "json")!))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("session.har")
        try recorder.write(to: file)
        print(recorder.entries.map(\.response.status))  // [200]

        #expect(printed == ["[200]"])
        #expect(try HARLog(data: Data(contentsOf: file)).creator.name == "Heron")
    }

    @Test("HARReplayTransport")
    func harReplayTransport() async throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        let recorder = HARRecorder(wrapping: StubTransport(fallback: .status(.ok, body: Data(#"{"id":7}"#.utf8))))
        _ = try await Client(transport: recorder).send(.get("https://api.example.com/users/7"))
        let harFile = FileManager.default.temporaryDirectory.appendingPathComponent("heron-\(UUID().uuidString).har")
        try recorder.write(to: harFile)
        defer { try? FileManager.default.removeItem(at: harFile) }

        let replay = try HARReplayTransport(contentsOf: harFile)
        let client = Client(baseURL: URL(string: "https://api.example.com")!, transport: replay)
        let response = try await client.send(HTTPRequest(url: URL(string: "users/7")!))
        print(response.status, String(decoding: response.body, as: UTF8.self))  // 200 OK {"id":7}

        #expect(printed == [#"200 OK {"id":7}"#])
    }

    @Test("HARFingerprintKey")
    func harFingerprintKey() async throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let key = HARFingerprintKey.random()  // key.base64 is kept as a secret, never in the file
        let recorder = HARRecorder(wrapping: StubTransport(fallback: .status(.ok)), fingerprintKey: key)
        _ = try await Client(transport: recorder).send(.get("https://api.example/items?token=page-2"))
        let har = try recorder.harData()
        let replay = try HARReplayTransport(data: har, fingerprintKey: key)
        let response = try await Client(transport: replay).send(.get("https://api.example/items?token=page-2"))
        print(response.status, String(decoding: har, as: UTF8.self).contains("page-2"))  // 200 OK false

        #expect(printed == ["200 OK false"])
    }
}
