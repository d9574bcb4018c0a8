import Foundation
import HTTPCore
import Testing

@Suite("Fluent requests")
struct HTTPRequestFluentTests {
    @Test("method shortcuts take a String URL, relative or absolute")
    func shortcuts() {
        let pairs: [(HTTPRequest, HTTPMethod)] = [
            (.get("users/1"), .get), (.post("users"), .post), (.put("users/1"), .put), (.patch("users/1"), .patch),
            (.delete("users/1"), .delete), (.head("users/1"), .head),
        ]
        for (request, method) in pairs {
            #expect(request.method == method)
            #expect(request.pendingError == nil)
        }
        #expect(HTTPRequest.get("https://example.com/a?b=c").url.absoluteString == "https://example.com/a?b=c")
    }

    @Test("text that is not a URL is kept as a typed error, never a crash or a guess")
    func badURL() throws {
        let request = HTTPRequest.get("http://exa mple.com/users")
        let error = try #require(request.pendingError as? HTTPCoreError)
        #expect(error.code == .invalidURL)
        #expect(error.value == "http://exa mple.com/users")
        #expect(throws: HTTPCoreError.self) { try request.validated() }
    }

    @Test("literal header fields need no try; an invalid one is kept, not sent, and the first error wins")
    func headers() throws {
        let request = HTTPRequest.get("x").header(.acceptLanguage, "it-it").header("X-Api-Version", "2")
            .headers([.accept: "application/json", .userAgent: "heron"])
        #expect(request.pendingError == nil)
        #expect(request.headerFields[.acceptLanguage] == "it-it")
        #expect(request.headerFields[try HTTPFieldName("x-api-version")] == "2")
        #expect(request.headerFields[.accept] == "application/json")

        let bad = request.header(.authorization, "Bearer x\r\nX-Evil: 1").header("Bad Name", "v")
            .header(.cookie, "later")
        let error = try #require(bad.pendingError as? HTTPCoreError)
        #expect(error.code == .invalidFieldValue)
        #expect(bad.headerFields[.authorization] == nil)
        #expect(bad.headerFields[.cookie] == nil)
    }

    @Test("a body set with its media type carries the Content-Type")
    func body() {
        let request = HTTPRequest.put("avatar").body(HTTPBody(Data([1, 2])), contentType: .png)
        #expect(request.headerFields[.contentType] == "image/png")
        #expect(request.body?.length == .known(2))
    }

    @Test("common media types have constants")
    func mediaTypes() {
        let types: [(MediaType, String)] = [
            (.png, "image/png"), (.jpeg, "image/jpeg"), (.gif, "image/gif"), (.webp, "image/webp"),
            (.svg, "image/svg+xml"), (.pdf, "application/pdf"), (.zip, "application/zip"),
            (.gzip, "application/gzip"), (.mp3, "audio/mpeg"), (.wav, "audio/wav"), (.mp4, "video/mp4"),
            (.webm, "video/webm"), (.problemJSON, "application/problem+json"),
            (.octetStream, "application/octet-stream"),
        ]
        for (type, text) in types { #expect(type.description == text) }
    }

    @Test("a response reads its body as text in its charset, UTF-8 when absent")
    func responseText() throws {
        let latin = HTTPResponse(
            status: .ok, headerFields: [try HTTPField(name: .contentType, value: "text/plain; charset=ISO-8859-1")])
        #expect(try latin.text(of: Data([0x63, 0x61, 0x66, 0xE9])) == "café")
        #expect(try HTTPResponse(status: .ok).text(of: Data("café".utf8)) == "café")
        #expect(HTTPResponse(status: .noContent).isSuccess)
        #expect(throws: HTTPCoreError.self) { try HTTPResponse(status: .ok).text(of: Data([0xFF, 0xFE, 0xC3])) }
    }

    @Test("header fields from typed names keep them, in order")
    func typedFields() throws {
        let fields = try HTTPFields([.accept: "application/json", .acceptLanguage: "it", .accept: "text/plain"])
        #expect(fields.map(\.name) == [.accept, .acceptLanguage, .accept])
        #expect(fields[.accept] == "application/json, text/plain")
        #expect(throws: HTTPCoreError.self) { try HTTPFields([.accept: "a\nb"]) }
    }

    @Test("200,000 repeats of one field are built and combined in linear time (a hang guard, not a speed claim)")
    func manyRepeats() throws {
        let clock = ContinuousClock()
        let start = clock.now
        var fields = HTTPFields()
        let field = try HTTPField(name: "X-Repeat", value: "abc")
        for _ in 0..<200_000 { fields.append(field) }
        let combined = try #require(fields[field.name])
        #expect(combined.utf8.count == 200_000 * 5 - 2)
        #expect(fields[values: field.name].count == 200_000)
        // Joining with `+` copied the growing value per repeat: tens of seconds here.
        #expect(clock.now - start < .seconds(10))
    }
}
