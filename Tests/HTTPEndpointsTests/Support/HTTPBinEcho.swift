import Foundation

/// The httpbin echo types and helpers of ``EndpointHTTPBinTests``, nested so that they cannot
/// clash with other test files of the target.
extension EndpointHTTPBinTests {
    /// What httpbin's `/anything` says it received.
    struct Echo: Decodable, Sendable {
        var method: String
        /// The URL as httpbin rebuilds it from the decoded path (WSGI `PATH_INFO`), re-quoted.
        var url: String
        var args: [String: StringOrArray]
        var headers: [String: String]
        var form: [String: StringOrArray]
        var files: [String: StringOrArray]
        var json: JSONValue?
        var data: String

        /// The echoed URL from its path on: everything after the scheme and authority.
        var path: String {
            guard let scheme = url.range(of: "://") else { return url }
            let rest = url[scheme.upperBound...]
            return rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? ""
        }
    }

    /// A value httpbin writes as a string, or as an array when a name repeats.
    enum StringOrArray: Decodable, Hashable, Sendable, ExpressibleByStringLiteral, ExpressibleByArrayLiteral {
        case one(String)
        case many([String])

        init(stringLiteral value: String) { self = .one(value) }
        init(arrayLiteral elements: String...) { self = .many(elements) }

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) {
                self = .one(text)
            } else {
                self = .many(try container.decode([String].self))
            }
        }
    }

    /// Any JSON value, for comparing what httpbin parsed from a request body.
    enum JSONValue: Decodable, Hashable, Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
        ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
    {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([JSONValue])
        case object([String: JSONValue])

        init(stringLiteral value: String) { self = .string(value) }
        init(integerLiteral value: Int) { self = .number(Double(value)) }
        init(booleanLiteral value: Bool) { self = .bool(value) }
        init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
        init(dictionaryLiteral elements: (String, JSONValue)...) {
            self = .object(Dictionary(elements) { first, _ in first })
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let flag = try? container.decode(Bool.self) {
                self = .bool(flag)
            } else if let number = try? container.decode(Double.self) {
                self = .number(number)
            } else if let text = try? container.decode(String.self) {
                self = .string(text)
            } else if let items = try? container.decode([JSONValue].self) {
                self = .array(items)
            } else {
                self = .object(try container.decode([String: JSONValue].self))
            }
        }
    }

    /// Values appended from any thread (progress callbacks, variable providers), read after the call.
    final class Recorder<Item: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [Item] = []

        func append(_ item: Item) { lock.withLock { items.append(item) } }
        var values: [Item] { lock.withLock { items } }
    }

    // MARK: Helpers

    /// A file part's content as httpbin echoes it: the text itself when it is UTF-8, else a
    /// `data:` URL with the bytes in base64.
    static func fileContent(_ echoed: String) -> Data? {
        guard echoed.hasPrefix("data:") else { return Data(echoed.utf8) }
        guard let marker = echoed.range(of: ";base64,") else { return nil }
        return Data(base64Encoded: String(echoed[marker.upperBound...]))
    }

    /// `count` random bytes (not valid UTF-8, in all likelihood, so httpbin sends them back in base64).
    static func randomBytes(_ count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        var data = Data(capacity: count + 8)
        while data.count < count {
            withUnsafeBytes(of: generator.next() as UInt64) { data.append(contentsOf: $0) }
        }
        return Data(data.prefix(count))
    }

    /// Runs `body` with a new empty directory, removed afterwards whatever happens.
    static func withTemporaryDirectory<Value>(_ body: (URL) async throws -> Value) async throws -> Value {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("heron-endpoint-httpbin-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory)
    }

    /// The names in `directory`, hidden ones included, sorted.
    static func contents(of directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }
}
