import Foundation
import HTTPCore
import HTTPEncoding
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Form bodies POSTed to the local httpbin (`scripts/test` starts it) come back in its
/// `form` field exactly as sent: httpbin's server (Werkzeug) is the judge.
@Suite("Form bodies against httpbin")
struct FormHTTPBinTests {
    struct Order: Encodable {
        struct Customer: Encodable {
            var name: String
            var city: String
        }

        var note: String
        var tags: [String]
        var customer: Customer
        var express: Bool
        var quantity: Int
        var coupon: String?
    }

    static let order = Order(
        note: "a+b=c & d/e?f#g [x] 100%", tags: ["z z", "a", "é🦩"], customer: .init(name: "Ada L", city: "Zürich"),
        express: true, quantity: -3, coupon: nil)

    /// POSTs `encoded` and returns httpbin's `form` and `headers` fields.
    static func post(_ encoded: EncodedBody) async throws -> (form: [String: Any], headers: [String: Any]) {
        let base = try TestServers.httpbin()
        var request = URLRequest(url: base.appendingPathComponent("post"))
        request.httpMethod = "POST"
        request.setValue(encoded.contentType.description, forHTTPHeaderField: "Content-Type")
        request.httpBody = try await encoded.body.collect(upTo: 1 << 20)
        let (data, status) = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<(Data, Int), any Error>) in
            URLSession.shared.dataTask(with: request) { data, response, error in
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume(returning: (data ?? Data(), (response as? HTTPURLResponse)?.statusCode ?? 0))
                }
            }.resume()
        }
        #expect(status == 200)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let form = try #require(json["form"] as? [String: Any])
        let headers = try #require(json["headers"] as? [String: Any])
        return (form, headers)
    }

    static func strings(_ value: Any?) -> [String]? {
        if let text = value as? String { return [text] }
        return value as? [String]
    }

    @Test("a Codable form body comes back field for field, reserved characters intact")
    func codableBody() async throws {
        let (form, headers) = try await Self.post(FormEncoder().encodeBody(Self.order))
        #expect(headers["Content-Type"] as? String == "application/x-www-form-urlencoded")
        let expected: [String: [String]] = [
            "note": ["a+b=c & d/e?f#g [x] 100%"], "tags[]": ["z z", "a", "é🦩"], "customer[name]": ["Ada L"],
            "customer[city]": ["Zürich"], "express": ["1"], "quantity": ["-3"],
        ]
        #expect(Set(form.keys) == Set(expected.keys))
        for (key, values) in expected { #expect(Self.strings(form[key]) == values, "\(key)") }
    }

    @Test(
        "every array and nil style arrives as written",
        arguments: [
            (
                FormStyle(arrays: .indexed, nils: .emptyValue),
                ["tags[0]": ["z z"], "tags[1]": ["a"], "tags[2]": ["é🦩"], "coupon": [""]]
            ),
            (FormStyle(arrays: .noBrackets, bools: .literal), ["tags": ["z z", "a", "é🦩"], "express": ["true"]]),
            (
                FormStyle(nesting: .dots, spaces: .percent20, brackets: .literal),
                ["customer.name": ["Ada L"], "tags[]": ["z z", "a", "é🦩"]]
            ),
        ])
    func styles(style: FormStyle, expected: [String: [String]]) async throws {
        let (form, _) = try await Self.post(FormEncoder(style: style).encodeBody(Self.order))
        for (key, values) in expected { #expect(Self.strings(form[key]) == values, "\(key)") }
    }

    @Test("untyped parameters arrive as sent")
    func untypedBody() async throws {
        let parameters: [String: Any] = ["page": 1, "tags": ["a", "b"], "disabled": false, "q": "x&y=z"]
        let (form, _) = try await Self.post(FormEncoder().encodeBody(parameters: parameters))
        #expect(Self.strings(form["page"]) == ["1"])
        #expect(Self.strings(form["tags[]"]) == ["a", "b"])
        #expect(Self.strings(form["disabled"]) == ["0"])
        #expect(Self.strings(form["q"]) == ["x&y=z"])
    }
}
