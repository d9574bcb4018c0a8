import Foundation
import TestSupport

/// PHP's `parse_str`, run as a real bracket-style decoder outside Swift
/// (`Tests/Peers/php_parse_str.php`, with the `php` that `scripts/test` provides).
enum PHPPeer {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Peers/php_parse_str.php")

    /// Parses every query with `parse_str` in one PHP process.
    /// - Throws: ``Failure`` when `HERON_PHP` is not set (run the tests with scripts/test)
    ///   or when PHP fails.
    static func parse(_ queries: [String]) async throws -> [FormTree] {
        guard let php = ProcessInfo.processInfo.environment["HERON_PHP"], !php.isEmpty else {
            throw Failure(
                description: "HERON_PHP is not set: run the suite with scripts/test (or scripts/with-servers), "
                    + "which installs php-cli and sets it")
        }
        let request = try JSONSerialization.data(withJSONObject: queries)
        let result = try await ExternalProcess.run(
            php, ["-d", "max_input_vars=1000000", "-d", "max_input_nesting_level=256", script.path], input: request)
        guard result.status == 0 else {
            throw Failure(
                description:
                    "php exited with \(result.status): \(String(decoding: result.standardError, as: UTF8.self))")
        }
        let data = result.standardOutput
        guard let results = try JSONSerialization.jsonObject(with: data) as? [Any], results.count == queries.count
        else {
            throw Failure(
                description: "php printed an unexpected result: \(String(decoding: data.prefix(300), as: UTF8.self))")
        }
        return try results.map { json in
            guard let tree = FormTree(json: json) else {
                throw Failure(description: "php printed a non-form value: \(json)")
            }
            return tree
        }
    }
}
