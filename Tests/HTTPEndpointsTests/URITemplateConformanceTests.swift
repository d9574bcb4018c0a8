import Foundation
import HTTPEndpoints
import Testing

/// Every case of the public RFC 6570 test suite (uritemplate-test, Apache-2.0), kept in
/// `Tests/Conformance/uritemplate/`: each is its own parameterised test case.
@Suite("URITemplate conformance (uritemplate-test)")
struct URITemplateConformanceTests {
    /// The suite's files and how many test cases each holds.
    static let files: [(name: String, cases: Int)] = [
        ("spec-examples.json", 64),
        ("spec-examples-by-section.json", 117),
        ("extended-tests.json", 53),
        ("negative-tests.json", 36),
    ]

    @Test("all four files load, with 270 cases in all")
    func loadsEveryCase() {
        #expect(ConformanceCase.loaded.problems == [])
        #expect(ConformanceCase.loaded.cases.count == 270)
        for file in Self.files {
            #expect(ConformanceCase.loaded.cases.count { $0.file == file.name } == file.cases, "\(file.name)")
        }
    }

    @Test("expands or rejects the template as the suite expects", arguments: ConformanceCase.loaded.cases)
    func conformance(_ testCase: ConformanceCase) {
        switch testCase.expected {
        case .oneOf(let accepted):
            do {
                let template = try URITemplate(testCase.template)
                let expanded = try template.expand(testCase.variables)
                #expect(accepted.contains(expanded), "expected one of \(accepted)")
                let viaLookup = try template.expand { name in testCase.variables[name] }
                #expect(viaLookup == expanded)
            } catch {
                Issue.record("unexpected error: \(error)")
            }
        case .failure:
            #expect(throws: URITemplateError.self) {
                try URITemplate(testCase.template).expand(testCase.variables)
            }
        }
    }
}

/// One `[template, expected]` entry of the suite with the variables of its group.
struct ConformanceCase: Sendable, CustomTestStringConvertible {
    /// What the suite expects.
    enum Expected: Sendable {
        /// Any of these expansions (associative arrays may be expanded in any order).
        case oneOf([String])
        /// `false`: parsing or expansion fails.
        case failure
    }

    let file: String
    let group: String
    let template: String
    let variables: [String: URITemplate.Value]
    let expected: Expected

    var testDescription: String { "\(file) › \(group) › \(template)" }

    /// The cases of every file, and a description of each file that could not be read.
    static let loaded: (cases: [ConformanceCase], problems: [String]) = {
        let directory = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("Conformance/uritemplate")
        var cases: [ConformanceCase] = []
        var problems: [String] = []
        for file in URITemplateConformanceTests.files {
            do {
                let data = try Data(contentsOf: directory.appendingPathComponent(file.name))
                cases += try load(OrderedJSON.parse(Array(data)), file: file.name)
            } catch {
                problems.append("\(file.name): \(error)")
            }
        }
        return (cases, problems)
    }()

    private static func load(_ json: OrderedJSON, file: String) throws -> [ConformanceCase] {
        guard case .object(let groups) = json else { throw OrderedJSON.Failure("the top level is not an object") }
        var cases: [ConformanceCase] = []
        for (group, body) in groups {
            guard case .object(let members) = body,
                case .object(let variableMembers)? = members.first(where: { $0.0 == "variables" })?.1,
                case .array(let entries)? = members.first(where: { $0.0 == "testcases" })?.1
            else { throw OrderedJSON.Failure("group \(group) lacks variables or testcases") }
            var variables: [String: URITemplate.Value] = [:]
            for (name, value) in variableMembers {
                variables[name] = try templateValue(value)
            }
            for entry in entries {
                guard case .array(let pair) = entry, pair.count == 2, case .string(let template) = pair[0] else {
                    throw OrderedJSON.Failure("a test case of \(group) is not [template, expected]")
                }
                let expected: Expected
                switch pair[1] {
                case .string(let expansion): expected = .oneOf([expansion])
                case .array(let expansions): expected = .oneOf(try expansions.map(scalarText))
                case .bool(false): expected = .failure
                default: throw OrderedJSON.Failure("unexpected expectation for \(template)")
                }
                cases.append(
                    ConformanceCase(
                        file: file, group: group, template: template, variables: variables, expected: expected))
            }
        }
        return cases
    }

    /// A JSON variable as a template value; `null` is an undefined variable (`nil`).
    private static func templateValue(_ json: OrderedJSON) throws -> URITemplate.Value? {
        switch json {
        case .null: return nil
        case .array(let items): return .list(try items.map(scalarText))
        case .object(let members): return .associative(try members.map { (key: $0.0, value: try scalarText($0.1)) })
        default: return .string(try scalarText(json))
        }
    }

    /// A string, or a number as the text it has in the file (`37.76`, `-122.427`).
    private static func scalarText(_ json: OrderedJSON) throws -> String {
        switch json {
        case .string(let text), .number(let text): return text
        case .bool(let flag): return flag ? "true" : "false"
        default: throw OrderedJSON.Failure("expected a string or a number")
        }
    }
}

/// A JSON value that keeps the order of object members and the text of numbers, which
/// `JSONSerialization` does not: associative arrays must expand in file order, and a
/// number such as `37.76` must stay that text.
enum OrderedJSON: Sendable {
    case string(String)
    case number(String)
    case bool(Bool)
    case null
    case array([OrderedJSON])
    case object([(String, OrderedJSON)])

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Parses a complete JSON document (RFC 8259).
    static func parse(_ bytes: [UInt8]) throws -> OrderedJSON {
        var reader = Reader(bytes: bytes)
        let value = try reader.value()
        reader.skipWhitespace()
        guard reader.index == bytes.count else { throw reader.failure("trailing characters") }
        return value
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        func failure(_ what: String) -> Failure { Failure("\(what) at byte \(index)") }

        mutating func skipWhitespace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func value() throws -> OrderedJSON {
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try object()
            case UInt8(ascii: "["): return try array()
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try keyword("true", .bool(true))
            case UInt8(ascii: "f"): return try keyword("false", .bool(false))
            case UInt8(ascii: "n"): return try keyword("null", .null)
            default: return try number()
            }
        }

        mutating func keyword(_ word: String, _ value: OrderedJSON) throws -> OrderedJSON {
            let end = index + word.utf8.count
            guard end <= bytes.count, Array(bytes[index..<end]) == Array(word.utf8) else {
                throw failure("unexpected character")
            }
            index = end
            return value
        }

        mutating func number() throws -> OrderedJSON {
            let start = index
            let allowed = Set("+-.eE0123456789".utf8)
            while index < bytes.count, allowed.contains(bytes[index]) { index += 1 }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            guard index > start, Double(text) != nil else { throw failure("invalid number") }
            return .number(text)
        }

        mutating func array() throws -> OrderedJSON {
            index += 1
            var items: [OrderedJSON] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(items)
            }
            while true {
                items.append(try value())
                skipWhitespace()
                guard index < bytes.count else { throw failure("unclosed array") }
                defer { index += 1 }
                if bytes[index] == UInt8(ascii: "]") { return .array(items) }
                guard bytes[index] == UInt8(ascii: ",") else { throw failure("expected , or ]") }
            }
        }

        mutating func object() throws -> OrderedJSON {
            index += 1
            var members: [(String, OrderedJSON)] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a key") }
                let key = try string()
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected :") }
                index += 1
                members.append((key, try value()))
                skipWhitespace()
                guard index < bytes.count else { throw failure("unclosed object") }
                defer { index += 1 }
                if bytes[index] == UInt8(ascii: "}") { return .object(members) }
                guard bytes[index] == UInt8(ascii: ",") else { throw failure("expected , or }") }
            }
        }

        mutating func string() throws -> String {
            index += 1
            var scalars = String.UnicodeScalarView()
            var run: [UInt8] = []
            func flush() {
                scalars.append(contentsOf: String(decoding: run, as: UTF8.self).unicodeScalars)
                run.removeAll()
            }
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    flush()
                    return String(scalars)
                case UInt8(ascii: "\\"):
                    flush()
                    guard index < bytes.count else { break }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "b"): scalars.append("\u{8}")
                    case UInt8(ascii: "f"): scalars.append("\u{C}")
                    case UInt8(ascii: "u"): scalars.append(try unicodeEscape())
                    default: scalars.append(Unicode.Scalar(escape))
                    }
                default:
                    run.append(byte)
                }
            }
            throw failure("unclosed string")
        }

        /// The scalar of `\uXXXX` (the `\u` already read), joining a surrogate pair.
        mutating func unicodeEscape() throws -> Unicode.Scalar {
            let first = try hex4()
            if (0xD800..<0xDC00).contains(first), index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                bytes[index + 1] == UInt8(ascii: "u")
            {
                index += 2
                let second = try hex4()
                let combined = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                if let scalar = Unicode.Scalar(combined) { return scalar }
            }
            guard let scalar = Unicode.Scalar(first) else { throw failure("invalid \\u escape") }
            return scalar
        }

        mutating func hex4() throws -> UInt32 {
            guard index + 4 <= bytes.count,
                let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
            else { throw failure("invalid \\u escape") }
            index += 4
            return value
        }
    }
}
