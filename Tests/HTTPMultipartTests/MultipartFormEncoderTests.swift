import Foundation
import HTTPCore
import HTTPEncoding
import HTTPMultipart
import Testing

@Suite("Codable multipart encoder")
struct MultipartFormEncoderTests {
    struct Profile: Encodable {
        struct Address: Encodable {
            var city: String
            var postCode: String?
        }

        var name: String
        var age: Int
        var verified: Bool
        var address: Address
        var tags: [String]
        var avatar: MultipartFile
    }

    static let boundary = try! MultipartBoundary("codable-test")
    static let encoder = MultipartFormEncoder(makeBoundary: { boundary })

    /// The (name, text) pairs and files of a form, as the real parser reads them.
    static func parsed(_ form: MultipartForm) async throws -> [PeerPart] {
        let data = try #require(try await form.encodedInMemory().data)
        return try await MultipartPeer.parse(data, boundary: form.boundary).multipart
    }

    @Test("nested keys use brackets, scalar arrays use [], and a MultipartFile becomes a file part")
    func nestedArraysAndFiles() async throws {
        let profile = Profile(
            name: "Ada", age: 36, verified: true, address: .init(city: "London", postCode: nil),
            tags: ["math", "code"], avatar: MultipartFile(data: Data([0x89, 0x50, 0x4E, 0x47]), filename: "ada.png"))
        let parts = try await Self.parsed(try Self.encoder.encode(profile))
        #expect(parts.map(\.name) == ["address[city]", "age", "avatar", "name", "tags[]", "tags[]", "verified"])
        #expect(parts.map { String(decoding: $0.data, as: UTF8.self) }[0...1] == ["London", "36"])
        #expect(parts[2].filename == "ada.png")
        #expect(parts[2].contentType == "image/png")
        #expect(parts[2].data == Data([0x89, 0x50, 0x4E, 0x47]))
        #expect(parts[3...].map { String(decoding: $0.data, as: UTF8.self) } == ["Ada", "math", "code", "true"])
    }

    @Test("a MultipartFile on disk is streamed from its file with an inferred filename and type")
    func fileOnDisk() async throws {
        struct Upload: Encodable { var document: MultipartFile }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = try directory.file("report.pdf", Data("%PDF-1.7".utf8))
        let form = try Self.encoder.encode(Upload(document: MultipartFile(fileAt: url)))
        let part = try #require(try await Self.parsed(form).first)
        #expect(part.name == "document")
        #expect(part.filename == "report.pdf")
        #expect(part.contentType == "application/pdf")
        #expect(part.data == Data("%PDF-1.7".utf8))
    }

    @Test("a missing MultipartFile fails naming its path")
    func missingFile() throws {
        struct Upload: Encodable { var document: MultipartFile }
        let path = "/nonexistent-heron/missing.pdf"
        #expect {
            _ = try Self.encoder.encode(Upload(document: MultipartFile(fileAt: URL(fileURLWithPath: path))))
        } throws: { error in
            (error as? MultipartError)?.code == .unreadableFile && (error as? MultipartError)?.value == path
        }
    }

    @Test("arrays of keyed values are indexed so each element's fields stay together")
    func arraysOfObjects() async throws {
        struct Item: Encodable {
            var id: Int
            var label: String
        }
        struct Order: Encodable { var items: [Item] }
        let parts = try await Self.parsed(
            try Self.encoder.encode(Order(items: [.init(id: 1, label: "a"), .init(id: 2, label: "b")])))
        #expect(parts.map(\.name) == ["items[0][id]", "items[0][label]", "items[1][id]", "items[1][label]"])
    }

    @Test("the shared key, date and data strategies apply")
    func strategies() async throws {
        struct Event: Encodable {
            var eventName: String
            var startsAt: Date
            var payload: Data
        }
        let encoder = MultipartFormEncoder(
            keyEncodingStrategy: .convertToSnakeCase, dateEncodingStrategy: .secondsSince1970,
            dataEncodingStrategy: .base64, makeBoundary: { Self.boundary })
        let event = Event(
            eventName: "launch", startsAt: Date(timeIntervalSince1970: 1_700_000_000), payload: Data([1, 2, 3]))
        let parts = try await Self.parsed(try encoder.encode(event))
        #expect(parts.map(\.name) == ["event_name", "payload", "starts_at"])
        #expect(parts.map { String(decoding: $0.data, as: UTF8.self) } == ["launch", "AQID", "1700000000"])
        #expect(parts.allSatisfy { $0.filename == nil && $0.contentType == nil })
    }

    @Test("Data without a data strategy becomes a binary part")
    func binaryData() async throws {
        struct Blob: Encodable { var bytes: Data }
        let payload = Data([0, 0x0D, 0x0A, 0x2D, 0x2D, 0xFF])
        let part = try #require(try await Self.parsed(try Self.encoder.encode(Blob(bytes: payload))).first)
        #expect(part.data == payload)
        #expect(part.contentType == "application/octet-stream")
    }

    @Test("nil values are left out and dictionary keys are sorted")
    func nilsAndDictionaries() async throws {
        struct Sparse: Encodable {
            var present: String
            var absent: String?
            var extra: [String: Int]
        }
        let parts = try await Self.parsed(
            try Self.encoder.encode(Sparse(present: "x", absent: nil, extra: ["zeta": 1, "alpha": 2, "mid": 3])))
        #expect(parts.map(\.name) == ["extra[alpha]", "extra[mid]", "extra[zeta]", "present"])
    }

    @Test("keys can keep their encoding order")
    func encodingOrder() async throws {
        struct Ordered: Encodable {
            var zebra = 1
            var apple = 2
        }
        let encoder = MultipartFormEncoder(sortsKeys: false, makeBoundary: { Self.boundary })
        #expect(try await Self.parsed(try encoder.encode(Ordered())).map(\.name) == ["zebra", "apple"])
    }

    @Test("a top-level scalar or array is refused")
    func topLevelScalar() {
        #expect { _ = try Self.encoder.encode("just text") } throws: {
            ($0 as? MultipartError)?.code == .unsupportedValue
        }
        #expect { _ = try Self.encoder.encode([1, 2]) } throws: { ($0 as? MultipartError)?.code == .unsupportedValue }
    }

    @Test("a failing date strategy names the key path")
    func failingStrategy() {
        struct Failing: Error {}
        struct Nested: Encodable { var when: Date }
        struct Outer: Encodable { var inner: Nested }
        let encoder = MultipartFormEncoder(
            dateEncodingStrategy: .custom { _ in throw Failing() }, makeBoundary: { Self.boundary })
        #expect {
            _ = try encoder.encode(Outer(inner: Nested(when: Date())))
        } throws: { error in
            (error as? MultipartError)?.code == .unsupportedValue && (error as? MultipartError)?.value == "inner[when]"
        }
    }

    @Test("a non-finite number is refused naming its key path", arguments: [Double.nan, .infinity, -.infinity])
    func nonFinite(value: Double) {
        struct Reading: Encodable { var values: [Double] }
        #expect {
            _ = try Self.encoder.encode(Reading(values: [1.5, value]))
        } throws: { error in
            (error as? MultipartError)?.code == .unsupportedValue && (error as? MultipartError)?.value == "values[1]"
        }
    }

    @Test("MultipartFile refuses other encoders")
    func fileInJSON() {
        #expect(throws: EncodingError.self) { _ = try JSONEncoder().encode(["f": MultipartFile(data: Data())]) }
    }

    @Test("the encoded form is parsed back by both real parsers, names escaped")
    func hostileKeys() async throws {
        let form = try Self.encoder.encode(["quote\"key": "a", "line\nkey": "b"])
        let data = try #require(try await form.encodedInMemory().data)
        let result = try await MultipartPeer.parse(data, boundary: form.boundary)
        #expect(result.multipart.map(\.name) == ["line\nkey", "quote\"key"])
        #expect(result.pythonMultipart.map(\.name) == ["line%0Akey", "quote%22key"])
    }
}

@Suite("Codable multipart encoder as a body encoder")
struct MultipartBodyEncoderTests {
    struct Upload: Encodable {
        var title: String
        var tags: [String]
    }

    static func encode(_ value: some Encodable, as encoder: some BodyEncoder) throws -> EncodedBody {
        try encoder.encodeBody(value)
    }

    @Test("it conforms to HTTPEncoding's BodyEncoder with a streaming body of known length")
    func bodyEncoder() async throws {
        let encoded = try Self.encode(Upload(title: "t", tags: ["a"]), as: .multipart)
        #expect(encoded.contentType.essence == "multipart/form-data")
        let boundary = try MultipartBoundary(try #require(encoded.contentType[parameter: "boundary"]))
        let bytes = try await encoded.body.collect(upTo: 1 << 20)
        #expect(encoded.body.length == .known(Int64(bytes.count)))
        #expect(encoded.body.isReplayable)
        let parts = try await MultipartPeer.parse(bytes, boundary: boundary).multipart
        #expect(parts.map(\.name) == ["tags[]", "title"])
    }

    @Test(
        "the array style is HTTPEncoding's",
        arguments: [
            (FormStyle.Arrays.brackets, ["tags[]", "tags[]"]), (.noBrackets, ["tags", "tags"]),
            (.indexed, ["tags[0]", "tags[1]"]),
        ])
    func arrayStyles(style: FormStyle.Arrays, names: [String]) async throws {
        struct Tagged: Encodable { var tags: [String] }
        let form = try MultipartFormEncoder(arrays: style).encode(Tagged(tags: ["a", "b"]))
        let data = try #require(try await form.encodedInMemory().data)
        #expect(try await MultipartPeer.parse(data, boundary: form.boundary).multipart.map(\.name) == names)
    }
}
