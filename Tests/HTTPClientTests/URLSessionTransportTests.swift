import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import HTTPClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Shared pieces of the URLSessionTransport integration tests.
enum TransportFixture {
    /// One transport for the tests that need no special configuration.
    static let transport = URLSessionTransport()

    /// A URL on the local fault server, such as `fault("/bytes?n=10")`.
    static func fault(_ pathAndQuery: String) throws -> URL {
        try #require(URL(string: try TestServers.faultServer().absoluteString + pathAndQuery))
    }

    /// A URL on the local httpbin, such as `httpbin("/gzip")`.
    static func httpbin(_ pathAndQuery: String) throws -> URL {
        try #require(URL(string: try TestServers.httpbin().absoluteString + pathAndQuery))
    }

    /// The bytes of a response body, read to its end.
    static func data(_ response: TransportResponse) async throws -> Data {
        try await response.body?.collect(upTo: 1 << 30) ?? Data()
    }

    /// A response body decoded as a JSON object.
    static func json(_ response: TransportResponse) async throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: await data(response)) as? [String: Any])
    }

    /// The bytes of the fault server's pattern: byte `i` is `i % 256`.
    static func pattern(_ count: Int, offset: Int = 0) -> Data {
        let block = Data((0..<512).map { UInt8(truncatingIfNeeded: $0 + offset) })
        var data = Data(capacity: count)
        while data.count < count { data.append(block.prefix(min(256, count - data.count))) }
        return data
    }

    /// `count` random bytes, so a reordered or repeated chunk changes a hash. Made eight
    /// bytes at a time: tests run unoptimised, on few cooperative threads.
    static func randomData(_ count: Int) -> Data {
        var data = Data(count: count)
        var generator = SystemRandomNumberGenerator()
        data.withUnsafeMutableBytes { raw in
            var offset = 0
            while offset + 8 <= count {
                raw.storeBytes(of: generator.next(), toByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            while offset < count {
                raw[offset] = UInt8.random(in: 0...255, using: &generator)
                offset += 1
            }
        }
        return data
    }

    /// Runs blocking `work` on a thread of its own, keeping Swift's few cooperative threads
    /// free for the transfers under test. Not on `DispatchQueue.global()`: on Linux its
    /// threads are the cooperative pool's.
    static func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue(label: "Heron.tests.blocking").async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// The SHA-256 of `data`, in lowercase hex, computed by `sha256sum`.
    static func sha256(_ data: Data) async throws -> String {
        let file = temporaryFile()
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try await sha256(ofFile: file)
    }

    /// The SHA-256 of the file at `url`, in lowercase hex, computed by `sha256sum`.
    static func sha256(ofFile url: URL) async throws -> String {
        try await offThePool { try runSHA256(url) }
    }

    private static func runSHA256(_ url: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sha256sum", url.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output.prefix(64), as: UTF8.self)
    }

    /// A fresh path in the temporary directory (nothing is created).
    static func temporaryFile(_ name: String = "body") -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("heron-\(UUID().uuidString)-\(name)")
    }

    /// A fresh empty directory in the temporary directory.
    static func temporaryDirectory() throws -> URL {
        let url = temporaryFile("dir")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A request for `url` with `fields` and `body`.
    static func request(
        _ method: HTTPMethod = .get, _ url: URL, fields: KeyValuePairs<String, String> = [:], body: HTTPBody? = nil
    ) throws -> HTTPRequest {
        HTTPRequest(method: method, url: url, headerFields: try HTTPFields(fields), body: body)
    }
}

/// Collects progress reports from any thread.
final class ProgressRecorder: @unchecked Sendable {
    // Invariant: `events` is only touched under `lock`.
    private let lock = NSLock()
    private var events: [TransferProgress] = []

    /// The callback to pass in ``TransportOptions/progress``.
    var destination: ProgressDestination { .callback(callback) }

    /// The callback to pass in ``TransportOptions/progress``.
    var callback: @Sendable (TransferProgress) -> Void { { [self] event in record(event) } }

    private func record(_ event: TransferProgress) {
        lock.lock()
        events.append(event)
        lock.unlock()
    }

    /// The reports for `direction`, in order.
    func reports(_ direction: TransferProgress.Direction) -> [TransferProgress] {
        lock.lock()
        defer { lock.unlock() }
        return events.filter { $0.direction == direction }
    }
}

@Suite("URLSessionTransport: requests and responses")
struct URLSessionTransportTests {
    let transport = TransportFixture.transport

    @Test func getReturnsStatusFieldsAndBody() async throws {
        let request = try TransportFixture.request(
            .get, TransportFixture.httpbin("/anything?q=heron"), fields: ["X-Heron": "one"])
        let response = try await transport.send(request, options: TransportOptions())
        #expect(response.head.status == .ok)
        #expect(response.head.contentType?.description.hasPrefix("application/json") == true)
        let json = try await TransportFixture.json(response)
        #expect(json["method"] as? String == "GET")
        #expect((json["args"] as? [String: Any])?["q"] as? String == "heron")
        #expect((json["headers"] as? [String: Any])?["X-Heron"] as? String == "one")
    }

    @Test func postSendsDataBodyWithContentType() async throws {
        let body = #"{"name":"heron"}"#
        let request = try TransportFixture.request(
            .post, TransportFixture.httpbin("/anything"), fields: ["Content-Type": "application/json"],
            body: HTTPBody(body))
        let response = try await transport.send(request, options: TransportOptions())
        let json = try await TransportFixture.json(response)
        #expect(json["method"] as? String == "POST")
        #expect(json["data"] as? String == body)
        let headers = try #require(json["headers"] as? [String: Any])
        #expect(headers["Content-Type"] as? String == "application/json")
        #expect(headers["Content-Length"] as? String == String(body.utf8.count))
        #expect(response.bytesSent == Int64(body.utf8.count))
    }

    @Test func repeatedFieldsArriveCombinedInOrder() async throws {
        let request = try TransportFixture.request(
            .get, TransportFixture.fault("/headers"),
            fields: ["X-Repeat": "first", "X-Other": "middle", "X-Repeat": "second", "Cookie": "a=1", "Cookie": "b=2"])
        let json = try await TransportFixture.json(try await transport.send(request, options: TransportOptions()))
        #expect(json["x-repeat"] as? [String] == ["first, second"])
        #expect(json["x-other"] as? [String] == ["middle"])
        #expect(json["cookie"] as? [String] == ["a=1; b=2"])
    }

    @Test func framingFieldsOfTheRequestAreReplacedByTheBodyLength() async throws {
        let request = try TransportFixture.request(
            .post, TransportFixture.fault("/hash"), fields: ["Content-Length": "999", "Transfer-Encoding": "chunked"],
            body: HTTPBody("12345"))
        let json = try await TransportFixture.json(try await transport.send(request, options: TransportOptions()))
        #expect(json["content_length"] as? Int == 5)
        #expect(json["chunked"] as? Bool == false)
        #expect(json["bytes"] as? Int == 5)
    }

    @Test func bodyWithoutContentTypeIsNotLabelledAsAForm() async throws {
        let request = try TransportFixture.request(.post, TransportFixture.fault("/headers"), body: HTTPBody("x"))
        let json = try await TransportFixture.json(try await transport.send(request, options: TransportOptions()))
        #expect(json["content-type"] as? [String] == ["application/octet-stream"])
    }

    @Test func emptyFieldValueIsSentEmpty() async throws {
        let request = try TransportFixture.request(
            .get, TransportFixture.fault("/headers"), fields: ["X-Empty": "", "User-Agent": "heron-test"])
        let json = try await TransportFixture.json(try await transport.send(request, options: TransportOptions()))
        #expect(json["x-empty"] as? [String] == [""])
        #expect(json["user-agent"] as? [String] == ["heron-test"])
    }

    @Test func gzipBodyIsDecodedDespiteSmallerContentLength() async throws {
        let recorder = ProgressRecorder()
        let response = try await Client(transport: transport, retry: .none).send(
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

    @Test(arguments: [301, 302, 303, 307, 308])
    func redirectIsReturnedUnfollowed(status: Int) async throws {
        let request = try TransportFixture.request(
            .get, TransportFixture.httpbin("/redirect-to?url=/get&status_code=\(status)"))
        let response = try await transport.send(request, options: TransportOptions())
        #expect(response.head.status.code == status)
        #expect(response.head.headerFields[.location] == "/get")
    }

    @Test func cookiesAreNeitherStoredNorSent() async throws {
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

    @Test func setCookieFieldsStaySeparate() async throws {
        let query = "Set-Cookie=a%3D1&Set-Cookie=b%3D2%3B%20Expires%3DWed,%2021%20Oct%202015%2007:28:00%20GMT"
        let response = try await transport.send(
            try TransportFixture.request(.get, TransportFixture.httpbin("/response-headers?\(query)")),
            options: TransportOptions())
        #expect(
            response.head.headerFields[values: .setCookie] == ["a=1", "b=2; Expires=Wed, 21 Oct 2015 07:28:00 GMT"])
    }

    @Test func headRequestWithContentLengthIsNotTruncated() async throws {
        let response = try await transport.send(
            try TransportFixture.request(.head, TransportFixture.fault("/bytes?n=1000")), options: TransportOptions())
        #expect(response.head.contentLength == 1000)
        #expect(try await TransportFixture.data(response).isEmpty)
    }

    @Test(arguments: ["/relative/path", "ftp://example.com/file", "mailto:someone@example.com"])
    func nonHTTPURLIsRejected(url: String) async throws {
        let request = HTTPRequest(url: try #require(URL(string: url)))
        let error = await #expect(throws: ClientError.self) {
            try await TransportFixture.transport.send(request, options: TransportOptions())
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains(url) == true)
    }

    @Test func configurationSetsConnectionsPerHostAndTurnsCookiesOff() {
        let transport = URLSessionTransport(configuration: .init(maximumConnectionsPerHost: 8))
        #expect(transport.maximumConnectionsPerHost == 8)
        let configuration = transport.session.configuration
        #expect(configuration.httpMaximumConnectionsPerHost == 8)
        #expect(configuration.httpShouldSetCookies == false)
        #expect(configuration.httpCookieStorage == nil)
        #expect(configuration.urlCache == nil)
        #expect(URLSessionTransport().maximumConnectionsPerHost == 64)
    }

    @Test func passedSessionConfigurationIsCopiedWithTheTransportSettings() {
        let given = URLSessionConfiguration.default
        given.httpAdditionalHeaders = ["X-From-Configuration": "yes"]
        let transport = URLSessionTransport(
            sessionConfiguration: given, configuration: .init(maximumConnectionsPerHost: 3))
        let used = transport.session.configuration
        #expect(used.httpMaximumConnectionsPerHost == 3)
        #expect(used.httpShouldSetCookies == false)
        #expect(used.httpAdditionalHeaders?["X-From-Configuration"] as? String == "yes")
        #expect(given.httpMaximumConnectionsPerHost != 3)
    }
}
