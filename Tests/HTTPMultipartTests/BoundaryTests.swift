import Foundation
import HTTPMultipart
import TestSupport
import Testing

@Suite("Boundaries (RFC 2046 §5.1.1)")
struct BoundaryTests {
    static let bchars = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=? ")

    @Test("a random boundary is valid bchars of at most 70 characters holding 128 hexadecimal bits")
    func randomIsValid() throws {
        let boundary = MultipartBoundary.random()
        #expect(boundary.value.count <= 70)
        #expect(boundary.value.allSatisfy { Self.bchars.contains($0) })
        #expect(boundary.value.hasPrefix("Heron-"))
        let hex = boundary.value.dropFirst("Heron-".count)
        #expect(hex.count == 32)
        #expect(hex.allSatisfy { $0.isHexDigit })
        #expect(boundary.isRandom)
        // It is accepted by the validating initializer too.
        #expect(try MultipartBoundary(boundary.value).value == boundary.value)
    }

    @Test("random boundaries differ from each other")
    func randomDiffers() {
        let boundaries = Set((0..<100).map { _ in MultipartBoundary.random().value })
        #expect(boundaries.count == 100)
    }

    @Test("a seeded generator gives a reproducible boundary")
    func seeded() {
        var first = SplitMix64(seed: 42)
        var second = SplitMix64(seed: 42)
        #expect(MultipartBoundary.random(using: &first) == MultipartBoundary.random(using: &second))
    }

    @Test(
        "valid fixed boundaries are accepted",
        arguments: ["a", "simple-boundary", "with space inside", "'()+_,-./:=?", String(repeating: "x", count: 70)])
    func validFixed(value: String) throws {
        let boundary = try MultipartBoundary(value)
        #expect(boundary.value == value)
        #expect(!boundary.isRandom)
        #expect(MultipartForm(boundary: boundary).contentType[parameter: "boundary"] == value)
    }

    @Test(
        "invalid boundaries are rejected naming the value",
        arguments: ["", String(repeating: "x", count: 71), "ends in space ", "semi;colon", "quote\"", "crlf\r\n", "é"])
    func invalidFixed(value: String) {
        #expect {
            _ = try MultipartBoundary(value)
        } throws: { error in
            guard let error = error as? MultipartError else { return false }
            return error.code == .invalidBoundary && error.value == value
        }
    }

    @Test("a boundary with a space is quoted in the content type")
    func quotedInContentType() throws {
        let form = MultipartForm(boundary: try MultipartBoundary("a b"))
        #expect(form.contentType.description == "multipart/form-data; boundary=\"a b\"")
        #expect(form.contentType[parameter: "boundary"] == "a b")
    }

    @Test("in-memory content holding a fixed boundary's delimiter is refused by every output")
    func fixedBoundaryInContent() async throws {
        var form = MultipartForm(boundary: try MultipartBoundary("fixed"))
        form.append(name: "evil", data: Data("x\r\n--fixed--\r\n".utf8))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        await #expect(throws: MultipartError.self) { _ = try await form.encodedInMemory() }
        await #expect(throws: MultipartError.self) {
            _ = try await form.encode(toFileAt: directory.url.appendingPathComponent("out"))
        }
        await #expect(throws: MultipartError.self) { _ = try await form.streamingBody().body.collect(upTo: 1000) }
        #expect(try directory.contents().isEmpty)
    }

    @Test(
        "the delimiter check finds a fixed boundary anywhere in a part and nowhere else",
        arguments: [
            ("--fixed", true), ("abc--fixed", true), ("--fixedxyz", true), ("ab\r\n--fixed--\r\n", true),
            ("--fixe", false), ("-fixed", false), ("fixed--", false), ("", false), ("--FIXED", false),
        ])
    func delimiterSearch(content: String, found: Bool) async throws {
        var form = MultipartForm(boundary: try MultipartBoundary("fixed"))
        form.append(name: "p", data: Data(content.utf8))
        var code: MultipartError.Code?
        do throws(MultipartError) {
            _ = try await form.encodedInMemory()
        } catch {
            code = error.code
        }
        #expect(code == (found ? .boundaryInContent : nil))
    }
}
