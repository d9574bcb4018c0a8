import Foundation
import HTTPClientTesting
import HTTPCore
import Testing

@testable import HTTPClient

@Suite("Default header fields interceptor")
struct DefaultHeaderFieldsTests {
    let custom = try! HTTPFieldName("X-Custom")

    func send(_ interceptor: DefaultHeaderFields, _ request: HTTPRequest) async throws -> HTTPRequest {
        let stub = StubTransport(fallback: .status(.ok))
        _ = try await Fixtures.client(stub, interceptors: [interceptor]).send(request)
        return try #require(stub.requests.first)
    }

    @Test("ifAbsent adds fields the request lacks and keeps the request's own")
    func ifAbsent() async throws {
        var request = Fixtures.request("x")
        try request.headerFields.set(.accept, "text/plain")
        let sent = try await send(
            DefaultHeaderFields(Fixtures.fields(["Accept": "application/json", "X-Custom": "1"])), request)
        #expect(sent.headerFields[values: .accept] == ["text/plain"])
        #expect(sent.headerFields[custom] == "1")
    }

    @Test("always replaces the request's own fields of that name")
    func always() async throws {
        var request = Fixtures.request("x")
        try request.headerFields.append(name: custom, value: "mine")
        try request.headerFields.append(name: custom, value: "mine too")
        let sent = try await send(
            DefaultHeaderFields(Fixtures.fields(["X-Custom": "a", "X-Custom": "b"]), mode: .always), request)
        #expect(sent.headerFields[values: custom] == ["a", "b"])
    }

    @Test("a provider is called per attempt and sees the request")
    func providerPerAttempt() async throws {
        let calls = Collector<String>()
        let interceptor = DefaultHeaderFields(custom) { request in
            calls.append(request.url.path)
            return "call-\(calls.count)"
        }
        let stub = StubTransport()
        stub.enqueue(.status(.serviceUnavailable), .status(.ok))
        _ = try await Fixtures.client(stub, interceptors: [interceptor], retry: [.status()]).send(Fixtures.request("p"))
        #expect(stub.requests.map { $0.headerFields[custom] } == ["call-1", "call-2"])
        #expect(calls.values == ["/v2/p", "/v2/p"])
    }

    @Test("a provider returning nil adds nothing, and ifAbsent does not call it when present")
    func providerNilAndSkipped() async throws {
        let calls = Collector<Int>()
        let interceptor = DefaultHeaderFields(custom) { _ in
            calls.append(1)
            return nil
        }
        let sent = try await send(interceptor, Fixtures.request("x"))
        #expect(!sent.headerFields.contains(custom))
        var request = Fixtures.request("x")
        try request.headerFields.set(custom, "set")
        _ = try await send(interceptor, request)
        #expect(calls.count == 1)
    }

    @Test("a provider's value with CR/LF fails with invalidRequest naming the field, nothing is sent")
    func injectedValue() async throws {
        let stub = StubTransport(fallback: .status(.ok))
        let interceptor = DefaultHeaderFields(custom) { _ in "a\r\nEvil: 1" }
        let error = await #expect(throws: ClientError.self) {
            _ = try await Fixtures.client(stub, interceptors: [interceptor]).send(Fixtures.request("x"))
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("X-Custom") == true)
        #expect(stub.requests.isEmpty)
    }

    @Test("entries combine with adding, in order")
    func combined() async throws {
        let interceptor = DefaultHeaderFields(Fixtures.fields(["Accept": "application/json"]))
            .adding(custom, mode: .always) { _ in "computed" }
        let sent = try await send(interceptor, Fixtures.request("x"))
        #expect(sent.headerFields[.accept] == "application/json")
        #expect(sent.headerFields[custom] == "computed")
    }

    @Test("fields named by text need no try and are added in the order of their names")
    func textFields() async throws {
        var request = Fixtures.request("x")
        try request.headerFields.set(.accept, "text/plain")
        let interceptor = DefaultHeaderFields(["X-Custom": "1", "Accept": "application/json"])
            .adding(["X-Later": "2"], mode: .always)
        let sent = try await send(interceptor, request)
        #expect(sent.headerFields[values: .accept] == ["text/plain"])
        #expect(sent.headerFields[custom] == "1")
        #expect(sent.headerFields[try HTTPFieldName("X-Later")] == "2")
        let names = sent.headerFields.map(\.name.rawName)
        #expect(names.firstIndex(of: "X-Custom")! < names.firstIndex(of: "X-Later")!)
    }

    @Test(
        "a name or value given as text that is not valid fails every call with invalidRequest naming it; nothing is sent",
        arguments: [["Bad Name": "1", "X-Ok": "2"], ["X-Ok": "a\r\nEvil: 1"]])
    func invalidTextFields(_ fields: [String: String]) async throws {
        let stub = StubTransport(fallback: .status(.ok))
        let client = Fixtures.client(stub, interceptors: [DefaultHeaderFields(fields)])
        for _ in 0..<2 {
            let error = await #expect(throws: ClientError.self) { _ = try await client.send(Fixtures.request("x")) }
            #expect(error?.code == .invalidRequest)
            #expect(error?.message.contains("DefaultHeaderFields") == true)
            let underlying = try #require(error?.underlying as? HTTPCoreError)
            #expect([HTTPCoreError.Code.invalidFieldName, .invalidFieldValue].contains(underlying.code))
        }
        #expect(stub.requests.isEmpty)
    }
}
