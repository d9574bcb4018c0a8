// CookieBenchmark: a CookieJar against Foundation's HTTPCookieStorage, measured in the same run.
//
//   swift run -c release --package-path Benchmarks CookieBenchmark [runs]
//
// match: 3,000 cookies over 50 domains (60 a domain: host-only and domain cookies, paths `/`,
//     `/a`, `/a/b`, a third of them Secure, all persistent), the same in a CookieJar and in an
//     HTTPCookieStorage of its own; each request URL (cycling over 400: every domain, subdomains,
//     paths, http and https) asks for its `Cookie` field, as a client does:
//     `CookieJar.cookieField(for:)` against `HTTPCookieStorage.cookies(for:)` of an ephemeral
//     session's (in memory) then `HTTPCookie.requestHeaderFields(with:)`, as URLSession does.
//     The cookies as values (`cookies(for:)` on both sides) are timed and shown too; and
//     3,000 cookies inserted one by one into one bucket, then a request (no bar: it shows that
//     a batch of insertions costs one remake of the bucket's index). Every cookie the
//     jar returns the storage must return too; on Linux the storage also returns cookies of
//     other paths and Secure ones over http (it ignores both), counted and shown. Target: the
//     jar at most 2 µs a request.
//
// Each run takes the median of several rounds, in wall time and in CPU time of the measuring
// thread; the summary is the median over the runs.
// HERON_BENCH_JSON / HERON_BENCH_QUICK: see BenchmarkSupport's Report (quick: 3 rounds of a
// tenth of the requests).
import BenchmarkSupport
import Foundation
import HTTPCookies

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let runs = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 5 : 5
let rounds = Report.quick ? 3 : 11
/// Requests a round: HTTPCookieStorage, which looks at every cookie, gets a tenth as many.
let requests = Report.quick ? 2_000 : 20_000

/// Keeps results alive so the optimizer cannot drop the work that made them.
nonisolated(unsafe) var sink = 0

let jar = CookieJar()
// An in-memory storage (an ephemeral session's): a shared one writes its file at every change.
let storage = URLSessionConfiguration.ephemeral.httpCookieStorage!
let expiry = Date().addingTimeInterval(30 * 86_400)
for domain in 0..<50 {
    let base = "site\(domain).example"
    for index in 0..<60 {
        let path = ["/", "/a", "/a/b"][index % 3]
        let hostOnly = index % 2 == 0
        let host = hostOnly ? "www.\(base)" : base
        let secure = index % 3 == 1
        jar.insert(
            Cookie(
                name: "c\(index)", value: "value\(index)", domain: host, hostOnly: hostOnly, path: path, secure: secure,
                expires: expiry))
        var properties: [HTTPCookiePropertyKey: Any] = [
            .name: "c\(index)", .value: "value\(index)", .path: path, .domain: hostOnly ? host : "." + host,
            .expires: expiry,
        ]
        if secure { properties[.secure] = "TRUE" }
        storage.setCookie(HTTPCookie(properties: properties)!)
    }
}
precondition(jar.count == 3000, "the jar holds \(jar.count) cookies")
let urls: [URL] = (0..<400).map { index in
    let domain = index % 50
    let host = index % 4 == 0 ? "site\(domain).example" : "www.site\(domain).example"
    let scheme = index % 5 == 0 ? "http" : "https"
    let path = ["/", "/a/x", "/a/b/c", "/other"][index % 4]
    return URL(string: "\(scheme)://\(host)\(path)")!
}
// The jar's answer for each URL is checked against the storage's: every cookie the jar sends
// the storage has too. swift-corelibs-foundation's storage (Linux) ignores Path and Secure, so
// there it also returns cookies of other paths and Secure ones over http: counted and shown.
var extra = 0
for url in urls {
    let ours = Set(jar.cookies(for: url).map { "\($0.name) \($0.domain) \($0.path)" })
    let theirs = Set((storage.cookies(for: url) ?? []).map { "\($0.name) \($0.domain.drop { $0 == "." }) \($0.path)" })
    guard ours.isSubset(of: theirs) else {
        print(
            "mismatch for \(url): the jar sends \(ours.subtracting(theirs).sorted()), which HTTPCookieStorage does not")
        exit(1)
    }
    extra += theirs.count - ours.count
    let pairs = jar.cookies(for: url).map(\.pair)
    guard jar.cookieField(for: url) == (pairs.isEmpty ? nil : pairs.joined(separator: "; ")) else {
        print("mismatch for \(url): the jar's Cookie field is not its cookies' pairs joined")
        exit(1)
    }
}
print(
    "check: for the \(urls.count) URLs HTTPCookieStorage returns every cookie the jar sends, and \(extra) more"
        + " (of other paths, or Secure over http)")

/// Microseconds a request, median over rounds, by wall clock and by thread CPU time.
func microseconds(requests: Int, _ body: (URL) -> Int) -> (wall: Double, cpu: Double) {
    var cpu: [Double] = []
    let wall = Measure.seconds(rounds: rounds) {
        let start = Measure.threadCPUSeconds()
        var total = 0
        for index in 0..<requests { total &+= body(urls[index % urls.count]) }
        cpu.append(Measure.threadCPUSeconds() - start)
        sink &+= total
    }
    return (
        Measure.median(wall) / Double(requests) * 1e6, Measure.median(Array(cpu.dropFirst())) / Double(requests) * 1e6
    )
}

var jarWall: [Double] = []
var jarCPU: [Double] = []
var storageWall: [Double] = []
var storageCPU: [Double] = []
var listCPU: [Double] = []
var storageListCPU: [Double] = []
let jarOnly = ProcessInfo.processInfo.environment["HERON_BENCH_ONLY"] == "jar"
for run in 0..<runs {
    // The Cookie field a request carries, as a client asks for it: CookieJar.cookieField(for:)
    // against HTTPCookieStorage.cookies(for:) then HTTPCookie.requestHeaderFields(with:), what
    // URLSession does.
    let ours = microseconds(requests: requests) { jar.cookieField(for: $0)?.utf8.count ?? 0 }
    // HERON_BENCH_ONLY=jar: the jar alone (for profiling).
    let theirs =
        jarOnly
        ? (wall: 1, cpu: 1)
        : microseconds(requests: requests / 10) { url in
            HTTPCookie.requestHeaderFields(with: storage.cookies(for: url) ?? [])["Cookie"]?.utf8.count ?? 0
        }
    // The cookies as values, for a debug screen or an export: cookies(for:) on both sides.
    let list = microseconds(requests: requests) { jar.cookies(for: $0).count }
    let storageList =
        jarOnly ? (wall: 1, cpu: 1) : microseconds(requests: requests / 10) { storage.cookies(for: $0)?.count ?? 0 }
    jarWall.append(ours.wall)
    jarCPU.append(ours.cpu)
    storageWall.append(theirs.wall)
    storageCPU.append(theirs.cpu)
    listCPU.append(list.cpu)
    storageListCPU.append(storageList.cpu)
    print(
        String(
            format:
                "run %d: field: CookieJar %.2f µs a request (CPU %.2f), HTTPCookieStorage %.2f µs (CPU %.2f);"
                + " cookies(for:): CookieJar CPU %.2f µs, HTTPCookieStorage CPU %.2f µs",
            run, ours.wall, ours.cpu, theirs.wall, theirs.cpu, list.cpu, storageList.cpu))
}
let ratios = zip(jarCPU, storageCPU).map { $0 / $1 }
print(
    String(
        format:
            "match, 3,000 cookies over 50 domains, the Cookie field: CookieJar %.2f µs a request (CPU), HTTPCookieStorage %.2f µs, ratio median %.3f (target: the jar at most 2 µs)",
        Measure.median(jarCPU), Measure.median(storageCPU), Measure.median(ratios)))
print(
    String(
        format: "cookies(for:) as values: CookieJar %.2f µs a request (CPU), HTTPCookieStorage %.2f µs",
        Measure.median(listCPU), Measure.median(storageListCPU)))
// One bucket of 3,000 cookies (60 subdomains of one site, 50 each) inserted one by one, then
// one request: the bucket's index is remade once, by the request, not at each insertion.
var importSeconds: [Double] = []
for _ in 0..<(Report.quick ? 1 : 5) {
    let crowded = CookieJar()
    let start = Measure.threadCPUSeconds()
    for host in 0..<60 {
        for index in 0..<50 {
            crowded.insert(
                Cookie(name: "c\(index)", value: "v", domain: "h\(host).crowded.example", path: "/", expires: expiry))
        }
    }
    sink &+= crowded.cookieField(for: URL(string: "https://h1.crowded.example/")!)?.utf8.count ?? 0
    importSeconds.append(Measure.threadCPUSeconds() - start)
}
print(
    String(
        format: "import: 3,000 cookies into one bucket, then a request: %.1f ms (CPU)",
        Measure.median(importSeconds) * 1e3))

Report.record(
    "cookies", "match a request against 3,000 cookies over 50 domains: its Cookie field (CPU µs a request)",
    heron: Measure.median(jarCPU), baseline: Measure.median(storageCPU), unit: "µs", ratio: Measure.median(ratios),
    bar: .atMost(2), on: .heron)
