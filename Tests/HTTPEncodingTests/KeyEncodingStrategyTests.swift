import Foundation
import HTTPEncoding
import Testing

@Suite("KeyEncodingStrategy")
struct KeyEncodingStrategyTests {
    @Test(
        "convertToSnakeCase splits words at case changes",
        arguments: [
            ("userID", "user_id"), ("myURLValue", "my_url_value"), ("createdAt", "created_at"),
            ("already_snake", "already_snake"), ("_private", "_private"), ("trailing_", "trailing_"),
            ("URL", "url"), ("user2Name", "user2_name"), ("", ""), ("héllo", "héllo"), ("A", "a"),
            ("_leadingCaps_", "_leading_caps_"),
        ])
    func snakeCase(input: String, expected: String) {
        #expect(KeyEncodingStrategy.convertToSnakeCase.encode(input) == expected)
    }

    @Test(
        "convertToKebabCase joins words with hyphens",
        arguments: [
            ("createdAt", "created-at"), ("userID", "user-id"), ("plain", "plain"), ("HTTPStatus", "http-status"),
        ])
    func kebabCase(input: String, expected: String) {
        #expect(KeyEncodingStrategy.convertToKebabCase.encode(input) == expected)
    }

    @Test("useDefaultKeys leaves keys as written")
    func defaultKeys() {
        #expect(KeyEncodingStrategy.useDefaultKeys.encode("userID") == "userID")
    }

    @Test("custom applies the closure")
    func custom() {
        #expect(KeyEncodingStrategy.custom { "x-" + $0.uppercased() }.encode("id") == "x-ID")
    }
}
