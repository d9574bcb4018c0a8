import Foundation
import HTTPCore
import TestSupport

@testable import HTTPCache
@testable import HTTPClient

/// A field value of a scripted step: text, or a date that many seconds from the clock.
enum ScriptedValue: CustomStringConvertible {
    case text(String)
    case date(Int)

    func text(at now: Date) -> String {
        switch self {
        case .text(let text): return text
        case .date(let offset): return HTTPDate.format(now.addingTimeInterval(Double(offset)))
        }
    }

    var json: Any {
        switch self {
        case .text(let text): return text
        case .date(let offset): return offset
        }
    }

    var description: String {
        switch self {
        case .text(let text): return text
        case .date(let offset): return "now\(offset >= 0 ? "+" : "")\(offset)"
        }
    }
}

/// One scripted exchange: the clock moves, the caller sends a request, and the origin answers
/// it (with `304` when the request carries the answer's validator).
struct DifferentialStep: CustomStringConvertible {
    var advance: Double
    var method: String
    var path: String
    var request: [(String, ScriptedValue)]
    var status: Int
    var response: [(String, ScriptedValue)]
    var body: String

    var json: [String: Any] {
        [
            "advance": advance, "method": method, "path": path, "request": request.map { [$0.0, $0.1.json] },
            "status": status, "response": response.map { [$0.0, $0.1.json] }, "body": body,
        ]
    }

    var description: String {
        let sent = request.map { "\($0.0): \($0.1)" }.joined(separator: "; ")
        let answer = response.map { "\($0.0): \($0.1)" }.joined(separator: "; ")
        return "+\(Int(advance))s \(method) \(path) [\(sent)] -> \(status) [\(answer)]"
    }

    func requestDirectives() -> CacheDirectives {
        var fields = HTTPFields()
        for (name, value) in request where name.lowercased() == "cache-control" {
            fields.append(try! HTTPField(name: .cacheControl, value: value.text(at: Date())))
        }
        return CacheDirectives(fields)
    }

    func responseValue(_ name: String) -> String? {
        response.first { $0.0.lowercased() == name.lowercased() }.map { $0.1.text(at: Date()) }
    }

    func hasResponseField(_ name: String) -> Bool { response.contains { $0.0.lowercased() == name.lowercased() } }
}

typealias DifferentialScenario = [DifferentialStep]

extension [DifferentialStep] {
    /// A scenario from `seed`: a `GET` whose response may be stored, then, after a while, a
    /// `GET` or `HEAD` for the same URI, its response the origin's answer if the cache asks;
    /// in one scenario of five an unsafe `POST` to the URI comes between them.
    static func generate(seed: UInt64) -> [DifferentialStep] {
        var random = SeededRandom(seed: seed)
        var first = DifferentialStep(
            advance: 0, method: "GET", path: "/a", request: [],
            status: random.pick([200, 200, 200, 203, 301, 404, 201]),
            response: randomResponse(&random), body: "first")
        if random.chance(0.2) { first.request.append(("Accept", .text("a"))) }
        var steps = [first]
        if random.chance(0.2) {
            steps.append(
                DifferentialStep(
                    advance: 1, method: "POST", path: "/a", request: [], status: random.pick([200, 204, 500]),
                    response: [("Date", .date(0))], body: "posted"))
        }
        var second = DifferentialStep(
            advance: Double(random.pick([0, 5, 30, 61, 125, 700, 4000, 100_000])),
            method: random.chance(0.85) ? "GET" : "HEAD", path: "/a", request: [],
            status: random.pick([200, 200, 500, 404]), response: randomResponse(&random), body: "second")
        if random.chance(0.4) {
            let directive = random.pick([
                "no-cache", "max-age=0", "max-age=30", "max-stale=100", "min-fresh=30", "no-store", "max-stale",
                "only-if-cached",
            ])
            second.request.append(("Cache-Control", .text(directive)))
        }
        if random.chance(0.2) { second.request.append(("Accept", .text(random.pick(["a", "b"])))) }
        steps.append(second)
        return steps
    }

    private static func randomResponse(_ random: inout SeededRandom) -> [(String, ScriptedValue)] {
        var response: [(String, ScriptedValue)] = []
        if random.chance(0.85) { response.append(("Date", .date(random.pick([0, 0, 0, -10, -100])))) }
        if random.chance(0.75) {
            let control = random.pick([
                "max-age=60", "max-age=60", "max-age=0", "no-cache", "no-store", "private, max-age=60", "public",
                "max-age=10, must-revalidate", "max-age=3600", "s-maxage=10, max-age=600",
                "max-age=60, stale-while-revalidate=100", "max-age=60, stale-if-error=100", "max-age=600, immutable",
            ])
            response.append(("Cache-Control", .text(control)))
        }
        if random.chance(0.25) {
            response.append(("Expires", random.chance(0.8) ? .date(random.pick([60, -60, 3600])) : .text("0")))
        }
        if random.chance(0.5) { response.append(("ETag", .text(random.pick(["\"v1\"", "W/\"w\""])))) }
        if random.chance(0.4) { response.append(("Last-Modified", .date(random.pick([-3600, -86400, -600_000])))) }
        if random.chance(0.15) { response.append(("Age", .text(random.pick(["30", "100", "7200"])))) }
        if random.chance(0.15) { response.append(("Vary", .text(random.pick(["Accept", "*"])))) }
        return response
    }
}

/// SplitMix64's numbers (TestSupport), with the draws the scenarios make of them.
struct SeededRandom {
    private var source: SplitMix64

    init(seed: UInt64) { source = SplitMix64(seed: seed) }

    mutating func next() -> UInt64 { source.next() }

    mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    mutating func chance(_ probability: Double) -> Bool { Double(next() % 10_000) / 10_000 < probability }

    mutating func pick<Element>(_ elements: [Element]) -> Element { elements[int(in: 0...(elements.count - 1))] }
}

/// A disagreement to judge: the step, its scenario, and both outcomes.
struct DifferenceContext {
    let scenario: [DifferentialStep]
    let step: Int
    let heron: StepOutcome
    let hishel: StepOutcome

    var current: DifferentialStep { scenario[step] }
    /// The first step, whose response is the one a cache may hold.
    var stored: DifferentialStep? { step > 0 ? scenario[0] : nil }
}

/// A known kind of disagreement: where Heron follows `section` and hishel does not.
struct ExplainedDifference: Sendable {
    let name: String
    let section: String
    let applies: @Sendable (DifferenceContext) -> Bool
}
