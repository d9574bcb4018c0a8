import Foundation
import HTTPClient
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("HTTPRequest and URLRequest, HTTPResponse and HTTPURLResponse")
struct URLRequestConversionTests {
    @Test("a request converts to a URLRequest with its method, fields and body, and back")
    func roundTrip() throws {
        let request = HTTPRequest.put("https://example.com/items/1").header(.accept, "application/json")
            .header("X-Trace", "t1").body(HTTPBody("hello"), contentType: .plainText)
        let urlRequest = try URLRequest(request)
        #expect(urlRequest.httpMethod == "PUT")
        // GET is left as URLRequest's own method, not set again.
        #expect(try URLRequest(HTTPRequest.get("https://example.com/items/1")).httpMethod == "GET")
        #expect(urlRequest.url?.absoluteString == "https://example.com/items/1")
        #expect(urlRequest.value(forHTTPHeaderField: "X-Trace") == "t1")
        #expect(urlRequest.httpBody == Data("hello".utf8))
        let back = try HTTPRequest(urlRequest)
        #expect(back.method == .put && back.url == request.url)
        #expect(back.headerFields[.contentType] == "text/plain; charset=utf-8")
        #expect(back.headerFields[try HTTPFieldName("x-trace")] == "t1")
        if case .data(let data)? = back.body?.source {
            #expect(data == Data("hello".utf8))
        } else {
            Issue.record("no data body")
        }
    }

    @Test("a file body becomes a body stream; an AsyncSequence body is refused, saying why")
    func bodies() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("heron-\(UUID().uuidString)")
        try Data("file".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let fromFile = try URLRequest(HTTPRequest.post("https://example.com/f").body(try HTTPBody(fileAt: file)))
        #expect(fromFile.httpBodyStream != nil)
        let chunks = AsyncStream<Data> { continuation in
            continuation.yield(Data("x".utf8))
            continuation.finish()
        }
        let streamed = HTTPRequest.post("https://example.com/s").body(HTTPBody(stream: chunks, length: .unknown))
        let error = #expect(throws: ClientError.self) { try URLRequest(streamed) }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("AsyncSequence") == true)
        #expect(throws: ClientError.self) { try URLRequest(HTTPRequest.get("relative/path")) }
        #expect(throws: ClientError.self) { try URLRequest(HTTPRequest.get("x").header(.accept, "a\nb")) }
    }

    @Test("a response head converts to an HTTPURLResponse and back")
    func responses() throws {
        let head = HTTPResponse(
            status: .created,
            headerFields: [
                try HTTPField(name: .location, value: "/items/2"),
                try HTTPField(name: .contentType, value: "text/plain"),
            ],
            url: URL(string: "https://example.com/items"))
        let urlResponse = try #require(HTTPURLResponse(head))
        #expect(urlResponse.statusCode == 201)
        #expect(urlResponse.value(forHTTPHeaderField: "Location") == "/items/2")
        let back = try HTTPResponse(urlResponse)
        #expect(back.status == .created && back.headerFields[.location] == "/items/2")
        #expect(HTTPURLResponse(HTTPResponse(status: .ok)) == nil)
    }
}
