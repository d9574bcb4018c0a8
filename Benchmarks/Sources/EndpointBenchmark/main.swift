// EndpointBenchmark: HTTPEndpoints against baselines written by hand, measured in the same run.
//
//   swift run -c release --package-path Benchmarks EndpointBenchmark [runs]
//
// template: `{/owner,repo}/issues{?state,labels*,page}{&per_page}`, parsed once, expanded
//     with six values (one a 2-element list) from a dictionary built once, against the
//     same URI built with string interpolation and Foundation's
//     `addingPercentEncoding(withAllowedCharacters:)` on each value. Target: at least
//     1,000,000 expansions per second on one core.
// request: an Endpoint<NewIssue, Issue> (`POST /repos/{owner}/{repo}/issues`, a JSON body,
//     two declared header fields) building its HTTPRequest with makeRequest (variables
//     taken from the value's properties, those left out of the body), against the same
//     request built by hand: URL by interpolation and addingPercentEncoding, the body by
//     a JSONEncoder (sorted keys) from a struct without the path properties, four fields
//     set. Target: the endpoint at most 1.5x the hand-built time.
//
// Each run takes the median of several rounds for both sides, timed in wall time and in
// CPU time of the measuring thread (CLOCK_THREAD_CPUTIME_ID), which other processes' load
// disturbs far less on this shared machine. The summary is the median over the runs.
// HERON_BENCH_JSON / HERON_BENCH_QUICK: see BenchmarkSupport's Report (quick: 3 rounds of
// a tenth of the iterations).
import BenchmarkSupport
import Foundation
import HTTPCore
import HTTPEndpoints

let runs = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 5 : 5
let rounds = Report.quick ? 3 : 11
/// Iterations per round: a tenth of `full` in a quick run.
func iterations(_ full: Int) -> Int { Report.quick ? full / 10 : full }

/// Operations per second, by wall clock and by thread CPU time.
struct Rate {
    var wall: Double
    var cpu: Double
}

/// Keeps results alive so the optimizer cannot drop the work that made them.
nonisolated(unsafe) var sink = 0

/// The median rate of `body` over `rounds` rounds of `iterations` calls each (after one
/// untimed round); `body` returns something derived from its result, added to `sink`.
func rate(iterations: Int, _ body: () throws -> Int) rethrows -> Rate {
    var cpuSamples: [Double] = []
    let wallSamples = try Measure.seconds(rounds: rounds) {
        let start = Measure.threadCPUSeconds()
        var total = 0
        for _ in 0..<iterations { total &+= try body() }
        cpuSamples.append(Measure.threadCPUSeconds() - start)
        sink &+= total
    }
    // Measure.seconds runs one warm-up round first: its CPU sample is not counted.
    let cpu = Measure.median(Array(cpuSamples.dropFirst()))
    return Rate(wall: Double(iterations) / Measure.median(wallSamples), cpu: Double(iterations) / cpu)
}

func perSecond(_ value: Double) -> String {
    let rounded = Int(value.rounded())
    var digits = String(rounded)
    var grouped = ""
    while digits.count > 3 {
        grouped = "," + digits.suffix(3) + grouped
        digits.removeLast(3)
    }
    return digits + grouped + "/s"
}

func ratio(_ value: Double) -> String { String(format: "%.1f", value) }

// MARK: template

/// The template expansion and its hand-written baseline.
enum TemplateBenchmark {
    static let text = "{/owner,repo}/issues{?state,labels*,page}{&per_page}"
    static let owner = "swift-server"
    static let repo = "async-http-client"
    static let state = "open"
    static let labels = ["bug", "good first issue"]
    static let page = "2"
    static let perPage = "50"

    static let variables: [String: URITemplate.Value] = [
        "owner": .string(owner), "repo": .string(repo), "state": .string(state), "labels": .list(labels),
        "page": .string(page), "per_page": .string(perPage),
    ]

    /// RFC 3986 unreserved characters: what RFC 6570 leaves unencoded in these expressions.
    static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func encoded(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    /// The same URI as the template gives, written by hand.
    static func handWritten(
        owner: String, repo: String, state: String, labels: [String], page: String, perPage: String
    ) -> String {
        let labelQuery = labels.map { "&labels=\(encoded($0))" }.joined()
        return "/\(encoded(owner))/\(encoded(repo))/issues?state=\(encoded(state))\(labelQuery)"
            + "&page=\(encoded(page))&per_page=\(encoded(perPage))"
    }

    static func run() throws {
        let template = try URITemplate(text)
        let expanded = try template.expand(variables)
        let baseline = handWritten(
            owner: owner, repo: repo, state: state, labels: labels, page: page, perPage: perPage)
        guard expanded == baseline else {
            print("mismatch: the template gives \(expanded), the baseline \(baseline)")
            exit(1)
        }
        print("template \(text)")
        print("  expands to \(expanded) (identical to the baseline)")

        var summaries: [(template: Rate, baseline: Rate)] = []
        for run in 1...runs {
            let templateRate = try rate(iterations: iterations(200_000)) { try template.expand(variables).utf8.count }
            let baselineRate = rate(iterations: iterations(20_000)) {
                handWritten(owner: owner, repo: repo, state: state, labels: labels, page: page, perPage: perPage)
                    .utf8.count
            }
            summaries.append((templateRate, baselineRate))
            print(
                "run \(run): URITemplate.expand cpu \(perSecond(templateRate.cpu)) wall \(perSecond(templateRate.wall)); "
                    + "interpolation + addingPercentEncoding cpu \(perSecond(baselineRate.cpu)) "
                    + "wall \(perSecond(baselineRate.wall)); ratio cpu \(ratio(templateRate.cpu / baselineRate.cpu)) "
                    + "wall \(ratio(templateRate.wall / baselineRate.wall))")
        }
        let cpu = Measure.median(summaries.map(\.template.cpu))
        let wall = Measure.median(summaries.map(\.template.wall))
        print(
            "median over \(runs) runs: URITemplate.expand cpu \(perSecond(cpu)) wall \(perSecond(wall)) "
                + "(target >= 1,000,000/s); interpolation + addingPercentEncoding cpu "
                + "\(perSecond(Measure.median(summaries.map(\.baseline.cpu)))) wall "
                + "\(perSecond(Measure.median(summaries.map(\.baseline.wall)))); ratio to the baseline cpu "
                + "\(ratio(Measure.median(summaries.map { $0.template.cpu / $0.baseline.cpu }))) wall "
                + "\(ratio(Measure.median(summaries.map { $0.template.wall / $0.baseline.wall })))")
        Report.record(
            "endpoint", "URITemplate.expand / interpolation, cpu", heron: cpu,
            baseline: Measure.median(summaries.map(\.baseline.cpu)), unit: "ops/s",
            ratio: Measure.median(summaries.map { $0.template.cpu / $0.baseline.cpu }), bar: .atLeast(1_000_000),
            on: .heron)
    }
}

// MARK: request

/// Building a request from an endpoint, and the same request by hand.
enum RequestBenchmark {
    struct NewIssue: Encodable, Sendable {
        var owner: String
        var repo: String
        var title: String
        var body: String
        var labels: [String]
        var assignee: String?
    }

    /// What the hand-written code sends: the issue without its path properties.
    struct IssueBody: Encodable {
        var title: String
        var body: String
        var labels: [String]
        var assignee: String?
    }

    struct Issue: Decodable, Sendable { var number: Int }

    static let endpoint = Endpoint<NewIssue, Issue>(.post, "/repos/{owner}/{repo}/issues", body: .json)
        .header(.acceptLanguage, "en")
        .header("X-Api-Version", "2")

    static let issue = NewIssue(
        owner: "swift-server", repo: "async-http-client", title: "Timeouts under load",
        body: "Requests time out when 32 run at once.", labels: ["bug", "good first issue"], assignee: "ada")

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()
    static let versionField = try! HTTPFieldName("X-Api-Version")

    static func handBuilt(_ issue: NewIssue) throws -> HTTPRequest {
        let path = "/repos/\(TemplateBenchmark.encoded(issue.owner))/\(TemplateBenchmark.encoded(issue.repo))/issues"
        let body = IssueBody(title: issue.title, body: issue.body, labels: issue.labels, assignee: issue.assignee)
        var request = HTTPRequest(method: .post, url: URL(string: path)!, body: HTTPBody(try encoder.encode(body)))
        try request.headerFields.set(.acceptLanguage, "en")
        try request.headerFields.set(versionField, "2")
        try request.headerFields.set(.contentType, "application/json")
        try request.headerFields.set(.accept, "application/json")
        return request
    }

    static func bytes(_ request: HTTPRequest) -> Data {
        if case .data(let data)? = request.body?.source { return data }
        return Data()
    }

    static func run() throws {
        var endpointRates: [Double] = []
        var manualRates: [Double] = []
        let built = try endpoint.makeRequest(issue)
        let manual = try handBuilt(issue)
        guard built.url == manual.url, bytes(built) == bytes(manual), built.method == manual.method,
            Set(built.headerFields.map(\.description)) == Set(manual.headerFields.map(\.description))
        else {
            print(
                "mismatch: the endpoint builds \(built) \(built.headerFields), by hand \(manual) \(manual.headerFields)"
            )
            exit(1)
        }
        print(
            "request \(built) with \(String(decoding: bytes(built), as: UTF8.self)) (identical to the hand-built one)")
        var ratios: [Double] = []
        for run in 1...runs {
            let endpointRate = try rate(iterations: iterations(20_000)) {
                try endpoint.makeRequest(issue).headerFields.count
            }
            let manualRate = try rate(iterations: iterations(20_000)) { try handBuilt(issue).headerFields.count }
            ratios.append(manualRate.cpu / endpointRate.cpu)
            endpointRates.append(endpointRate.cpu)
            manualRates.append(manualRate.cpu)
            print(
                "run \(run): Endpoint.makeRequest cpu \(perSecond(endpointRate.cpu)); by hand with JSONEncoder cpu "
                    + "\(perSecond(manualRate.cpu)); endpoint time / hand-built time \(String(format: "%.2f", ratios.last!))"
            )
        }
        print(
            "median over \(runs) runs: endpoint time / hand-built time "
                + "\(String(format: "%.2f", Measure.median(ratios))) (target <= 1.5); range "
                + "\(String(format: "%.2f", ratios.min()!))-\(String(format: "%.2f", ratios.max()!))")
        Report.record(
            "endpoint", "Endpoint.makeRequest / hand-built, cpu time",
            heron: 1e6 / Measure.median(endpointRates), baseline: 1e6 / Measure.median(manualRates), unit: "µs",
            ratio: Measure.median(ratios), bar: .atMost(1.5))
    }
}

try TemplateBenchmark.run()
try RequestBenchmark.run()
print("(checksum \(sink))")
