import HTTPEndpoints
import TestSupport
import Testing

/// Everyday calls judged by what httpbin and the fault server received and sent.
@Suite("Everyday calls against httpbin")
struct EverydayHTTPBinTests {
    struct Echo: Decodable, Sendable, Equatable {
        var method: String
        var url: String
        var args: [String: String]
        var headers: [String: String]
        var data: String
        var form: [String: String]
        var json: [String: String]?
    }

    struct NewUser: Encodable, Sendable {
        var name: String
        var role: String
    }

    static func client() throws -> Client { Client(baseURL: try TestServers.httpbin(), retry: .none) }

    @Test("a fluent request and the same request built by hand reach httpbin the same")
    func fluentEqualsHandBuilt() async throws {
        let client = try Self.client()
        let fluent = HTTPRequest.post("anything/users").query(["team": "core"]).header(.acceptLanguage, "it-it")
            .json(NewUser(name: "Ada", role: "admin"))
        var byHand = HTTPRequest(method: .post, url: URL(string: "anything/users?team=core")!)
        try byHand.headerFields.set(.acceptLanguage, "it-it")
        let encoded = try JSONBodyEncoder().encodeBody(NewUser(name: "Ada", role: "admin"))
        byHand.body = encoded.body
        try byHand.headerFields.set(.contentType, encoded.contentType.description)
        let one = try await client.send(fluent, decoding: Echo.self)
        let other = try await client.send(byHand, decoding: Echo.self)
        #expect(one == other)
        #expect(one.method == "POST" && one.args == ["team": "core"])
        #expect(one.headers["Accept-Language"] == "it-it" && one.headers["Content-Type"] == "application/json")
        #expect(one.json == ["name": "Ada", "role": "admin"])
    }

    @Test("form and multipart modifiers arrive as httpbin's form fields")
    func formAndMultipart() async throws {
        let client = try Self.client()
        let form = try await client.send(.post("anything").form(["a": "1 2", "b": "&"]), decoding: Echo.self)
        #expect(form.form == ["a": "1 2", "b": "&"])
        let multipart = try await client.send(
            .post("anything").multipart { form in
                form.append(name: "title", value: "Heron")
                form.append(name: "note", value: "ünïcode")
            }, decoding: Echo.self)
        #expect(multipart.form == ["title": "Heron", "note": "ünïcode"])
        #expect(multipart.headers["Content-Type"]?.hasPrefix("multipart/form-data; boundary=") == true)
    }

    @Test("a String response honours the charset: UTF-8 from /encoding/utf8, ISO-8859-1 from the fault server")
    func text() async throws {
        let client = try Self.client()
        let raw = try await client.send(.get("encoding/utf8"))
        #expect(try await client.get("encoding/utf8", as: String.self) == String(decoding: raw.body, as: UTF8.self))
        let fault = Client(baseURL: try TestServers.faultServer(), retry: .none)
        let latin1 = Data("Grüße, Señor".data(using: .isoLatin1)!)
        let hex = latin1.map { String(format: "%02x", $0) }.joined()
        let text = try await fault.get("content?type=text/plain;%20charset=iso-8859-1&hex=\(hex)", as: String.self)
        #expect(text == "Grüße, Señor")
    }

    @Test("a value inside an envelope is read at its key path")
    func envelope() async throws {
        let client = try Self.client()
        let name = try await client.send(
            .post("anything").json(["user": ["name": "Ada"]]), decoding: String.self, at: "json.user.name")
        #expect(name == "Ada")
    }

    @Test("a 404 through a decoding send throws with the status and the body")
    func notFound() async throws {
        let client = try Self.client()
        let error = await #expect(throws: EndpointError.self) { _ = try await client.get("status/404", as: Echo.self) }
        #expect(error?.code == .unacceptableStatus)
        #expect(error?.status == .notFound)
        #expect(error?.url?.path.hasSuffix("/status/404") == true)
        let fault = Client(baseURL: try TestServers.faultServer(), retry: .none)
        let body = String(repeating: "b", count: 3_000)
        let hex = Data(body.utf8).map { String(format: "%02x", $0) }.joined()
        let long = await #expect(throws: EndpointError.self) {
            _ = try await fault.get("content?status=422&type=text/plain&hex=\(hex)", as: Echo.self)
        }
        #expect(long?.body == Data(body.utf8))
    }

    @Test("every modifier's error is thrown by the client as invalidRequest, and nothing is sent")
    func modifierErrors() async throws {
        struct Bad: Encodable, Sendable { var value: Double }
        let fault = Client(baseURL: try TestServers.faultServer(), retry: .none)
        let key = "everyday-\(UUID().uuidString)"
        let broken: [HTTPRequest] = [
            .get("http://exa mple.com/delay?seconds=0&key=\(key)"),
            .get("delay?seconds=0&key=\(key)").header(.accept, "a\r\nX-Evil: 1"),
            .get("delay?seconds=0&key=\(key)").header("Bad Name", "v"),
            .post("delay?seconds=0&key=\(key)").json(Bad(value: .infinity)),
            .post("delay?seconds=0&key=\(key)").form(["bad": Bad(value: .nan)]),
            .get("delay?seconds=0&key=\(key)").query(["bad": Bad(value: .nan)]),
            .post("delay?seconds=0&key=\(key)").multipart { form in form.append(name: "a\u{0}b", value: "x") },
        ]
        for (index, request) in broken.enumerated() {
            let error = await #expect(throws: ClientError.self, "request \(index)") {
                _ = try await fault.send(request)
            }
            #expect(error?.code == .invalidRequest)
            #expect(error?.underlying != nil)
        }
        let count = try await fault.send(.get("count?key=\(key)")).json() as? [String: Any]
        #expect(count?["count"] as? Int == 0)
    }
}
