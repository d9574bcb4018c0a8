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
// store: typical responses stored into a jar of 3,000 cookies (another, made the same way), each
//     with two Set-Cookie lines: a session cookie (`sid=…; Path=/; Secure; HttpOnly`) and a
//     tracking cookie (`_ga=…; Domain=siteN.example; Path=/; Expires=…; SameSite=Lax`), cycling
//     over the 50 sites with new values, through `CookieJar.store(setCookie:for:)`, against
//     `HTTPCookie.cookies(withResponseHeaderFields:for:)` then
//     `HTTPCookieStorage.setCookies(_:for:mainDocumentURL:)` on a storage of the same 3,000 (each
//     side parses the lines it stores). Bar: the jar at most 3 µs a line (CPU) and at most 0.1
//     of HTTPCookieStorage.
// import: 3,000 cookies inserted one by one into one bucket, then a request. Bar: at most 5 ms.
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

let expiry = Date().addingTimeInterval(30 * 86_400)
/// A jar and an in-memory storage (an ephemeral session's: a shared one writes its file at every
/// change) holding the same 3,000 cookies.
func makeJars() -> (CookieJar, HTTPCookieStorage) {
    let jar = CookieJar()
    let storage = URLSessionConfiguration.ephemeral.httpCookieStorage!
    storage.removeCookies(since: .distantPast)
    for domain in 0..<50 {
        let base = "site\(domain).example"
        for index in 0..<60 {
            let path = ["/", "/a", "/a/b"][index % 3]
            let hostOnly = index % 2 == 0
            let host = hostOnly ? "www.\(base)" : base
            let secure = index % 3 == 1
            jar.insert(
                Cookie(
                    name: "c\(index)", value: "value\(index)", domain: host, hostOnly: hostOnly, path: path,
                    secure: secure, expires: expiry))
            var properties: [HTTPCookiePropertyKey: Any] = [
                .name: "c\(index)", .value: "value\(index)", .path: path, .domain: hostOnly ? host : "." + host,
                .expires: expiry,
            ]
            if secure { properties[.secure] = "TRUE" }
            storage.setCookie(HTTPCookie(properties: properties)!)
        }
    }
    precondition(jar.count == 3000, "the jar holds \(jar.count) cookies")
    precondition(storage.cookies?.count == 3000, "the storage holds \(storage.cookies?.count ?? 0) cookies")
    return (jar, storage)
}
let (jar, storage) = makeJars()
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
// Storing: a jar and a storage of their own, as full as the first two.
let (storingJar, storingStorage) = makeJars()
precondition(storingStorage !== storage, "each ephemeral configuration has a storage of its own")
/// 400 responses of two lines each, over the 50 sites: the request URL and its Set-Cookie lines.
let responses: [(url: URL, lines: [String])] = (0..<400).map { index in
    let site = "site\(index % 50).example"
    let token = String(UInt64(index) &* 0x9E37_79B9_7F4A_7C15, radix: 16)
    return (
        URL(string: "https://www.\(site)/account")!,
        [
            "sid=\(token)\(token); Path=/; Secure; HttpOnly",
            "_ga=GA1.2.\(index).1700000000; Domain=\(site); Path=/; Expires=Wed, 01 Jan 2031 00:00:00 GMT; SameSite=Lax",
        ]
    )
}
let storageResponses: [(url: URL, fields: [[String: String]])] = responses.map { response in
    (response.url, response.lines.map { ["Set-Cookie": $0] })
}
// The lines are stored by both: the jar takes all of them, the storage all it can.
let check = storingJar.store(setCookie: responses[0].lines, for: responses[0].url)
precondition(check.refused.isEmpty && check.stored.count == 2, "the jar refused a line: \(check)")
/// CPU microseconds a line, median over rounds: `count` responses of two lines a round.
func storeMicroseconds(responses count: Int, _ body: (Int) -> Int) -> (wall: Double, cpu: Double) {
    var cpu: [Double] = []
    let wall = Measure.seconds(rounds: rounds) {
        let start = Measure.threadCPUSeconds()
        var total = 0
        for index in 0..<count { total &+= body(index % responses.count) }
        cpu.append(Measure.threadCPUSeconds() - start)
        sink &+= total
    }
    let lines = Double(2 * count)
    return (Measure.median(wall) / lines * 1e6, Measure.median(Array(cpu.dropFirst())) / lines * 1e6)
}
var storeCPU: [Double] = []
var storageStoreCPU: [Double] = []
for run in 0..<runs {
    let ours = storeMicroseconds(responses: requests / 4) { index in
        storingJar.store(setCookie: responses[index].lines, for: responses[index].url).stored.count
    }
    let theirs =
        jarOnly
        ? (wall: 1, cpu: 1)
        : storeMicroseconds(responses: requests / 40) { index in
            let response = storageResponses[index]
            var cookies: [HTTPCookie] = []
            for fields in response.fields {
                cookies += HTTPCookie.cookies(withResponseHeaderFields: fields, for: response.url)
            }
            storingStorage.setCookies(cookies, for: response.url, mainDocumentURL: nil)
            return cookies.count
        }
    storeCPU.append(ours.cpu)
    storageStoreCPU.append(theirs.cpu)
    print(
        String(
            format: "run %d: store: CookieJar %.2f µs a line (CPU %.2f), HTTPCookieStorage %.2f µs (CPU %.2f)", run,
            ours.wall, ours.cpu, theirs.wall, theirs.cpu))
}
// The jar holds what it was given: the last response's session cookie is the one sent back.
let last = responses[(requests / 4 - 1) % responses.count]
precondition(
    storingJar.cookies(for: last.url).contains { $0.name == "sid" && last.lines[0].hasPrefix("sid=\($0.value);") },
    "the jar does not send the session cookie it stored last")
let storeRatios = zip(storeCPU, storageStoreCPU).map { $0 / $1 }

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
// one request: the bucket's index is remade once, by the request, not at each insertion. The
// cookies are made before the clock starts: the row times the jar.
let crowdedCookies = (0..<60).flatMap { host in
    (0..<50).map { index in
        Cookie(name: "c\(index)", value: "v", domain: "h\(host).crowded.example", path: "/", expires: expiry)
    }
}
var importSeconds: [Double] = []
for _ in 0..<(Report.quick ? 1 : 7) {
    let crowded = CookieJar()
    let start = Measure.threadCPUSeconds()
    for cookie in crowdedCookies { crowded.insert(cookie) }
    sink &+= crowded.cookieField(for: URL(string: "https://h1.crowded.example/")!)?.utf8.count ?? 0
    importSeconds.append(Measure.threadCPUSeconds() - start)
    precondition(crowded.count == 3000, "the crowded jar holds \(crowded.count) cookies")
}
print(
    String(
        format:
            "store, 2 lines a response into a jar of 3,000: CookieJar %.2f µs a line (CPU), HTTPCookieStorage %.2f µs, ratio median %.3f (bar: the jar at most 3 µs, ratio at most 0.1)",
        Measure.median(storeCPU), Measure.median(storageStoreCPU), Measure.median(storeRatios)))
print(
    String(
        format: "import: 3,000 cookies into one bucket, then a request: %.1f ms (CPU; bar: at most 5 ms)",
        Measure.median(importSeconds) * 1e3))

Report.record(
    "cookies", "match a request against 3,000 cookies over 50 domains: its Cookie field (CPU µs a request)",
    heron: Measure.median(jarCPU), baseline: Measure.median(storageCPU), unit: "µs", ratio: Measure.median(ratios),
    bar: .atMost(2), on: .heron)
Report.record(
    "cookies", "store typical Set-Cookie lines into a jar of 3,000 (CPU µs a line)",
    heron: Measure.median(storeCPU), baseline: Measure.median(storageStoreCPU), unit: "µs",
    ratio: Measure.median(storeRatios), bar: .atMost(0.1), on: .ratio,
    note: String(format: "the jar %.2f µs a line; bar also: at most 3 µs", Measure.median(storeCPU)))
Report.record(
    "cookies", "store typical Set-Cookie lines into a jar of 3,000: the jar alone (CPU µs a line)",
    heron: Measure.median(storeCPU), unit: "µs", bar: .atMost(3), on: .heron)
Report.record(
    "cookies", "insert 3,000 cookies into one bucket, then a request (CPU ms)",
    heron: Measure.median(importSeconds) * 1e3, unit: "ms", bar: .atMost(5), on: .heron)
