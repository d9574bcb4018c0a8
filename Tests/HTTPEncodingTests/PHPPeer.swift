import Foundation

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
    static func parse(_ queries: [String]) throws -> [FormTree] {
        guard let php = ProcessInfo.processInfo.environment["HERON_PHP"], !php.isEmpty else {
            throw Failure(
                description: "HERON_PHP is not set: run the suite with scripts/test (or scripts/with-servers), "
                    + "which installs php-cli and sets it")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: php)
        process.arguments = ["-d", "max_input_vars=1000000", "-d", "max_input_nesting_level=256", script.path]
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let request = try JSONSerialization.data(withJSONObject: queries)
        let writer = Thread {
            input.fileHandleForWriting.write(request)
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let messages = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(
                description:
                    "php exited with \(process.terminationStatus): \(String(decoding: messages, as: UTF8.self))")
        }
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
