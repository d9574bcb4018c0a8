import Foundation
import HTTPCore
import HTTPEncoding
import Testing

@Suite("JSONBodyEncoder")
struct JSONBodyEncoderTests {
    struct Post: Encodable {
        var title: String
        var authorID: Int
        var ratio: Double
    }

    private func text(_ encoded: EncodedBody) async throws -> String {
        String(decoding: try await encoded.body.collect(upTo: 1 << 20), as: UTF8.self)
    }

    @Test("keys are sorted by default so bytes are deterministic")
    func sortedByDefault() async throws {
        let encoded = try JSONBodyEncoder().encodeBody(Post(title: "Hi", authorID: 7, ratio: 0.5))
        let expected = #"{"authorID":7,"ratio":0.5,"title":"Hi"}"#
        #expect(try await text(encoded) == expected)
        #expect(encoded.contentType == .json)
        #expect(encoded.body.length == .known(Int64(expected.utf8.count)))
    }

    @Test("a configured JSONEncoder is used for every body")
    func configured() async throws {
        let encoder = JSONBodyEncoder {
            let json = JSONEncoder()
            json.outputFormatting = [.sortedKeys]
            json.keyEncodingStrategy = .convertToSnakeCase
            return json
        }
        #expect(
            try await text(encoder.encodeBody(Post(title: "Hi", authorID: 7, ratio: 1)))
                == #"{"author_id":7,"ratio":1,"title":"Hi"}"#)
    }

    @Test("a value JSON cannot carry fails naming its key path")
    func nonFinite() {
        let error = #expect(throws: HTTPEncodingError.self) {
            try JSONBodyEncoder().encodeBody(["posts": [Post(title: "x", authorID: 1, ratio: .nan)]])
        }
        #expect(error?.code == .jsonEncodingFailed)
        #expect(error?.keyPath == ["posts", "Index 0", "ratio"] || error?.keyPath == ["posts", "0", "ratio"])
        #expect(error?.underlying is EncodingError)
    }

    @Test("untyped JSONSerialization values encode with sorted keys")
    func untyped() async throws {
        let encoded = try JSONBodyEncoder().encodeBody(jsonObject: ["b": [1, 2], "a": NSNull(), "c": ["y": true]])
        #expect(try await text(encoded) == #"{"a":null,"b":[1,2],"c":{"y":true}}"#)
    }

    @Test("an untyped value JSONSerialization cannot write throws instead of trapping")
    func untypedInvalid() {
        let error = #expect(throws: HTTPEncodingError.self) {
            try JSONBodyEncoder().encodeBody(jsonObject: ["when": Date()])
        }
        #expect(error?.code == .jsonEncodingFailed)
        let scalar = #expect(throws: HTTPEncodingError.self) { try JSONBodyEncoder().encodeBody(jsonObject: "text") }
        #expect(scalar?.code == .jsonEncodingFailed)
    }

    @Test("body encoders are chosen with static-member sugar")
    func sugar() async throws {
        func encode(_ value: some Encodable, as encoder: some BodyEncoder) throws -> EncodedBody {
            try encoder.encodeBody(value)
        }
        let json = try encode(["name": "heron & co"], as: .json)
        #expect(json.contentType == .json)
        #expect(try await text(json) == #"{"name":"heron & co"}"#)
        let form = try encode(["name": "heron & co"], as: .form)
        #expect(form.contentType == .formURLEncoded)
        #expect(try await text(form) == "name=heron+%26+co")
        let indexed = try encode(["tags": ["a"]], as: .form(FormEncoder(style: FormStyle(arrays: .indexed))))
        #expect(try await text(indexed) == "tags%5B0%5D=a")
    }
}
