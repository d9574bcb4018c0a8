import Foundation

@testable import HTTPCache

/// A JSON value of the cache test suite's data, kept as parsed.
enum JSONValue: Sendable, Equatable, Decodable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    var number: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    var array: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    var isNull: Bool { self == .null }

    /// The value as the JavaScript runner would print it in a header: strings as they are,
    /// whole numbers without a fraction.
    var text: String {
        switch self {
        case .string(let value): return value
        case .number(let value): return value == value.rounded() ? String(Int64(value)) : String(value)
        case .bool(let value): return String(value)
        case .null: return "null"
        case .array(let values): return values.map(\.text).joined(separator: ", ")
        case .object: return "[object]"
        }
    }

    /// Encodes the value back to JSON data, for the origin's config.
    var jsonObject: Any {
        switch self {
        case .string(let value): return value
        case .number(let value): return value == value.rounded() && abs(value) < 1e15 ? Int64(value) : value
        case .bool(let value): return value
        case .null: return NSNull()
        case .array(let values): return values.map(\.jsonObject)
        case .object(let object): return object.mapValues(\.jsonObject)
        }
    }
}

/// One test of the suite: its id, kind, dependencies and request objects.
struct ConformanceCase: Sendable {
    let id: String
    let name: String
    /// `required`, `optimal` or `check`.
    let kind: String
    let dependsOn: [String]
    let requests: [JSONValue]

    /// The tests of the private (browser) selection (README: leave out `browser_skip` and
    /// `cdn_only`), in the order of the file.
    static func privateSelection() throws -> [ConformanceCase] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Conformance/http-cache/suites.json")
        let suites = try JSONDecoder().decode([JSONValue].self, from: Data(contentsOf: url))
        var cases: [ConformanceCase] = []
        for suite in suites {
            for test in suite["tests"]?.array ?? [] {
                if test["browser_skip"]?.bool == true || test["cdn_only"]?.bool == true { continue }
                cases.append(
                    ConformanceCase(
                        id: test["id"]?.string ?? "", name: test["name"]?.string ?? "",
                        kind: test["kind"]?.string ?? "required",
                        dependsOn: (test["depends_on"]?.array ?? []).compactMap(\.string),
                        requests: test["requests"]?.array ?? []))
            }
        }
        return cases
    }
}

/// How one test ended.
enum ConformanceResult: Sendable, Equatable {
    case passed
    /// An assertion about the cache failed.
    case failed(String)
    /// A check the test marks as setup failed: the test could not be judged.
    case setupFailed(String)
    /// A test it depends on did not pass.
    case skipped(String)

    var passed: Bool { self == .passed }

    var reason: String {
        switch self {
        case .passed: return "passed"
        case .failed(let reason): return "failed: \(reason)"
        case .setupFailed(let reason): return "setup failed: \(reason)"
        case .skipped(let reason): return "skipped: \(reason)"
        }
    }
}
