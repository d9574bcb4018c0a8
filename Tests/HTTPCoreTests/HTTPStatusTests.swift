import HTTPCore
import Testing

@Suite("HTTPStatus")
struct HTTPStatusTests {
    @Test(
        "the first digit gives the class (RFC 9110 §15)",
        arguments: [
            (100, HTTPStatus.Kind.informational),
            (199, .informational),
            (200, .successful),
            (299, .successful),
            (300, .redirection),
            (399, .redirection),
            (400, .clientError),
            (499, .clientError),
            (500, .serverError),
            (599, .serverError),
        ])
    func kind(code: Int, kind: HTTPStatus.Kind) throws {
        let status = try HTTPStatus(code: code)
        #expect(status.kind == kind)
        #expect(status.isSuccess == (kind == .successful))
    }

    @Test("every code from 100 to 599 is representable")
    func everyCodeRepresentable() throws {
        for code in 100...599 {
            let status = try HTTPStatus(code: code)
            #expect(status.code == code)
        }
    }

    @Test("rejects codes outside 100...599", arguments: [Int.min, -1, 0, 1, 99, 600, 999, 1000, Int.max])
    func rejectsOutOfRange(code: Int) {
        let error = #expect(throws: HTTPCoreError.self) { try HTTPStatus(code: code) }
        #expect(error?.code == .invalidStatus)
        #expect(error?.value == String(code))
    }

    @Test(
        "constants have their code and registered phrase",
        arguments: [
            (HTTPStatus.continue, 100, "Continue"),
            (.ok, 200, "OK"),
            (.noContent, 204, "No Content"),
            (.movedPermanently, 301, "Moved Permanently"),
            (.notModified, 304, "Not Modified"),
            (.permanentRedirect, 308, "Permanent Redirect"),
            (.notFound, 404, "Not Found"),
            (.contentTooLarge, 413, "Content Too Large"),
            (.unprocessableContent, 422, "Unprocessable Content"),
            (.tooManyRequests, 429, "Too Many Requests"),
            (.internalServerError, 500, "Internal Server Error"),
            (.serviceUnavailable, 503, "Service Unavailable"),
            (.networkAuthenticationRequired, 511, "Network Authentication Required"),
        ])
    func constants(status: HTTPStatus, code: Int, phrase: String) throws {
        #expect(status.code == code)
        #expect(status.reasonPhrase == phrase)
        #expect(status.description == "\(code) \(phrase)")
        let made = try HTTPStatus(code: code)
        #expect(made == status)
        #expect(made.reasonPhrase == phrase)
    }

    @Test("an unregistered code has an empty phrase and prints its number")
    func unregisteredCode() throws {
        let status = try HTTPStatus(code: 599)
        #expect(status.reasonPhrase.isEmpty)
        #expect(status.description == "599")
    }

    @Test("a server's phrase is kept but does not affect equality or hashing")
    func customPhrase() throws {
        let status = try HTTPStatus(code: 200, reasonPhrase: "Fine")
        #expect(status.reasonPhrase == "Fine")
        #expect(status.description == "200 Fine")
        #expect(status == .ok)
        #expect(Set([status, .ok]).count == 1)
    }

    @Test("statuses order by code")
    func ordering() throws {
        #expect(HTTPStatus.ok < .notFound)
        #expect(!(HTTPStatus.notFound < .ok))
        #expect([HTTPStatus.serviceUnavailable, .continue, .ok].sorted().map(\.code) == [100, 200, 503])
    }

    @Test("every class is listed once")
    func allKinds() {
        #expect(HTTPStatus.Kind.allCases.count == 5)
    }
}
