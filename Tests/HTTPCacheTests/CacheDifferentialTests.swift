import Foundation
import HTTPCore
import TestSupport
import TestTraits
import Testing

@testable import HTTPCache
@testable import HTTPClient

/// Scripted exchanges, generated from fixed seeds, replayed through Heron's cache and through
/// Python's hishel 2.0 (RFC 9111 mode, private cache: `CacheOptions(shared=False)`) on the
/// same clock (Tests/Peers/hishel_cache.py). For each step the two must agree on how many
/// requests reached the origin, which validators the last one carried, and the status the
/// caller got; every disagreement must be one of ``CacheDifferentialTests/explained``, each a
/// behaviour where Heron follows the RFC section it names and hishel does not.
@Suite("HTTP cache differential against hishel 2.0", .heavyWork)
struct CacheDifferentialTests {
    static let seeds = 1...300

    @Test("300 seeded scenarios agree with hishel 2.0, or differ only where Heron follows the named RFC section")
    func differential() async throws {
        let python = try #require(ProcessInfo.processInfo.environment["HERON_PYTHON"], "run with scripts/with-servers")
        let scenarios = Self.seeds.map { DifferentialScenario.generate(seed: UInt64($0)) }
        let peer = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Peers/hishel_cache.py")
        let input = try JSONSerialization.data(withJSONObject: scenarios.map { $0.map(\.json) })
        let output = try await ExternalProcess.run(python, [peer.path], input: input)
        try #require(
            output.status == 0, "hishel peer failed: \(String(decoding: output.standardError, as: UTF8.self))")
        let theirs = try JSONDecoder().decode([[StepOutcome]].self, from: output.standardOutput)
        try #require(theirs.count == scenarios.count)

        var explainedCounts: [String: Int] = [:]
        var agreed = 0
        var total = 0
        for (index, scenario) in scenarios.enumerated() {
            let ours = try await Self.runHeron(scenario)
            for step in scenario.indices {
                total += 1
                if ours[step] == theirs[index][step] {
                    agreed += 1
                    continue
                }
                let context = DifferenceContext(
                    scenario: scenario, step: step, heron: ours[step], hishel: theirs[index][step])
                if let reason = Self.explained.first(where: { $0.applies(context) }) {
                    explainedCounts[reason.name, default: 0] += 1
                } else {
                    Issue.record(
                        """
                        seed \(Self.seeds.lowerBound + index), step \(step + 1): Heron \(ours[step]), hishel \
                        \(theirs[index][step])
                        \(scenario.enumerated().map { "  \($0.offset + 1). \($0.element)" }.joined(separator: "\n"))
                        """)
                }
            }
        }
        print("differential against hishel 2.0: \(agreed)/\(total) steps agree")
        for reason in Self.explained {
            print("  \(explainedCounts[reason.name] ?? 0) differ: \(reason.name) (\(reason.section))")
        }
        #expect(total >= 600)
        #expect(agreed * 2 > total, "most steps must agree")
    }

    /// The scenario through `Client` and `CachingTransport` on a manual clock.
    static func runHeron(_ scenario: [DifferentialStep]) async throws -> [StepOutcome] {
        let clock = ManualClock()
        let current = Locked(0)
        let origin = ScriptedOrigin { request, _ in
            let step = scenario[current.withLock { $0 }]
            var fields = HTTPFields()
            for (name, value) in step.response {
                try fields.append(name: HTTPFieldName(name), value: value.text(at: clock.now))
            }
            let tag = fields[values: .eTag].first
            let modified = fields[values: .lastModified].first
            if (tag != nil && request.headerFields[.ifNoneMatch] == tag)
                || (modified != nil && request.headerFields[.ifModifiedSince] == modified)
            {
                return TransportResponse(head: HTTPResponse(status: .notModified, headerFields: fields), body: nil)
            }
            let status = try HTTPStatus(code: step.status)
            let hasBody = request.method != .head && step.status != 204
            return TransportResponse(
                head: HTTPResponse(status: status, headerFields: fields), body: hasBody ? HTTPBody(step.body) : nil)
        }
        var configuration = CacheConfiguration()
        configuration.clock = clock.cacheClock
        let cache = CachingTransport(wrapping: origin, configuration: configuration)
        let client = Client(
            baseURL: URL(string: "https://origin.example")!, transport: cache, retry: .none, redirectLimit: 0)
        var outcomes: [StepOutcome] = []
        for (index, step) in scenario.enumerated() {
            clock.advance(step.advance)
            current.withLock { $0 = index }
            let before = origin.count
            var request = HTTPRequest(method: try HTTPMethod(step.method), url: URL(string: step.path)!)
            for (name, value) in step.request {
                try request.headerFields.append(name: HTTPFieldName(name), value: value.text(at: clock.now))
            }
            if step.method == "POST" { request.body = HTTPBody("x") }
            let response = try await client.send(request)
            await cache.backgroundRevalidationsFinished()
            let sent = origin.count - before
            let last = sent > 0 ? origin.requests.last : nil
            let conditional = [HTTPFieldName.ifModifiedSince, .ifNoneMatch].filter {
                last?.headerFields.contains($0) == true
            }
            .map(\.canonicalName).sorted()
            outcomes.append(StepOutcome(sent: sent, conditional: conditional, status: response.status.code))
        }
        return outcomes
    }
}

/// What one step came to, on either side.
struct StepOutcome: Codable, Equatable, CustomStringConvertible {
    var sent: Int
    var conditional: [String]
    var status: Int

    var description: String { "sent \(sent)\(conditional.isEmpty ? "" : " \(conditional)"), status \(status)" }
}

extension CacheDifferentialTests {
    /// The disagreements found and judged, each with the section Heron follows (an unexplained
    /// one fails the test). Each predicate names the one cause it explains, from the step and
    /// the stored response's fields, and the outcomes it expects of both sides.
    static let explained: [ExplainedDifference] = [
        ExplainedDifference(
            name: "a HEAD is answered from the stored GET, or validates it; hishel sends the HEAD plain",
            section: "RFC 9110 §9.3.1: a cache may use a GET response for a later HEAD; RFC 9111 §4.3.5"
        ) { context in
            context.current.method == "HEAD" && context.hishel.sent == 1 && context.hishel.conditional.isEmpty
                && (context.heron.sent == 0 || !context.heron.conditional.isEmpty)
        },
        ExplainedDifference(
            name: "only-if-cached with nothing usable stored: a 504 without contacting the origin",
            section: "RFC 9111 §5.2.1.7"
        ) { context in
            context.current.requestDirectives().has("only-if-cached") && context.heron.sent == 0
                && context.hishel.sent > 0
        },
        ExplainedDifference(
            name: "a response with Vary: * is not stored; hishel validates with it",
            section: "RFC 9111 §4.1: Vary: * always fails to match"
        ) { context in
            context.stored?.responseValue("Vary")?.contains("*") == true && context.heron.conditional.isEmpty
                && !context.hishel.conditional.isEmpty
        },
        ExplainedDifference(
            name: "the request does not match the stored variant: sent without its validators",
            section: "RFC 9111 §4.1: no selected response, the request is forwarded"
        ) { context in
            guard let stored = context.stored, stored.responseValue("Vary") == "Accept" else { return false }
            let storedAccept = stored.request.first { $0.0 == "Accept" }.map { $0.1.description }
            let accept = context.current.request.first { $0.0 == "Accept" }.map { $0.1.description }
            return storedAccept != accept && context.heron.conditional.isEmpty && !context.hishel.conditional.isEmpty
        },
        ExplainedDifference(
            name: "the age counts the Age field and, without Date, the time since it was received; hishel serves it",
            section: "RFC 9111 §4.2.3"
        ) { context in
            guard let stored = context.stored else { return false }
            let ageSource = stored.hasResponseField("Age") || !stored.hasResponseField("Date")
            return ageSource && context.heron.sent == 1 && context.hishel.sent == 0
        },
        ExplainedDifference(
            name: "a 304 with a weak ETag freshens the stored response it matches; hishel sends the request again",
            section: "RFC 9111 §4.3.4: a weak validator selects the stored responses it matches"
        ) { context in
            context.hishel.sent == 2 && context.heron.sent == 1 && context.heron.conditional.contains("if-none-match")
                && context.current.responseValue("ETag")?.hasPrefix("W/") == true
        },
        ExplainedDifference(
            name: "the request's max-age refuses a stored response older than it; hishel serves it",
            section: "RFC 9111 §5.2.1.1"
        ) { context in
            guard case .value(let limit)? = context.current.requestDirectives().seconds("max-age") else { return false }
            return context.current.advance > Double(limit) && context.heron.sent == 1 && context.hishel.sent == 0
        },
        ExplainedDifference(
            name: "max-stale accepts the stale response without validation",
            section: "RFC 9111 §5.2.1.2"
        ) { context in
            context.current.requestDirectives().has("max-stale") && context.heron.sent == 0 && context.hishel.sent == 1
        },
    ]
}
