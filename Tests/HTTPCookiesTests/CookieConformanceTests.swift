import Foundation
import Testing

@testable import HTTPCookies

/// The http-state cookie suite (the test data behind RFC 6265, kept in
/// `Tests/Conformance/cookies/`): each parser case stores its `Set-Cookie` values from one
/// response and checks the `Cookie` field of the next request; each date case parses one
/// cookie-date. A case where RFC 6265bis says otherwise than the 2017 suite is listed in
/// ``CookieConformanceTests/sixTwoSixFiveBis`` with the section that decides it, and must give
/// what 6265bis says instead; every other case must pass as the suite expects.
@Suite("Cookie conformance (http-state suite, RFC 6265bis)")
struct CookieConformanceTests {
    /// The moment the cases run at: the suite's own time (its expiry dates are from 2017 to
    /// 2027 and sit either side of it), with a clock that never moves.
    static let suiteTime = ISO8601DateFormatter().date(from: "2017-06-01T00:00:00Z")!

    /// Cases where RFC 6265bis decides otherwise than the suite, each with what 6265bis sends
    /// and why.
    static let sixTwoSixFiveBis: [String: (sent: [String], reason: String)] = {
        let nameless = "§5.6 step 3 and §5.7 step 2: a pair without a name is a nameless cookie, sent as its value"
        let replaced = nameless + "; a later nameless cookie replaces it (§5.7 step 22)"
        let empty = nameless + "; a pair with neither name nor value is ignored"
        return [
            "0004": (["foo"], nameless), "0021": (["a=b", "x", "c=d"], nameless),
            "0023": (["foo"], empty), "0024": (["foo"], empty), "0025": (["foo"], empty),
            "0026": (["foo"], empty), "0027": (["bar"], replaced), "0028": (["foo"], empty),
            "CHROMIUM0009": (["BLAHHH"], nameless), "CHROMIUM0010": (["\"BLA\\\"HHH\""], nameless),
            "CHROMIUM0012": (["ABC"], nameless), "MOZILLA0012": (["test=\"fubar! = foo", "five"], nameless),
            "MOZILLA0014": (["six"], nameless), "MOZILLA0015": (["seven"], replaced),
            "MOZILLA0016": (["eight"], replaced), "MOZILLA0017": (["eight", "test=six"], replaced),
            "NAME0017": (["a=bar"], nameless), "NAME0023": (["foo"], nameless), "NAME0025": (["==a=bar"], nameless),
            "NAME0028": (["a"], nameless), "NAME0031": (["\"foo"], nameless), "NAME0032": (["\"foo\\\"bar"], nameless),
            "NAME0033": (["aaa"], replaced),
        ]
    }()

    /// Cases disabled upstream, where browsers disagreed; what this jar does, and why.
    static let disabled: [String: (sent: [String], reason: String)] = [
        "DISABLED_CHROMIUM0022": ([], "§5.6 step 1: a NUL in the field ignores it entirely (the suite cut the value)"),
        "DISABLED_CHROMIUM0023": ([], "§5.6 step 1: a CR in the field ignores it entirely (the suite cut the value)"),
        "DISABLED_PATH0029": (
            [], "§5.1.4: paths are compared as sent, percent-encoded: /f%6Fo/ is not under /foo/ (the suite decoded it)"
        ),
    ]

    @Test("the parser file loads, with 222 cases")
    func loads() throws {
        #expect(try ParserCase.all().count == 222)
    }

    @Test("each parser case sends what the suite (or RFC 6265bis) expects", arguments: try! ParserCase.all())
    func parserCase(_ testCase: ParserCase) throws {
        let jar = CookieJar(clock: { Self.suiteTime })
        let origin = URL(string: "http://home.example.org:8888/cookie-parser?\(testCase.test.lowercased())")!
        jar.store(setCookie: testCase.received, for: origin)
        let target =
            testCase.sentTo.map { URL(string: $0, relativeTo: URL(string: "http://home.example.org:8888")!)! }
            ?? URL(string: "http://home.example.org:8888/cookie-parser-result?\(testCase.test.lowercased())")!
        let sent = jar.cookies(for: target.absoluteURL).map(\.pair)
        if let decided = Self.disabled[testCase.test] {
            #expect(sent == decided.sent, "disabled upstream: \(decided.reason)")
        } else if let decided = Self.sixTwoSixFiveBis[testCase.test] {
            #expect(sent == decided.sent, "6265bis: \(decided.reason)")
            #expect(sent != testCase.expected, "listed as differing, but gives what the suite expects")
        } else {
            #expect(sent == testCase.expected)
        }
    }

    @Test(
        "each cookie-date parses to the date the suite gives, or fails where it gives none",
        arguments: try! DateCase.all())
    func dateCase(_ testCase: DateCase) {
        let parsed = CookieDate.parse(testCase.text[...])
        #expect(parsed == testCase.expected)
    }
}

/// One case of `parser.json`.
struct ParserCase: Sendable, CustomTestStringConvertible {
    let test: String
    let received: [String]
    let sentTo: String?
    /// The cookies sent, as `name=value` (the value alone for a nameless one).
    let expected: [String]

    var testDescription: String { test }

    static func all() throws -> [ParserCase] {
        let data = try Data(contentsOf: Conformance.directory.appendingPathComponent("parser.json"))
        guard let cases = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return cases.map { entry in
            let sent = (entry["sent"] as? [[String: String]] ?? []).map { cookie in
                let name = cookie["name"] ?? ""
                return name.isEmpty ? cookie["value"] ?? "" : "\(name)=\(cookie["value"] ?? "")"
            }
            return ParserCase(
                test: entry["test"] as? String ?? "?", received: entry["received"] as? [String] ?? [],
                sentTo: entry["sent-to"] as? String, expected: sent)
        }
    }
}

/// One case of `dates.json` or `dates-bsd.json`.
struct DateCase: Sendable, CustomTestStringConvertible {
    let file: String
    let text: String
    /// The date, or `nil` when the suite expects the text to fail.
    let expected: Date?

    var testDescription: String { "\(file): \(text)" }

    static func all() throws -> [DateCase] {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        var cases: [DateCase] = []
        for file in ["dates.json", "dates-bsd.json"] {
            let text = try String(contentsOf: Conformance.directory.appendingPathComponent(file), encoding: .utf8)
            // dates-bsd.json starts with its licence, in `//` lines.
            let json = text.split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(separator: "\n")
            guard let entries = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]] else {
                throw CocoaError(.fileReadCorruptFile)
            }
            for entry in entries {
                let expected = (entry["expected"] as? String).flatMap { formatter.date(from: $0) }
                cases.append(DateCase(file: file, text: entry["test"] as? String ?? "", expected: expected))
            }
        }
        return cases
    }
}

enum Conformance {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Conformance/cookies")
}
