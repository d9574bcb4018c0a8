import Foundation
import HTTPCore
import TestTraits
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

    @Test("fields from a [String: String] are set sorted by name, each replacing fields of its name")
    func headersFromStringDictionary() throws {
        let request = HTTPRequest.get("x").header(.accept, "text/html").header(.acceptLanguage, "it")
            .headers(["X-B": "2", "Accept": "application/json", "x-a": "1"])
        #expect(request.pendingError == nil)
        #expect(request.headerFields.map(\.name.rawName) == ["Accept", "Accept-Language", "X-B", "x-a"])
        #expect(request.headerFields[.accept] == "application/json")
        #expect(request.headerFields["X-A"] == "1")
    }

    @Test("a [String: String] variable, as URLRequest.allHTTPHeaderFields gives one, is accepted as it is")
    func headersFromStringDictionaryVariable() throws {
        let allHTTPHeaderFields: [String: String]? = ["X-Api-Version": "2", "Authorization": "Bearer abc"]
        let fields = allHTTPHeaderFields ?? [:]
        let request = HTTPRequest.get("me").headers(fields)
        #expect(request.headerFields.description == "Authorization: Bearer abc\r\nX-Api-Version: 2")
    }

    @Test("the same [String: String] always gives the same fields in the same order")
    func headersFromStringDictionaryAreDeterministic() throws {
        var forward: [String: String] = [:]
        var backward: [String: String] = [:]
        let names = (0..<40).map { "X-Field-\($0)" }
        for name in names { forward[name] = name }
        for name in names.reversed() { backward[name] = name }
        let one = HTTPRequest.get("x").headers(forward).headerFields
        #expect(one == HTTPRequest.get("x").headers(backward).headerFields)
        #expect(one.map(\.name.rawName) == names.sorted())
    }

    @Test("names of a [String: String] that differ only in case set one field: the later name in sorted order wins")
    func headersFromStringDictionaryCaseCollision() {
        let request = HTTPRequest.get("x").headers(["ACCEPT": "a", "accept": "b"])
        #expect(request.headerFields.description == "accept: b")
    }

    @Test(
        "an invalid name or value of a [String: String] sets none of them and is kept as the pending error",
        arguments: [
            (["Bad Name": "v", "X-A": "1"], HTTPCoreError.Code.invalidFieldName, "Bad Name"),
            (["X-A": "1\r\nX-Evil: 1", "X-B": "2"], .invalidFieldValue, "1\r\nX-Evil: 1"),
            (["": "v"], .invalidFieldName, ""),
            // Sorted, "A-Field" comes first: its error is the one kept.
            (["Bad Name": "v", "A-Field": "\u{0}"], .invalidFieldValue, "\u{0}"),
        ])
    func headersFromStringDictionaryRefused(fields: [String: String], code: HTTPCoreError.Code, value: String) throws {
        let request = HTTPRequest.get("x").header(.accept, "a").headers(fields)
        let error = try #require(request.pendingError as? HTTPCoreError)
        #expect(error.code == code)
        #expect(error.value == value)
        #expect(request.headerFields.description == "Accept: a")
        #expect(throws: HTTPCoreError.self) { try request.validated() }
    }

    @Test("headers(_:) takes typed-name literals, text-name literals and empty literals alike")
    func headersOverloadsResolve() throws {
        let typed = HTTPRequest.get("x").headers([.accept: "application/json", .userAgent: "heron"])
        #expect(typed.headerFields.description == "Accept: application/json\r\nUser-Agent: heron")
        let text = HTTPRequest.get("x").headers(["Accept": "application/json", "User-Agent": "heron"])
        #expect(text.headerFields == typed.headerFields)
        let emptyDictionary = HTTPRequest.get("x").header(.accept, "a").headers([:])
        #expect(emptyDictionary.headerFields.description == "Accept: a" && emptyDictionary.pendingError == nil)
        let emptyList = HTTPRequest.get("x").header(.accept, "a").headers([])
        #expect(emptyList.headerFields.description == "Accept: a" && emptyList.pendingError == nil)
    }

    @Test("HTTPFields replace the request's fields of their names, repeats kept in order, others untouched")
    func headersFromHTTPFields() throws {
        let request = HTTPRequest.get("x")
            .headers(try HTTPFields(["Accept": "a", "X-A": "1", "accept": "b", "Vary": "v"]))
            .headers(
                try HTTPFields(["Cache-Control": "no-cache", "ACCEPT": "x", "Cache-Control": "no-store", "accept": "y"])
            )
        #expect(request.pendingError == nil)
        #expect(
            request.headerFields.description
                == "ACCEPT: x\r\naccept: y\r\nX-A: 1\r\nVary: v\r\nCache-Control: no-cache\r\nCache-Control: no-store")
    }

    @Test("HTTPFields leave a request that already has a pending error unchanged")
    func headersFromHTTPFieldsAfterError() throws {
        let failed = HTTPRequest.get("x").header("Bad Name", "v")
        let request = failed.headers(try HTTPFields(["X-A": "1"]))
        #expect(request.headerFields.isEmpty)
        #expect((request.pendingError as? HTTPCoreError)?.code == .invalidFieldName)
        #expect(HTTPRequest.get("x").header(.accept, "a").headers(HTTPFields()).headerFields.count == 1)
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

    @Test(
        "200,000 repeats of one field are built and combined in linear time (a hang guard, not a speed claim)",
        .heavyWork)
    func manyRepeats() throws {
        let clock = ContinuousClock()
        let start = clock.now
        var fields = HTTPFields()
        let field = try HTTPField(name: "X-Repeat", value: "abc")
        for _ in 0..<200_000 { fields.append(field) }
        let combined = try #require(fields[field.name])
        #expect(combined.utf8.count == 200_000 * 5 - 2)
        #expect(fields[values: field.name].count == 200_000)
        // Joining with `+` copied the growing value per repeat: minutes here, under the load of
        // the whole suite (the test runs on low-priority threads, so the bound is wide).
        #expect(clock.now - start < .seconds(60))
    }
}
