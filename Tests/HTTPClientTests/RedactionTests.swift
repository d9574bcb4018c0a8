import Foundation
import HTTPClient
import HTTPClientTesting
import Testing

/// No description, error, log line, curl command or event prints a URL's password or a
/// secret query value.
@Suite("Secrets are never printed")
struct RedactionTests {
    static let secretURL = URL(
        string: "https://alice:s3cret@api.example.com/v1/items?API_Key=k3y&page=2&signature=s1g")!

    static func expectNoSecret(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for secret in ["s3cret", "k3y", "s1g"] {
            #expect(!text.contains(secret), "\(secret) printed in: \(text)", sourceLocation: sourceLocation)
        }
        #expect(text.contains("page=2"), sourceLocation: sourceLocation)
    }

    @Test("a request, a client error and a curl command hide the password and secret query values")
    func descriptions() async throws {
        let request = HTTPRequest(url: Self.secretURL)
        Self.expectNoSecret(request.description)
        Self.expectNoSecret(request.curlCommand())
        #expect(request.curlCommand(revealingURL: true).contains("s3cret"))
        let stub = StubTransport(fallback: .status(.notFound))
        let client = Client(transport: stub, interceptors: [ResponseValidation()], retry: .none)
        let error = await #expect(throws: ClientError.self) { _ = try await client.send(request) }
        Self.expectNoSecret(error?.description ?? "")
        #expect(error?.description.contains("alice:***@") == true)
    }

    @Test("Logging hides the password, the default secret names and the ones it is given")
    func logging() async throws {
        let lines = Lines()
        let stub = StubTransport(fallback: .status(.ok))
        let logging = Logging(.headers, secretQueryNames: ["page"]) { lines.add($0) }
        let client = Client(transport: stub, interceptors: [logging], retry: .none)
        _ = try await client.send(HTTPRequest(url: Self.secretURL))
        let text = lines.all.joined(separator: "\n")
        for secret in ["s3cret", "k3y", "s1g", "page=2"] { #expect(!text.contains(secret), "\(secret) in \(text)") }
        #expect(text.contains("page=***"))
    }

    @Test("a redirect's event and a redirect-limit error hide the target's secrets")
    func redirects() async throws {
        let stub = StubTransport()
        stub.on(
            .any,
            reply: .status(
                .found, headerFields: [try HTTPField(name: .location, value: Self.secretURL.absoluteString)]))
        let events = Lines()
        let client = Client(
            transport: stub, observers: [EventObserver { events.add($0.description) }], retry: .none, redirectLimit: 1)
        let error = await #expect(throws: ClientError.self) {
            _ = try await client.send(HTTPRequest(url: URL(string: "https://api.example.com/start")!))
        }
        Self.expectNoSecret(error?.description ?? "")
        try await Task.sleep(for: .milliseconds(200))
        let text = events.all.joined(separator: "\n")
        #expect(text.contains("redirected"))
        for secret in ["s3cret", "k3y", "s1g"] { #expect(!text.contains(secret)) }
    }

    @Test("a curl command hides Authorization, Cookie and Proxy-Authorization values by default")
    func curlFields() throws {
        let request = HTTPRequest(url: URL(string: "https://api.example.com/")!)
            .header(.authorization, "Bearer t0ken-a")
            .header(.cookie, "session=c00kie")
            .header("Proxy-Authorization", "Basic pr0xy")
            .header(.accept, "application/json")
        let command = request.curlCommand()
        for secret in ["t0ken-a", "c00kie", "pr0xy"] { #expect(!command.contains(secret), "\(command)") }
        #expect(command.contains("application/json"))
    }

    @Test("every observer event and the metrics of a call with secrets print none of them")
    func events() async throws {
        let events = Lines()
        let stub = StubTransport(fallback: .status(.internalServerError))
        let client = Client(
            transport: stub, observers: [EventObserver { events.add($0.description) }],
            retry: [.status([500], max: 1)])
        let request = HTTPRequest(url: Self.secretURL)
            .header(.authorization, "Bearer t0ken-a").header(.cookie, "session=c00kie")
            .header("Proxy-Authorization", "Basic pr0xy")
        let error = await #expect(throws: ClientError.self) { _ = try await client.send(request) }
        try await Task.sleep(for: .milliseconds(200))
        let text = events.all.joined(separator: "\n") + "\n" + (error?.description ?? "")
        for kind in ["prepared", "sent", "received", "retry", "finished"] { #expect(text.contains(kind), "\(text)") }
        Self.expectNoSecret(text)
        for secret in ["t0ken-a", "c00kie", "pr0xy"] { #expect(!text.contains(secret), "\(text)") }
    }

    @Test("query names marked secret for the process are hidden in descriptions, errors, events and curl")
    func markedNames() async throws {
        URLRedaction.markSecret(queryNames: ["Heron_Test_Session"])
        #expect(URLRedaction.hiddenQueryNames.contains("heron_test_session"))
        let url = URL(string: "https://api.example.com/v1?heron_test_session=m4rked&page=2")!
        let request = HTTPRequest(url: url)
        let events = Lines()
        let client = Client(
            transport: StubTransport(fallback: .status(.notFound)), interceptors: [ResponseValidation()],
            observers: [EventObserver { events.add($0.description) }], retry: .none)
        let error = await #expect(throws: ClientError.self) { _ = try await client.send(request) }
        try await Task.sleep(for: .milliseconds(200))
        for text in [request.description, request.curlCommand(), error?.description ?? "m4rked"] + events.all {
            #expect(!text.contains("m4rked"), "\(text)")
        }
        #expect(request.description.contains("heron_test_session=***&page=2"))
    }

    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [String] = []
        var all: [String] { lock.withLock { stored } }
        func add(_ line: String) { lock.withLock { stored.append(line) } }
    }

    @Test("fragments, ; separators and cloud signature parameters are redacted too")
    func moreSecrets() {
        let url = URL(string: "https://b.example/cb?a=1;token=t0k&X-Amz-Signature=s1g#access_token=f4g&state=ok")!
        let text = URLRedaction.display(url)
        for secret in ["t0k", "s1g", "f4g"] { #expect(!text.contains(secret), "\(text)") }
        #expect(text.contains("a=1;token=***") && text.contains("state=ok"))
    }
}
