import AsyncHTTPClient
import Foundation
import HTTPClient
import HeronAsyncHTTPClient
import Testing

/// The HeronAsyncHTTPClient example in `Docs/Integrations.md`, run against the local httpbin,
/// and checked to be held here verbatim.
@Suite("The Integrations guide's HeronAsyncHTTPClient example")
struct IntegrationsGuideTests {
    @Test("The guide's example runs against httpbin and both transports shut down as it says")
    func guideExample() async throws {
        let httpbin = try TransportFixture.httpbin("/")

        // The guide's example, verbatim.
        // A transport that owns its HTTPClient: shut it down when done.
        let transport = AsyncHTTPClientTransport()
        let client = Client(baseURL: httpbin, transport: transport, retry: .default)
        let response = try await client.send(.get("anything?q=heron"))
        print(response.status)  // 200 OK

        // A transport over an HTTPClient of yours, shared with other code: you shut it down.
        let shared = HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup,
            configuration: AsyncHTTPClientTransport.clientConfiguration(.init(maximumConnectionsPerHost: 16)))
        let borrowing = AsyncHTTPClientTransport(client: shared)
        let upload = try await Client(baseURL: httpbin, transport: borrowing)
            .send(.post("post").body(HTTPBody("hello")))
        print(upload.status, borrowing.ownsClient)  // 200 OK false

        try await transport.shutdown()
        try await shared.shutdown()
        // End of the example.

        #expect(response.status == .ok)
        #expect("\(response.status)" == "200 OK")
        let echo = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        #expect((echo?["args"] as? [String: Any])?["q"] as? String == "heron")
        #expect(upload.status == .ok)
        #expect(transport.ownsClient && !borrowing.ownsClient)
        // Both clients are shut down: a request now fails (no connection is left open).
        let afterOwned = await #expect(throws: ClientError.self) {
            _ = try await Client(baseURL: httpbin, transport: transport, retry: .none).send(.get("get"))
        }
        #expect(afterOwned?.code == .transport)
        await #expect(throws: ClientError.self) {
            _ = try await Client(baseURL: httpbin, transport: borrowing, retry: .none).send(.get("get"))
        }
    }

    @Test("The guide holds the example this test runs, verbatim")
    func guideHoldsTheExample() throws {
        let guide = try Self.guide()
        // This package's section runs to the next section of the guide.
        let section = try #require(
            guide.components(separatedBy: "\n## HeronAsyncHTTPClient\n").dropFirst().first?
                .components(separatedBy: "\n## ").first)
        let example = try #require(section.components(separatedBy: "### Example").dropFirst().first)
        let block =
            try #require(example.components(separatedBy: "```swift\n").dropFirst().first)
            .components(separatedBy: "```").first ?? ""
        let wanted = Self.lines(block).filter { !$0.hasPrefix("import ") }
        #expect(wanted.count > 10)
        let source = Self.lines(try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8))
        let found = source.indices.contains { start in
            start + wanted.count <= source.count && Array(source[start..<start + wanted.count]) == wanted
        }
        #expect(found, "Docs/Integrations.md's HeronAsyncHTTPClient example differs from the one this test runs")
    }

    /// The guide: `Docs/Integrations.md` in Heron's repository or, in the repository
    /// `scripts/publish-integrations` makes of this package, the README.md it makes from the
    /// guide's section.
    private static func guide() throws -> String {
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let inHeron = package.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Docs/Integrations.md")
        let file =
            FileManager.default.fileExists(atPath: inHeron.path) ? inHeron : package.appendingPathComponent("README.md")
        return try String(contentsOf: file, encoding: .utf8)
    }

    /// The non-blank lines of `text`, trimmed.
    private static func lines(_ text: String) -> [String] {
        text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
