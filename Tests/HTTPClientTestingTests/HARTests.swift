import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import HTTPClient
@testable import HTTPClientTesting

/// What a session against httpbin decodes to, compared between the live run and the replay.
private struct SessionResults: Equatable {
    var title: String
    var echoed: [String: String]
    var missingStatus: Int
    var redirectedURL: String
    var streamedIDs: [Int]
}

@Suite("HAR record and replay")
struct HARTests {
    /// A session of every kind of exchange: JSON, a JSON POST, a 404, a redirect the client
    /// follows, and a body read as a stream.
    private static func runSession(_ client: Client) async throws -> SessionResults {
        struct Slideshow: Decodable { var slideshow: Show }
        struct Show: Decodable { var title: String }
        struct Echo: Decodable { var json: [String: String] }
        struct Line: Decodable { var id: Int }
        struct Got: Decodable { var url: String }

        let shown = try await client.send(.get("json"))
        let title = try JSONDecoder().decode(Slideshow.self, from: shown.body).slideshow.title
        let posted = try await client.send(
            .post("anything").body(HTTPBody(#"{"name":"heron"}"#), contentType: MediaType(parsing: "application/json")))
        let echoed = try JSONDecoder().decode(Echo.self, from: posted.body).json
        let missing = try await client.send(.get("status/404"))
        let redirected = try await client.send(.get("redirect-to?url=%2Fget"))
        let got = try JSONDecoder().decode(Got.self, from: redirected.body).url
        let streamed = try await client.stream(.get("stream/3"))
        var text = Data()
        for try await chunk in streamed.body { text.append(chunk) }
        let ids = try text.split(separator: UInt8(ascii: "\n")).map { try JSONDecoder().decode(Line.self, from: $0).id }
        return SessionResults(
            title: title, echoed: echoed, missingStatus: missing.status.code,
            redirectedURL: URL(string: got)?.path ?? got, streamedIDs: ids)
    }

    private static func temporaryFile(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("heron-\(UUID().uuidString)-\(name)")
    }

    /// Records the httpbin session and writes it to a temporary file.
    private static func recordSession() async throws -> (results: SessionResults, file: URL, recorder: HARRecorder) {
        let recorder = HARRecorder(wrapping: URLSessionTransport())
        let client = Client(baseURL: try TestServers.httpbin(), transport: recorder, retry: .none)
        let results = try await runSession(client)
        let file = temporaryFile("session.har")
        try recorder.write(to: file)
        return (results, file, recorder)
    }

    @Test("a recorded session replays to the same decoded results with the servers stopped")
    func recordedSessionReplays() async throws {
        let (live, file, recorder) = try await Self.recordSession()
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(live.title == "Sample Slide Show")
        #expect(live.echoed == ["name": "heron"])
        #expect(live.missingStatus == 404)
        #expect(live.redirectedURL == "/get")
        #expect(live.streamedIDs == [0, 1, 2])
        #expect(recorder.entries.map(\.response.status) == [200, 200, 404, 302, 200, 200])
        #expect(recorder.entries[3].response.redirectURL == "/get")
        #expect(recorder.entries[3].response.content.comment == nil)
        let streamedEntry = try #require(recorder.entries.last)
        #expect(streamedEntry.response.content.text?.contains(#""id": 2"#) == true)

        // The replay reads the file only: its transport has no network code, and the base URL
        // is the recording's, so the requests are the same.
        let replay = try HARReplayTransport(contentsOf: file)
        let replaying = Client(baseURL: try TestServers.httpbin(), transport: replay, retry: .none)
        #expect(try await Self.runSession(replaying) == live)
    }

    @Test("a HAR written by Heron validates against the HAR 1.2 schema; a broken one does not")
    func validatesAgainstSchema() async throws {
        let (_, file, _) = try await Self.recordSession()
        defer { try? FileManager.default.removeItem(at: file) }
        let schema = SnippetSource.packageRoot.appendingPathComponent("Tests/Fixtures/har-1.2.schema.json")
        let browser = SnippetSource.packageRoot.appendingPathComponent("Tests/Fixtures/browser-export.har")
        let valid = try await Self.validate(file, schema: schema)
        #expect(valid.status == 0, "\(String(decoding: valid.standardError, as: UTF8.self))")
        let exported = try await Self.validate(browser, schema: schema)
        #expect(exported.status == 0, "\(String(decoding: exported.standardError, as: UTF8.self))")

        // The same file with a `send` timing of -1 (allowed only for blocked, dns, connect, ssl)
        // and no response `content`: the validator must reject it.
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: file))
        var json = try #require(object as? [String: Any])
        var log = try #require(json["log"] as? [String: Any])
        var entries = try #require(log["entries"] as? [[String: Any]])
        var timings = try #require(entries[0]["timings"] as? [String: Any])
        timings["send"] = -1
        entries[0]["timings"] = timings
        var response = try #require(entries[1]["response"] as? [String: Any])
        response["content"] = nil
        entries[1]["response"] = response
        log["entries"] = entries
        json["log"] = log
        let broken = Self.temporaryFile("broken.har")
        defer { try? FileManager.default.removeItem(at: broken) }
        try JSONSerialization.data(withJSONObject: json).write(to: broken)
        let rejected = try await Self.validate(broken, schema: schema)
        let complaint = String(decoding: rejected.standardError, as: UTF8.self)
        #expect(rejected.status != 0)
        #expect(complaint.contains("ValidationError"), "\(complaint)")
    }

    /// Runs Python's `jsonschema` on `file`.
    private static func validate(_ file: URL, schema: URL) async throws -> ExternalProcess.Output {
        let python = try #require(ProcessInfo.processInfo.environment["HERON_PYTHON"], "run with scripts/with-servers")
        let script = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[2]))
            jsonschema.Draft7Validator.check_schema(schema)
            jsonschema.validate(json.load(open(sys.argv[1])), schema, cls=jsonschema.Draft7Validator)
            """
        return try await ExternalProcess.run(python, ["-c", script, file.path, schema.path])
    }

    @Test("a browser's export replays to the expected decoded values")
    func browserExportReplays() async throws {
        struct Product: Decodable, Equatable {
            var id: Int
            var name: String
        }
        struct Catalog: Decodable { var products: [Product] }
        struct Cart: Decodable { var cartID: Int }

        let file = SnippetSource.packageRoot.appendingPathComponent("Tests/Fixtures/browser-export.har")
        let replay = try HARReplayTransport(contentsOf: file, matchingBody: true)
        #expect(replay.log.creator.name == "WebInspector")
        let client = Client(baseURL: URL(string: "https://shop.example.com")!, transport: replay)

        let listed = try await client.send(.get("api/products?page=1"))
        let catalog = try JSONDecoder().decode(Catalog.self, from: listed.body)
        #expect(catalog.products == [Product(id: 1, name: "Kettle"), Product(id: 2, name: "Teapot")])
        #expect(listed.status.reasonPhrase == "OK")
        #expect(listed.headerFields[.contentEncoding] == nil)
        #expect(listed.headerFields[.contentLength] == String(listed.body.count))
        #expect(listed.headerFields[.setCookie] == "seen=1; Path=/; Secure")

        let product = try await client.send(.get("api/products/1"))
        #expect(try JSONDecoder().decode(Product.self, from: product.body) == Product(id: 1, name: "Kettle"))

        let added = try await client.send(
            .post("api/cart").body(HTTPBody(#"{"productID":1,"quantity":2}"#)))
        #expect(added.status == .created)
        #expect(try JSONDecoder().decode(Cart.self, from: added.body).cartID == 77)

        let logo = try await client.send(.get("img/logo.png"))
        #expect(logo.body.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        #expect(logo.body.count == 71)
    }

    @Test("a sparse export (no cookies, sizes, timings or statusText; a pseudo-header) replays")
    func sparseExportReplays() async throws {
        let har = #"""
            {"log": {"creator": {"name": "a script"}, "entries": [{
              "request": {"method": "get", "url": "HTTP://Example.com:80"},
              "response": {"status": 204, "headers": [{"name": ":status", "value": "204"}, {"name": "X-Id"}]},
              "_custom": {"any": ["thing"]}}]}}
            """#
        let client = Client(transport: try HARReplayTransport(data: Data(har.utf8)))
        let response = try await client.send(.get("http://example.com/"))
        #expect(response.status == .noContent)
        #expect(response.headerFields.map(\.name.rawName) == ["X-Id"])
        #expect(response.body.isEmpty)
    }

    @Test("credentials, cookies, chosen fields and URL secrets are absent from the file")
    func redaction() async throws {
        let stub = StubTransport(
            fallback: .status(
                .ok,
                headerFields: [
                    try HTTPField(name: .setCookie, value: "sid=setcookiesecret; Path=/; HttpOnly"),
                    try HTTPField(name: "X-Session-Echo", value: "echosecret"),
                ], body: Data(#"{"ok":true}"#.utf8)))
        let recorder = HARRecorder(
            wrapping: stub, redacting: [try HTTPFieldName("X-Api-Key"), try HTTPFieldName("X-Session-Echo")])
        let client = Client(baseURL: URL(string: "https://user:passwordsecret@api.example.com")!, transport: recorder)
        _ = try await client.send(
            .get("v1/items?access_token=urlsecret&page=2")
                .header(.authorization, "Bearer authsecret")
                .header(.proxyAuthorization, "Basic proxysecret")
                .header(.cookie, "sid=cookiesecret; theme=dark")
                .header("X-Api-Key", "apikeysecret"))
        let text = String(decoding: try recorder.harData(), as: UTF8.self)
        for secret in [
            "passwordsecret", "urlsecret", "authsecret", "proxysecret", "cookiesecret", "apikeysecret",
            "setcookiesecret", "echosecret",
        ] {
            #expect(!text.contains(secret), "\(secret) is in the HAR file")
        }
        let entry = try #require(recorder.entries.first)
        let token = recorder.fingerprintKey.keyed(URLRedaction.fingerprint(of: "urlsecret"))
        #expect(token.hasPrefix("***~") && token.count == 8)
        #expect(entry.request.url == "https://user:***@api.example.com/v1/items?access_token=\(token)&page=2")
        #expect(entry.request.queryString.map(\.value) == [token, "2"])
        #expect(entry.request.cookies.map(\.name) == ["sid", "theme"])
        #expect(entry.request.cookies.map(\.value) == ["***", "***"])
        #expect(entry.response.cookies.map(\.name) == ["sid"])
        #expect(entry.request.headers.first { $0.name == "Authorization" }?.value == HARRecorder.redactionMarker)
        #expect(entry.response.content.text == #"{"ok":true}"#)

        // The replay compares redacted URLs: a request with another token (a rotated one)
        // matches when no entry was recorded with its own.
        let replay = try HARReplayTransport(data: try recorder.harData())
        let replaying = Client(baseURL: URL(string: "https://user:passwordsecret@api.example.com")!, transport: replay)
        let again = try await replaying.send(.get("v1/items?access_token=anothertoken&page=2"))
        #expect(String(decoding: again.body, as: UTF8.self) == #"{"ok":true}"#)
    }

    @Test("a body over the limit is passed on whole and recorded without its text, with a comment")
    func bodyLimit() async throws {
        let size = 2 * 1024 * 1024
        let recorder = HARRecorder(wrapping: URLSessionTransport())
        let client = Client(baseURL: try TestServers.faultServer(), transport: recorder, retry: .none)
        let large = try await client.send(.get("bytes?n=\(size)"))
        #expect(large.body.count == size)
        let upload = try await client.send(.post("hash").body(HTTPBody(Data(count: size))))
        #expect(upload.status == .ok)
        let small = try await client.send(.post("hash").body(HTTPBody("small")))
        #expect(small.status == .ok)

        let entries = recorder.entries
        try #require(entries.count == 3)
        #expect(entries[0].response.content.text == nil)
        #expect(entries[0].response.content.size == size)
        #expect(entries[0].response.content.comment == "a body of \(size) bytes, not kept: over the limit of 1048576")
        #expect(entries[1].request.postData?.text == "")
        #expect(entries[1].request.bodySize == size)
        #expect(entries[1].request.postData?.comment == "a body of \(size) bytes, not kept: over the limit of 1048576")
        #expect(entries[1].response.content.text?.isEmpty == false)
        #expect(entries[2].request.postData?.text == "small")
        #expect(try recorder.harData().count < 64 * 1024)

        // Replayed with its body matched, the unkept upload matches any body.
        let replay = try HARReplayTransport(data: try recorder.harData(), matchingBody: true)
        let replaying = Client(baseURL: try TestServers.faultServer(), transport: replay)
        let again = try await replaying.send(.post("hash").body(HTTPBody("another body")))
        #expect(again.body == upload.body)
    }

    @Test("a streamed body left unread is noted; one read later is recorded when it ends")
    func unreadStreamedBody() async throws {
        let recorder = HARRecorder(wrapping: StubTransport(fallback: .status(.ok, body: Data("streamed".utf8))))
        let client = Client(baseURL: URL(string: "https://api.example.com")!, transport: recorder)
        let response = try await client.stream(.get("events"))
        #expect(recorder.entries.first?.response.content.comment == "the body was not read to its end")
        #expect(recorder.entries.first?.response.content.text == nil)
        var received = Data()
        for try await chunk in response.body { received.append(chunk) }
        #expect(received == Data("streamed".utf8))
        #expect(recorder.entries.first?.response.content.comment == nil)
        #expect(recorder.entries.first?.response.content.text == "streamed")
        #expect(recorder.entries.first?.response.content.size == 8)
    }

    /// A log of a stub session: three GETs of /counter answered 1, 2, 3, and POSTs of /search
    /// with bodies `a` and `b`.
    private static func stubLog() async throws -> Data {
        let stub = StubTransport()
        stub.enqueue(
            .status(.ok, body: Data("1".utf8)), .status(.ok, body: Data("2".utf8)), .status(.ok, body: Data("3".utf8)))
        stub.on(.path("/search"), reply: [.status(.ok, body: Data("A".utf8)), .status(.ok, body: Data("B".utf8))])
        let recorder = HARRecorder(wrapping: stub)
        let client = Client(baseURL: URL(string: "https://api.example.com")!, transport: recorder)
        for _ in 0..<3 { _ = try await client.send(.get("counter")) }
        _ = try await client.send(.post("search").body(HTTPBody("a")))
        _ = try await client.send(.post("search").body(HTTPBody("b")))
        return try recorder.harData()
    }

    @Test("repeated requests are served in recorded order, then the last one again")
    func repeatedRequestsInOrder() async throws {
        let client = Client(
            baseURL: URL(string: "https://API.example.com:443")!,
            transport: try HARReplayTransport(data: try await Self.stubLog()))
        var bodies: [String] = []
        for _ in 0..<4 { bodies.append(String(decoding: try await client.send(.get("counter")).body, as: UTF8.self)) }
        #expect(bodies == ["1", "2", "3", "3"])
    }

    @Test("matchingBody chooses the entry by body; without it the first entry answers")
    func matchingBody() async throws {
        let log = try await Self.stubLog()
        let matching = Client(
            baseURL: URL(string: "https://api.example.com")!,
            transport: try HARReplayTransport(data: log, matchingBody: true))
        let second = try await matching.send(.post("search").body(HTTPBody("b")))
        #expect(String(decoding: second.body, as: UTF8.self) == "B")
        let first = try await matching.send(.post("search").body(HTTPBody("a")))
        #expect(String(decoding: first.body, as: UTF8.self) == "A")
        let error = await #expect(throws: ClientError.self) {
            try await matching.send(.post("search").body(HTTPBody("c")))
        }
        #expect(error?.code == .noRecordedResponse)
        #expect(
            error?.message
                == "no recorded response for POST https://api.example.com/search; the nearest recorded request is "
                + "POST https://api.example.com/search, with a different body")

        let anyBody = Client(
            baseURL: URL(string: "https://api.example.com")!, transport: try HARReplayTransport(data: log))
        let answered = try await anyBody.send(.post("search").body(HTTPBody("c")))
        #expect(String(decoding: answered.body, as: UTF8.self) == "A")
    }

    @Test("an unmatched request fails naming it and the nearest recorded request")
    func unmatchedRequest() async throws {
        let file = SnippetSource.packageRoot.appendingPathComponent("Tests/Fixtures/browser-export.har")
        let client = Client(
            baseURL: URL(string: "https://shop.example.com")!, transport: try HARReplayTransport(contentsOf: file))
        let error = await #expect(throws: ClientError.self) {
            try await client.send(.get("api/products/1?token=topsecret"))
        }
        #expect(error?.code == .noRecordedResponse)
        #expect(
            error?.message
                == "no recorded response for GET https://shop.example.com/api/products/1?token=***; the nearest recorded "
                + "request is GET https://shop.example.com/api/products/1")
        #expect(error?.description.contains("topsecret") == false)

        let empty = try HARReplayTransport(
            data: Data(#"{"log":{"version":"1.2","creator":{"name":"x","version":"1"},"entries":[]}}"#.utf8))
        let nothing = await #expect(throws: ClientError.self) {
            try await Client(transport: empty).send(.get("https://api.example.com/"))
        }
        #expect(
            nothing?.message == "no recorded response for GET https://api.example.com/: the HAR file holds no requests")
    }

    @Test("the edit distance and URL normalisation used for matching")
    func matchingHelpers() {
        #expect(HARReplayTransport.editDistance(Array("kitten".utf8), Array("sitting".utf8)) == 3)
        #expect(HARReplayTransport.editDistance([], Array("abc".utf8)) == 3)
        #expect(
            HARReplayTransport.normalized("HTTPS://Example.COM:443?b=2&a=1#top") == "https://example.com/?b=2&a=1")
        #expect(
            HARReplayTransport.normalized("http://example.com:8080/x?token=abc")
                == "http://example.com:8080/x?token=\(URLRedaction.fingerprint(of: "abc"))")
        #expect(
            HARReplayTransport.normalized("http://example.com:8080/x?token=abc", fingerprinting: false)
                == "http://example.com:8080/x?token=***")
        // A value already hidden is kept: a recorded URL normalises to itself.
        let recorded = "https://example.com/x?token=" + URLRedaction.fingerprint(of: "abc")
        #expect(HARReplayTransport.normalized(recorded) == recorded)
    }
}

@Suite("HAR: secrets in JSON bodies, API keys, the file's mode, replay of redacted values")
struct HARSecondRoundTests {
    private static func temporaryFile(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("heron-\(UUID().uuidString)-\(name)")
    }

    @Test("JSON request and response bodies lose their secret members, at any depth, strings and numbers")
    func jsonBodies() async throws {
        let tokens =
            #"{"access_token":"acc3ss","token_type":"Bearer","refresh_token":"r3fresh","#
            + #""nested":{"id_token":"1dt0ken"},"expires_in":3600,"code":918273}"#
        let stub = StubTransport(
            fallback: .status(
                .ok, headerFields: [try HTTPField(name: .contentType, value: "application/json; charset=utf-8")],
                body: Data(tokens.utf8)))
        let recorder = HARRecorder(wrapping: stub)
        let client = Client(transport: recorder, retry: .none)
        let response = try await client.send(
            .post("https://auth.example/login").body(
                HTTPBody(#"{"user":"alice","password":"hunter2","client_secret":"cl1ent"}"#),
                contentType: .json))
        // The caller gets the body as sent by the server: only the file is redacted.
        #expect(String(decoding: response.body, as: UTF8.self) == tokens)
        let text = String(decoding: try recorder.harData(), as: UTF8.self)
        for secret in ["hunter2", "cl1ent", "acc3ss", "r3fresh", "1dt0ken", "918273"] {
            #expect(!text.contains(secret), "\(secret) is in the HAR file")
        }
        let entry = try #require(recorder.entries.first)
        let sent = try #require(entry.request.postData?.text)
        #expect(sent.contains(#""user":"alice""#))
        #expect(
            sent.contains(#""password":"\#(recorder.fingerprintKey.keyed(URLRedaction.fingerprint(of: "hunter2")))""#))
        let kept = try #require(entry.response.content.text)
        #expect(kept.contains(#""token_type":"Bearer""#) && kept.contains(#""expires_in":3600"#))
        // Still JSON: a number's place holds a string.
        #expect((try? JSONSerialization.jsonObject(with: Data(kept.utf8))) != nil)
    }

    @Test("the protocol version the transport reports is recorded, and replayed; one not reported is `unknown`")
    func protocolVersion() async throws {
        var head = HTTPResponse(status: .ok)
        head.version = .http2
        let recorder = HARRecorder(wrapping: StubTransport(fallback: .response(head)))
        _ = try await Client(transport: recorder).send(.get("https://api.example/h2"))
        let entry = try #require(recorder.entries.first)
        #expect(entry.response.httpVersion == "HTTP/2")
        #expect(entry.request.httpVersion == "HTTP/2")
        let replayed = try await Client(transport: try HARReplayTransport(data: try recorder.harData())).send(
            .get("https://api.example/h2"))
        #expect(replayed.head.version == .http2)
        let unknown = HARRecorder(wrapping: StubTransport(fallback: .status(.ok)))
        _ = try await Client(transport: unknown).send(.get("https://api.example/x"))
        let unknownEntry = try #require(unknown.entries.first)
        // HAR 1.2 requires the field: a value, not an empty string, and no version made up.
        #expect(unknownEntry.response.httpVersion == "unknown" && unknownEntry.request.httpVersion == "unknown")
        #expect(HARRecorder.unknownVersion == "unknown")
        let replayedUnknown = try await Client(transport: try HARReplayTransport(data: try unknown.harData())).send(
            .get("https://api.example/x"))
        #expect(replayedUnknown.head.version == nil)
        #expect(HARReplayTransport.version("h2") == .http2)
        #expect(HARReplayTransport.version("http/2.0") == .http2)
        #expect(HARReplayTransport.version("HTTP/1.0") == .http1_0)
        #expect(HARReplayTransport.version("") == nil)
        #expect(HTTPVersion.http1_1.description == "HTTP/1.1" && HTTPVersion.http3.description == "HTTP/3")
    }

    @Test("API-key fields are redacted by default: X-Api-Key, Api-Key, X-Auth-Token")
    func apiKeyFields() async throws {
        let recorder = HARRecorder(wrapping: StubTransport(fallback: .status(.ok)))
        _ = try await Client(transport: recorder).send(
            .get("https://api.example/me").header("X-Api-Key", "k1").header("Api-Key", "k2")
                .header("X-Auth-Token", "k3"))
        let headers = try #require(recorder.entries.first).request.headers
        for name in ["X-Api-Key", "Api-Key", "X-Auth-Token"] {
            #expect(headers.first { $0.name == name }?.value == HARRecorder.redactionMarker, "\(name)")
        }
    }

    @Test("the file is created 0600 even where the umask lets others read, and replaces an older file")
    func fileMode() async throws {
        let recorder = HARRecorder(wrapping: StubTransport(fallback: .status(.ok)))
        _ = try await Client(transport: recorder).send(.get("https://api.example/me"))
        let directory = Self.temporaryFile("har")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("session.har")
        try Data("old".utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        try recorder.write(to: file)
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try HARLog(data: Data(contentsOf: file)).entries.count == 1)
        // Nothing else is left in the directory (no temporary file).
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["session.har"])
        // A directory that cannot be written: a typed error naming the path, nothing left.
        let missing = directory.appendingPathComponent("absent/session.har")
        let error = #expect(throws: ClientError.self) { try recorder.write(to: missing) }
        #expect(error?.code == .fileWriteFailed)
        #expect(error?.message.contains("absent") == true)
    }

    @Test("two requests differing only in a secret query value get their own answers, in any order")
    func secretValuesToldApart() async throws {
        let stub = StubTransport()
        stub.enqueue(.status(.ok, body: Data("first page".utf8)), .status(.ok, body: Data("second page".utf8)))
        let recorder = HARRecorder(wrapping: stub)
        let client = Client(transport: recorder, retry: .none)
        _ = try await client.send(.get("https://api.example/items?token=page-1"))
        _ = try await client.send(.get("https://api.example/items?token=page-2"))
        let text = String(decoding: try recorder.harData(), as: UTF8.self)
        #expect(!text.contains("page-1") && !text.contains("page-2"))
        // With the recording's key, which the file does not hold.
        let replaying = Client(
            transport: try HARReplayTransport(data: try recorder.harData(), fingerprintKey: recorder.fingerprintKey),
            retry: .none)
        // Asked in the other order than recorded: each still gets its own page.
        let second = try await replaying.send(.get("https://api.example/items?token=page-2"))
        let first = try await replaying.send(.get("https://api.example/items?token=page-1"))
        #expect(String(decoding: second.body, as: UTF8.self) == "second page")
        #expect(String(decoding: first.body, as: UTF8.self) == "first page")
    }

    @Test("with matchingBody and the key, a login body replays by its password's fingerprint; another still matches")
    func redactedBodiesMatch() async throws {
        let stub = StubTransport()
        stub.enqueue(.status(.ok, body: Data("alice".utf8)), .status(.forbidden, body: Data("wrong".utf8)))
        let recorder = HARRecorder(wrapping: stub)
        let client = Client(transport: recorder, retry: .none)
        for password in ["right", "wrong"] {
            _ = try await client.send(
                .post("https://api.example/login").body(
                    HTTPBody("user=alice&password=\(password)"), contentType: .formURLEncoded))
        }
        let replay = try HARReplayTransport(
            data: try recorder.harData(), matchingBody: true, fingerprintKey: recorder.fingerprintKey)
        let replaying = Client(transport: replay, retry: .none)
        func login(_ password: String) async throws -> String {
            let response = try await replaying.send(
                .post("https://api.example/login").body(
                    HTTPBody("user=alice&password=\(password)"), contentType: .formURLEncoded))
            return String(decoding: response.body, as: UTF8.self)
        }
        #expect(try await login("wrong") == "wrong")
        #expect(try await login("right") == "alice")
        // A password never recorded matches by the redacted form (both served: the last again).
        #expect(try await login("other") == "wrong")
    }
}

@Suite("HAR: secrets in URL fields and form bodies, replay order")
struct HARSecretsAndOrderTests {
    @Test("Location, Referer and Content-Location values lose their secrets; a form body its secret values")
    func urlFieldsAndForms() async throws {
        let stub = StubTransport()
        stub.enqueue(
            .status(
                .found,
                headerFields: [
                    try HTTPField(name: .location, value: "https://app.example/cb?access_token=t0k3n&state=1"),
                    try HTTPField(name: "Content-Location", value: "https://app.example/x?api_key=k3y"),
                ]))
        let recorder = HARRecorder(wrapping: stub)
        let client = Client(transport: recorder, retry: .none, redirectLimit: 0)
        _ = try await client.send(
            .post("https://auth.example/token#frag")
                .header(.referer, "https://app.example/login?password=p4ss")
                .body(
                    HTTPBody("grant_type=refresh_token&refresh_token=r3fresh&client_id=app"),
                    contentType: .formURLEncoded))
        let text = String(decoding: try recorder.harData(), as: UTF8.self)
        for secret in ["t0k3n", "k3y", "p4ss", "r3fresh"] { #expect(!text.contains(secret), "\(secret) in the HAR") }
        #expect(text.contains("client_id=app"))
        #expect(!text.contains("#frag"))
    }

    @Test("repeated requests with bodies that were not kept are served in recorded order")
    func orderWithoutKeptBodies() async throws {
        let stub = StubTransport()
        stub.enqueue(.status(.ok, body: Data("first".utf8)), .status(.ok, body: Data("second".utf8)))
        let recorder = HARRecorder(wrapping: stub)
        let client = Client(transport: recorder, retry: .none)
        for name in ["a", "b"] {
            let chunks = AsyncStream<Data> { continuation in
                continuation.yield(Data(name.utf8))
                continuation.finish()
            }
            _ = try await client.send(
                .post("https://api.example/items").body(HTTPBody(stream: chunks, length: .known(1))))
        }
        let replay = try HARReplayTransport(data: try recorder.harData(), matchingBody: true)
        let replaying = Client(transport: replay, retry: .none)
        var answers: [String] = []
        for name in ["x", "y"] {
            let response = try await replaying.send(.post("https://api.example/items").body(HTTPBody(name)))
            answers.append(String(decoding: response.body, as: UTF8.self))
        }
        #expect(answers == ["first", "second"])
    }

    @Test("a recorded redacted field is not replayed as a value")
    func markersNotReplayed() async throws {
        let stub = StubTransport(
            fallback: .status(.ok, headerFields: [try HTTPField(name: .setCookie, value: "id=s3cret; Path=/")]))
        let recorder = HARRecorder(wrapping: stub)
        _ = try await Client(transport: recorder).send(.get("https://api.example/me"))
        let replayed = try await Client(transport: try HARReplayTransport(data: try recorder.harData())).send(
            .get("https://api.example/me"))
        #expect(replayed.head.headerFields[.setCookie] == nil)
    }
}
