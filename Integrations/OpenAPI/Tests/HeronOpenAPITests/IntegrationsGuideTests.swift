import Foundation
import HTTPClient
import HeronOpenAPI
import OpenAPIRuntime
import Testing

/// The HeronOpenAPI example of `Docs/Integrations.md`, held verbatim, run against the local
/// httpbin, with `print` captured to check what its comments say it prints.
@Suite("The Integrations guide's HeronOpenAPI example")
struct IntegrationsGuideTests {
    /// The ```swift blocks of the guide's HeronOpenAPI section, but for the Package.swift one.
    static func guideBlocks() throws -> [[String]] {
        let guide = try Snippets.guide()
        let start = try #require(guide.range(of: "\n## HeronOpenAPI\n"))
        let rest = guide[start.upperBound...]
        let section = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
        return Snippets.markdownBlocks(String(section)).filter { $0.first != "// Package.swift" }
    }

    @Test("Every example of the guide's section, the sources and the catalog is held verbatim by a test")
    func everyExampleIsHere() throws {
        let tests = try ["IntegrationsGuideTests.swift", "DocExampleTests.swift"].map {
            try Snippets.read("Tests/HeronOpenAPITests/\($0)")
        }.joined(separator: "\n")
        var examples = try Self.guideBlocks()
        #expect(examples.count == 1)
        for file in ["HeronTransport.swift", "OpenAPIOperationID.swift"] {
            let blocks = Snippets.docCommentBlocks(try Snippets.read("Sources/HeronOpenAPI/\(file)"))
            #expect(blocks.count == 1, "\(file) has \(blocks.count) examples")
            examples += blocks
        }
        let catalog = Snippets.markdownBlocks(
            try Snippets.read("Sources/HeronOpenAPI/HeronOpenAPI.docc/HeronOpenAPI.md"))
        #expect(catalog.count == 1)
        examples += catalog
        for example in examples {
            #expect(
                Snippets.contains(example, in: tests), "no test holds this example:\n\(example.joined(separator: "\n"))"
            )
        }
    }

    @Test("The guide's example runs against httpbin and prints what it says")
    func guideExample() async throws {
        // The example falls back to httpbin.org; a test never does.
        let local = try TestServers.httpbin()
        let printed = Collector<String>()
        @Sendable func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        // The guide's example, verbatim.
        // `Client` is the generated client; Heron's is `HTTPClient.Client`.
        let serverURL = URL(string: ProcessInfo.processInfo.environment["HERON_HTTPBIN_URL"] ?? "https://httpbin.org")!
        let heron = HTTPClient.Client(
            baseURL: serverURL,  // credentials go to this origin only
            interceptors: [BasicAuth(username: "ada", password: "s3cret"), Logging(.line) { print($0) }],
            retry: [.transportErrors(max: 2), .backoff(.exponential(base: 0.25, cap: 2))])
        let api = Client(serverURL: serverURL, transport: HeronTransport(client: heron))

        let echo = try await api.getEcho(query: .init(greeting: "hello", count: 2)).ok.body.json
        // -> GET http://127.0.0.1:…/get?greeting=hello&count=2 (attempt 1)
        // <- 200 OK GET http://127.0.0.1:…/get?greeting=hello&count=2 (0.004 s)
        print(echo.args.additionalProperties["greeting"] ?? "")  // hello

        let auth = try await api.basicAuth(path: .init(user: "ada", password: "s3cret")).ok.body.json
        print(auth.authenticated, auth.user)  // true ada

        switch try await api.status(path: .init(code: 503)) {
        case .serviceUnavailable: print("503, as documented")  // 503, as documented
        case .undocumented(let code, _): print("undocumented", code)
        default: print("another documented status")
        }

        // A Heron error reaches the caller beneath OpenAPIRuntime's ClientError.
        let impatient = Client(
            serverURL: serverURL,
            transport: HeronTransport(client: heron, options: RequestOptions(timeout: .seconds(1))))
        do {
            _ = try await impatient.delay(path: .init(seconds: 3))
        } catch let error as OpenAPIRuntime.ClientError {
            let cause = error.underlyingError as? HTTPClient.ClientError
            print(error.operationID, cause?.code.rawValue ?? "")  // delay timedOut
        }

        #expect(serverURL == local)
        let lines = printed.values
        #expect(
            lines.filter { !$0.hasPrefix("-> ") && !$0.hasPrefix("<- ") } == [
                "hello", "true ada", "503, as documented", "delay timedOut",
            ])
        let base = local.absoluteString
        #expect(
            lines.filter { $0.hasPrefix("-> ") } == [
                "-> GET \(base)/get?greeting=hello&count=2 (attempt 1)",
                "-> GET \(base)/basic-auth/ada/s3cret (attempt 1)",
                "-> GET \(base)/status/503 (attempt 1)",
                "-> GET \(base)/delay/3 (attempt 1)",
            ])
        #expect(
            lines.first { $0.hasPrefix("<- ") }?.hasPrefix("<- 200 OK GET \(base)/get?greeting=hello&count=2 (") == true
        )
    }
}
