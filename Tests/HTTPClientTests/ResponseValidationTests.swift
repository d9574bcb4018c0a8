import Foundation
import HTTPClientTesting
import HTTPCore
import Testing

@testable import HTTPClient

@Suite("Response validation")
struct ResponseValidationTests {
    func run(
        _ validation: ResponseValidation, _ reply: StubTransport.Reply, method: HTTPMethod = .get
    ) async throws
        -> ClientError?
    {
        let stub = StubTransport(fallback: reply)
        do {
            _ = try await Fixtures.client(stub, interceptors: [validation]).send(Fixtures.request("x", method: method))
            return nil
        } catch let error as ClientError {
            return error
        }
    }

    @Test(
        "statuses outside the accepted ranges fail with validationFailed",
        arguments: [(200, true), (299, true), (304, false), (404, false), (500, false)])
    func statusRanges(code: Int, accepted: Bool) async throws {
        let error = try await run(ResponseValidation(), .status(try HTTPStatus(code: code)))
        #expect((error == nil) == accepted)
        if let error { #expect(error.code == .validationFailed) }
    }

    @Test("the error carries status, header fields, body prefix and the request")
    func errorContext() async throws {
        let body = Data(repeating: UInt8(ascii: "e"), count: 5000)
        let error = try #require(
            try await run(
                ResponseValidation(),
                .status(.notFound, headerFields: Fixtures.fields(["X-Trace": "t1"]), body: body)))
        #expect(error.response?.status == .notFound)
        #expect(error.response?.headerFields[try HTTPFieldName("X-Trace")] == "t1")
        #expect(error.bodyPrefix?.count == ClientError.bodyPrefixLimit)
        #expect(error.url?.absoluteString == "https://api.test/v2/x")
        #expect(error.message.contains("404"))
        #expect(error.description.contains("404"))
    }

    @Test(
        "content types are matched against the accepted patterns",
        arguments: [
            ("application/json; charset=utf-8", true), ("application/problem+json", false), ("text/html", false),
            ("not a type", false),
        ])
    func contentTypes(type: String, accepted: Bool) async throws {
        let reply = StubTransport.Reply.status(
            .ok, headerFields: Fixtures.fields(["Content-Type": type]), body: Data("{}".utf8))
        let error = try await run(ResponseValidation(contentTypes: [.json]), reply)
        #expect((error == nil) == accepted)
        if let error { #expect(error.message.contains("content type")) }
    }

    @Test("wildcard patterns accept a whole family")
    func wildcard() async throws {
        let reply = StubTransport.Reply.status(
            .ok, headerFields: Fixtures.fields(["Content-Type": "text/csv"]), body: Data("a".utf8))
        #expect(try await run(ResponseValidation(contentTypes: [try MediaType(parsing: "text/*")]), reply) == nil)
    }

    @Test("a missing content type fails when types are required, unless there is no body")
    func missingContentType() async throws {
        let validation = ResponseValidation(contentTypes: [.json])
        let withBody = try await run(validation, .status(.ok, body: Data("x".utf8)))
        #expect(withBody?.code == .validationFailed)
        #expect(try await run(validation, .status(.noContent)) == nil)
        #expect(try await run(validation, .status(.ok)) == nil)
    }

    @Test("a 503 that fails validation is still retried by the retry stack")
    func retriedDespiteValidation() async throws {
        let stub = StubTransport()
        stub.enqueue(.status(.serviceUnavailable), .status(.ok))
        let response = try await Fixtures.client(stub, interceptors: [ResponseValidation()], retry: [.status()])
            .send(Fixtures.request("x"))
        #expect(response.status == .ok)
    }
}
