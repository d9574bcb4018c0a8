import Foundation
import HTTPClient
import HTTPCore
import Testing

@Suite("Transport contract: requests and responses")
struct TransportContractRequestTests {
    @Test(arguments: ContractTransports.all)
    func getReturnsStatusFieldsAndBody(_ subject: any ContractTransport) async throws {
        let request = try TransportFixture.request(
            .get, TransportFixture.httpbin("/anything?q=heron"), fields: ["X-Heron": "one"])
        let response = try await subject.shared.send(request, options: TransportOptions())
        #expect(response.head.status == .ok)
        #expect(response.head.url == request.url)
        #expect(response.head.contentType?.description.hasPrefix("application/json") == true)
        let json = try await TransportFixture.json(response)
        #expect(json["method"] as? String == "GET")
        #expect((json["args"] as? [String: Any])?["q"] as? String == "heron")
        #expect((json["headers"] as? [String: Any])?["X-Heron"] as? String == "one")
    }

    @Test(arguments: ContractTransports.all)
    func postSendsDataBodyWithContentType(_ subject: any ContractTransport) async throws {
        let body = #"{"name":"heron"}"#
        let request = try TransportFixture.request(
            .post, TransportFixture.httpbin("/anything"), fields: ["Content-Type": "application/json"],
            body: HTTPBody(body))
        let response = try await subject.shared.send(request, options: TransportOptions())
        let json = try await TransportFixture.json(response)
        #expect(json["method"] as? String == "POST")
        #expect(json["data"] as? String == body)
        let headers = try #require(json["headers"] as? [String: Any])
        #expect(headers["Content-Type"] as? String == "application/json")
        #expect(headers["Content-Length"] as? String == String(body.utf8.count))
        #expect(response.bytesSent == Int64(body.utf8.count))
    }

    /// RFC 9110 §5.3: repeated fields may go combined or one line each, in order; `Cookie`
    /// goes as one field (RFC 6265 §5.4).
    @Test(arguments: ContractTransports.all)
    func repeatedFieldsArriveInOrder(_ subject: any ContractTransport) async throws {
        let request = try TransportFixture.request(
            .get, TransportFixture.fault("/headers"),
            fields: ["X-Repeat": "first", "X-Other": "middle", "X-Repeat": "second", "Cookie": "a=1", "Cookie": "b=2"])
        let json = try await TransportFixture.json(try await subject.shared.send(request, options: TransportOptions()))
        let repeated = json["x-repeat"] as? [String]
        #expect(repeated == (subject.combinesRepeatedFields ? ["first, second"] : ["first", "second"]))
        #expect(json["x-other"] as? [String] == ["middle"])
        #expect(json["cookie"] as? [String] == ["a=1; b=2"])
    }

    @Test(arguments: ContractTransports.all)
    func framingFieldsOfTheRequestAreReplacedByTheBodyLength(_ subject: any ContractTransport) async throws {
        let request = try TransportFixture.request(
            .post, TransportFixture.fault("/hash"), fields: ["Content-Length": "999", "Transfer-Encoding": "chunked"],
            body: HTTPBody("12345"))
        let json = try await TransportFixture.json(try await subject.shared.send(request, options: TransportOptions()))
        #expect(json["content_length"] as? Int == 5)
        #expect(json["chunked"] as? Bool == false)
        #expect(json["bytes"] as? Int == 5)
    }

    @Test(arguments: ContractTransports.all)
    func bodyWithoutContentTypeIsNotLabelledAsAForm(_ subject: any ContractTransport) async throws {
        let request = try TransportFixture.request(.post, TransportFixture.fault("/headers"), body: HTTPBody("x"))
        let json = try await TransportFixture.json(try await subject.shared.send(request, options: TransportOptions()))
        #expect(json["content-type"] as? [String] == subject.labelForUnlabelledBody.map { [$0] })
    }

    @Test(arguments: ContractTransports.all)
    func emptyFieldValueIsSentEmpty(_ subject: any ContractTransport) async throws {
        let request = try TransportFixture.request(
            .get, TransportFixture.fault("/headers"), fields: ["X-Empty": "", "User-Agent": "heron-test"])
        let json = try await TransportFixture.json(try await subject.shared.send(request, options: TransportOptions()))
        #expect(json["x-empty"] as? [String] == [""])
        #expect(json["user-agent"] as? [String] == ["heron-test"])
    }

    @Test(arguments: ContractTransports.all)
    func gzipBodyIsDecodedDespiteSmallerContentLength(_ subject: any ContractTransport) async throws {
        let recorder = ProgressRecorder()
        let response = try await Client(transport: subject.shared, retry: .none).send(
            try TransportFixture.request(.get, TransportFixture.httpbin("/gzip")),
            options: RequestOptions(progress: recorder.destination))
        let body = response.body
        #expect(response.head.headerFields[.contentEncoding] == "gzip")
        let json = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(json["gzipped"] as? Bool == true)
        let last = try #require(recorder.reports(.download).last)
        #expect(last.completed == Int64(body.count))
        #expect(last.fractionCompleted == 1)
    }

    @Test(arguments: ContractTransports.all, [301, 302, 303, 307, 308])
    func redirectIsReturnedUnfollowed(_ subject: any ContractTransport, status: Int) async throws {
        let request = try TransportFixture.request(
            .get, TransportFixture.httpbin("/redirect-to?url=/get&status_code=\(status)"))
        let response = try await subject.shared.send(request, options: TransportOptions())
        #expect(response.head.status.code == status)
        #expect(response.head.headerFields[.location] == "/get")
    }

    @Test(arguments: ContractTransports.all)
    func cookiesAreNeitherStoredNorSent(_ subject: any ContractTransport) async throws {
        let transport = subject.make()
        let set = try await transport.send(
            try TransportFixture.request(.get, TransportFixture.httpbin("/cookies/set?session=abc")),
            options: TransportOptions())
        #expect(set.head.status == .found)
        #expect(set.head.headerFields[values: .setCookie].contains { $0.hasPrefix("session=abc") })
        let json = try await TransportFixture.json(
            try await transport.send(
                try TransportFixture.request(.get, TransportFixture.httpbin("/cookies")), options: TransportOptions()))
        #expect((json["cookies"] as? [String: Any])?.isEmpty == true)
    }

    @Test(arguments: ContractTransports.all)
    func setCookieFieldsStaySeparate(_ subject: any ContractTransport) async throws {
        let query = "Set-Cookie=a%3D1&Set-Cookie=b%3D2%3B%20Expires%3DWed,%2021%20Oct%202015%2007:28:00%20GMT"
        let response = try await subject.shared.send(
            try TransportFixture.request(.get, TransportFixture.httpbin("/response-headers?\(query)")),
            options: TransportOptions())
        #expect(
            response.head.headerFields[values: .setCookie] == ["a=1", "b=2; Expires=Wed, 21 Oct 2015 07:28:00 GMT"])
    }

    @Test(arguments: ContractTransports.all)
    func headRequestWithContentLengthIsNotTruncated(_ subject: any ContractTransport) async throws {
        let response = try await subject.shared.send(
            try TransportFixture.request(.head, TransportFixture.fault("/bytes?n=1000")), options: TransportOptions())
        #expect(response.head.contentLength == 1000)
        #expect(try await TransportFixture.data(response).isEmpty)
    }

    @Test(
        arguments: ContractTransports.all, ["/relative/path", "ftp://example.com/file", "mailto:someone@example.com"])
    func nonHTTPURLIsRejected(_ subject: any ContractTransport, url: String) async throws {
        let request = HTTPRequest(url: try #require(URL(string: url)))
        let error = await #expect(throws: ClientError.self) {
            try await subject.shared.send(request, options: TransportOptions())
        }
        #expect(error?.code == .invalidRequest, "got \(String(describing: error))")
        #expect(error?.message.contains(url) == true)
    }

    /// RFC 9110 §15.2: a 1xx response precedes the final one and is not the answer.
    @Test(arguments: ContractTransports.all, [true, false])
    func expectContinueGetsTheFinalAnswer(_ subject: any ContractTransport, fault: Bool) async throws {
        let base = fault ? try TransportFixture.fault("") : try TransportFixture.httpbin("")
        let client = Client(baseURL: base, transport: subject.shared)
        let response = try await client.send(
            .post(fault ? "headers" : "post").header("Expect", "100-continue").body(HTTPBody("hello")))
        #expect(response.head.status == .ok)
        let echo = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        if fault {
            #expect((echo?["expect"] as? [String])?.first?.lowercased() == "100-continue")
        } else {
            #expect(echo?["data"] as? String == "hello")
        }
    }

    @Test(
        "a reply that is not HTTP is invalidResponse (the server's fault), tried once",
        arguments: ContractTransports.all)
    func notHTTP(_ subject: any ContractTransport) async throws {
        let client = Client(baseURL: try TransportFixture.fault(""), transport: subject.shared)
        let key = "not-http-\(UUID().uuidString)"
        let error = await #expect(throws: ClientError.self) { _ = try await client.send(.get("not-http?key=\(key)")) }
        #expect(error?.code == .invalidResponse, "got \(String(describing: error))")
        #expect(error?.message.contains("not HTTP") == true)
        #expect(error?.attempts.count == 1)
        let body = try await client.send(.get("count?key=\(key)")).body
        let count = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        #expect(count?["count"] as? Int == 1)
    }

    /// A `401` with `WWW-Authenticate` is a normal response, promptly, and the transport
    /// serves later requests (swift-corelibs-foundation once held such a task for ever).
    @Test(arguments: ContractTransports.all)
    func basicChallengeReturnsTheUnauthorizedResponseWhole(_ subject: any ContractTransport) async throws {
        let transport = subject.make()
        let request = try TransportFixture.request(.get, TransportFixture.httpbin("/basic-auth/u/p"))
        let options = TransportOptions(idleTimeout: .seconds(120))
        try await HoggingStep.timed {
            let (response, body) = try await withWatchdog(seconds: 15) {
                let response = try await transport.send(request, options: options)
                return (response, try await TransportFixture.data(response))
            }
            #expect(response.head.status == .unauthorized)
            #expect(response.head.headerFields[.wwwAuthenticate]?.hasPrefix("Basic") == true)
            #expect(body.count == response.head.contentLength.map(Int.init) ?? body.count)
            let next = try TransportFixture.request(.get, TransportFixture.httpbin("/get"))
            let later = try await withWatchdog(seconds: 15) { try await transport.send(next, options: options) }
            #expect(later.head.status == .ok)
        }
    }
}
