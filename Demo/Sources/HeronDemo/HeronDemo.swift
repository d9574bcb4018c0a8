import Foundation
import HTTPEndpoints
import Synchronization

/// A tour of Heron against httpbin and Heron's fault server, written as an application
/// would write its own calls. `scripts/demo` starts both servers and runs it.
@main
struct HeronDemo {
    static let usage = """
        usage: HeronDemo [--base-url URL] [--fault-url URL] [--quiet] [--upload-mib N] [--download-mib N]
          --base-url URL    httpbin to use (default: $HERON_HTTPBIN_URL)
          --fault-url URL   Heron's fault server (default: $HERON_FAULT_URL)
          --quiet           print only the summary
          --upload-mib N    size of the generated file to upload (default 256)
          --download-mib N  size of the large download (default 128)
        """

    static func main() async {
        var arguments = ArraySlice(CommandLine.arguments.dropFirst())
        var httpbin = ProcessInfo.processInfo.environment["HERON_HTTPBIN_URL"]
        var faults = ProcessInfo.processInfo.environment["HERON_FAULT_URL"]
        var quiet = false
        var uploadMiB = 256
        var downloadMiB = 128
        while let argument = arguments.popFirst() {
            switch argument {
            case "--base-url": httpbin = arguments.popFirst()
            case "--fault-url": faults = arguments.popFirst()
            case "--quiet": quiet = true
            case "--upload-mib": uploadMiB = arguments.popFirst().flatMap { Int($0) } ?? -1
            case "--download-mib": downloadMiB = arguments.popFirst().flatMap { Int($0) } ?? -1
            case "-h", "--help":
                print(usage)
                return
            default: fail("unknown argument \(argument)")
            }
        }
        guard let httpbinURL = httpbin.flatMap(URL.init(string:)), httpbinURL.scheme != nil else {
            fail("no httpbin: pass --base-url URL or set HERON_HTTPBIN_URL (scripts/demo does)")
        }
        guard let faultURL = faults.flatMap(URL.init(string:)), faultURL.scheme != nil else {
            fail("no fault server: pass --fault-url URL or set HERON_FAULT_URL (scripts/demo does)")
        }
        guard uploadMiB > 0, downloadMiB > 0 else { fail("--upload-mib and --download-mib take a positive number") }

        let console = Console(quiet: quiet)
        let demo = Demo(
            console: console, httpbinURL: httpbinURL, faultURL: faultURL,
            uploadBytes: Int64(uploadMiB) << 20, downloadBytes: Int64(downloadMiB) << 20)
        let succeeded = await demo.run()
        exit(succeeded ? 0 : 1)
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("HeronDemo: \(message)\n\(usage)\n".utf8))
        exit(2)
    }
}

/// The clients and the steps.
final class Demo: Sendable {
    let console: Console
    let httpbinURL: URL
    let faultURL: URL
    let uploadBytes: Int64
    let downloadBytes: Int64

    let metrics = Metrics()
    /// How many times the token was refreshed.
    let refreshes = Mutex(0)

    init(console: Console, httpbinURL: URL, faultURL: URL, uploadBytes: Int64, downloadBytes: Int64) {
        self.console = console
        self.httpbinURL = httpbinURL
        self.faultURL = faultURL
        self.uploadBytes = uploadBytes
        self.downloadBytes = downloadBytes
    }

    // MARK: The client

    /// One composition for both servers: bearer auth with a token that is refreshed when
    /// rejected, logging, retries with a short backoff, and the metrics observer.
    func makeClient(baseURL: URL, tokens: TokenRefresher) -> Client {
        Client(
            baseURL: baseURL,
            interceptors: [
                BearerAuth(tokens),
                Logging(.line) { [console] line in console.say("    log: " + line) },  // last: logs what is sent
            ],
            observers: [metrics.observer],
            retry: [
                .transportErrors(max: 2),
                .status([503], max: 2),
                .attempts(max: 4),
                .backoff(.exponential(base: 0.2, cap: 2), jitter: .equal),
            ],
            timeout: .seconds(30)
        )
    }

    func run() async -> Bool {
        let clock = ContinuousClock()
        let start = clock.now
        let tokens = TokenRefresher(token: "expired") { [self] _ in
            let count = refreshes.withLock { count in
                count += 1
                return count
            }
            return "fresh-token-\(count)"
        }
        let api = makeClient(baseURL: httpbinURL, tokens: tokens)
        let faults = makeClient(baseURL: faultURL, tokens: tokens)
        console.say("Heron demo: httpbin at \(httpbinURL.absoluteString), fault server at \(faultURL.absoluteString)")
        console.say()

        var tour = Tour(console: console, steps: 10)
        await tour.step("path template", "GET /anything/users/{id} with id = 42") {
            try await pathTemplate(api)
        }
        await tour.step("token refresh", "an expired bearer token is refreshed once, then reused") {
            try await tokenRefresh(faults)
        }
        await tour.step("JSON POST", "a value sent as JSON, httpbin's echo decoded back into the type") {
            try await jsonPost(api)
        }
        await tour.step("query", "a query with bracketed arrays and literal bools") {
            try await query(api)
        }
        await tour.step("form POST", "a value sent as application/x-www-form-urlencoded") {
            try await formPost(api)
        }
        await tour.step("multipart upload", "a generated \(megabytes(uploadBytes)) file streamed from disk") {
            try await upload(faults)
        }
        await tour.step("download", "responses written to files, never held in memory") {
            try await download(api, faults)
        }
        await tour.step("retry, gives up", "GET /status/503: retried twice with backoff, then an error") {
            try await retryGivesUp(api)
        }
        await tour.step("retry, recovers", "503 twice, then 200: the third attempt succeeds") {
            try await retryRecovers(faults)
        }
        await tour.step("typed error", "GET /status/404 throws EndpointError with the status") {
            try await typedError(api)
        }
        await metrics.settle()
        tour.summary(total: clock.now - start, observed: await metrics.counts)
        return tour.succeeded
    }

    // MARK: The steps

    func pathTemplate(_ api: Client) async throws -> Outcome {
        let response = try await api.response(for: Httpbin.user, variables: ["id": 42])
        let echo = response.body
        guard echo.method == "GET", echo.url.hasSuffix("/anything/users/42") else {
            throw StepFailure("httpbin saw \(echo.method) \(echo.url)")
        }
        return Outcome(
            sent: ["\(response.request)"],
            received: ["\(response.status); httpbin saw \(echo.method) \(echo.url)"],
            summary: "\(response.status.code), httpbin saw GET …/anything/users/42")
    }

    func tokenRefresh(_ faults: Client) async throws -> Outcome {
        let first = try await faults.response(for: FaultServer.protected)
        let second = try await faults.response(for: FaultServer.protected)
        let refreshed = refreshes.withLock { $0 }
        let statuses = first.metrics.attempts.map { $0.status.map { String($0.code) } ?? "error" }
        guard first.body.authenticated, second.body.authenticated, refreshed == 1,
            first.metrics.attempts.count == 2, second.metrics.attempts.count == 1
        else {
            throw StepFailure(
                "refreshes \(refreshed), attempts \(first.metrics.attempts.count) then \(second.metrics.attempts.count)"
            )
        }
        return Outcome(
            sent: [
                "\(first.request) with Bearer expired, then with the refreshed token",
                "\(second.request) again",
            ],
            received: [
                "first call: \(statuses.joined(separator: " then ")) in \(first.metrics.attempts.count) attempts, "
                    + "token \(first.body.token)",
                "second call: \(second.status) in 1 attempt; the token was refreshed \(refreshed) time",
            ],
            summary: "401 → refresh → 200, then 200 with the same token (1 refresh)")
    }

    func jsonPost(_ api: Client) async throws -> Outcome {
        let post = NewPost(title: "Heron 1.0", tags: ["swift", "http"], draft: false)
        let response = try await api.response(for: Httpbin.createPost, post)
        guard response.body == post else { throw StepFailure("echoed \(response.body), sent \(post)") }
        let json = bodyText(response.request)
        return Outcome(
            sent: ["\(response.request)  \(response.request.headerFields[.contentType] ?? "")  \(json)"],
            received: ["\(response.status); decoded \(response.body) (equal to the value sent)"],
            summary: "\(response.status.code), echo decoded into NewPost, equal to the value sent")
    }

    func query(_ api: Client) async throws -> Outcome {
        let search = Search(q: "heron birds", tags: ["swift", "http"], open: true, page: 2)
        let response = try await api.response(for: Httpbin.search, search)
        let args = response.body.args
        guard args["tags[]"]?.description == "[swift, http]", args["open"]?.description == "true",
            args["q"]?.description == "heron birds"
        else { throw StepFailure("httpbin read \(args.listed)") }
        return Outcome(
            sent: ["\(response.request)"],
            received: ["\(response.status); httpbin read \(args.listed)"],
            summary: "\(response.status.code), httpbin read tags[]=[swift, http] open=true")
    }

    func formPost(_ api: Client) async throws -> Outcome {
        let form = SignIn(user: "ada", password: "s3cret & more", remember: true)
        let response = try await api.response(for: Httpbin.signIn, form)
        let echo = response.body
        guard echo.form["user"]?.description == "ada", echo.form["password"]?.description == "s3cret & more" else {
            throw StepFailure("httpbin read \(echo.form.listed)")
        }
        let body = bodyText(response.request)
        return Outcome(
            sent: ["\(response.request)  \(response.request.headerFields[.contentType] ?? "")  \(body)"],
            received: ["\(response.status); httpbin read the form \(echo.form.listed)"],
            summary: "\(response.status.code), httpbin read the form \(echo.form.listed)")
    }

    func upload(_ faults: Client) async throws -> Outcome {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("heron-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("heron-\(uploadBytes >> 20)MiB.bin")
        let clock = ContinuousClock()
        let generated = try clock.measure { try generate(file, bytes: uploadBytes) }
        console.say("  generated \(file.path) (\(megabytes(uploadBytes))) in \(generated.short)")

        resetPeakResident()
        let baseline = peakResidentBytes()
        let bar = ProgressBar("upload  ", direction: .upload, console: console)
        let options = RequestOptions(progress: .callback { bar.update($0) })
        let started = clock.now
        let response: ClientResponse<BodyDigest>
        do {
            response = try await faults.response(
                for: FaultServer.upload, Upload(caption: "Heron at dawn", file: MultipartFile(fileAt: file)),
                options: options)
            bar.finish()
        } catch {
            bar.finish()
            throw error
        }
        let took = clock.now - started
        let peak = peakResidentBytes()
        let sent = response.metrics.bytesSent ?? -1
        let rate = String(format: "%.0f MB/s", Double(response.body.bytes) / took.seconds / 1e6)
        var memory = "peak RSS (VmHWM) not available"
        var growth: Int64 = 0
        if let baseline, let peak {
            growth = peak - baseline
            memory = "peak RSS (VmHWM) \(peak >> 20) MiB, \(growth >> 20) MiB above the \(baseline >> 20) MiB before"
        }
        guard response.body.bytes > uploadBytes, response.body.bytes == sent || sent < 0 else {
            throw StepFailure("the server read \(response.body.bytes) bytes, the client sent \(sent)")
        }
        guard growth < 64 << 20 else { throw StepFailure("memory grew by \(growth >> 20) MiB: \(memory)") }
        return Outcome(
            sent: [
                "\(response.request)  multipart/form-data: caption + \(file.lastPathComponent), streamed from disk"
            ],
            received: [
                "\(response.status); the server read \(megabytes(response.body.bytes)) in \(took.short) (\(rate)), "
                    + "sha256 \(response.body.sha256.prefix(16))…",
                memory + " (bounded: under 64 MiB)",
            ],
            summary: "\(megabytes(response.body.bytes)) in \(took.short) (\(rate)), RSS +\(growth >> 20) MiB")
    }

    func download(_ api: Client, _ faults: Client) async throws -> Outcome {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("heron-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let small = try await api.call(
            Httpbin.smallFile, to: folder.appendingPathComponent("random.bin"), variables: ["n": 102_400])
        let smallSize = try size(of: small)
        guard smallSize == 102_400 else { throw StepFailure("httpbin's /bytes gave \(smallSize) bytes") }

        let bar = ProgressBar("download", direction: .download, console: console)
        let options = RequestOptions(progress: .callback { bar.update($0) })
        let clock = ContinuousClock()
        let started = clock.now
        let big: URL
        do {
            big = try await faults.call(
                FaultServer.download, to: folder.appendingPathComponent("pattern.bin"),
                variables: ["n": downloadBytes], options: options)
            bar.finish()
        } catch {
            bar.finish()
            throw error
        }
        let took = clock.now - started
        let bigSize = try size(of: big)
        guard bigSize == downloadBytes else { throw StepFailure("downloaded \(bigSize) of \(downloadBytes) bytes") }
        try checkPattern(big, size: bigSize)
        let rate = String(format: "%.0f MB/s", Double(bigSize) / took.seconds / 1e6)
        return Outcome(
            sent: ["GET /bytes/102400 (httpbin)", "GET /bytes?n=\(downloadBytes) (fault server)"],
            received: [
                "random.bin: \(smallSize) bytes",
                "pattern.bin: \(megabytes(bigSize)) in \(took.short) (\(rate)); byte i is i % 256 (sampled)",
            ],
            summary: "100 KiB + \(megabytes(bigSize)) to files in \(took.short) (\(rate))")
    }

    func retryGivesUp(_ api: Client) async throws -> Outcome {
        let mark = await metrics.events.count
        do {
            try await api.call(Httpbin.status, variables: ["code": 503])
            throw StepFailure("/status/503 succeeded")
        } catch let error as ClientError where error.code == .tooManyRetries {
            let delays = await retryDelays(since: mark)
            guard delays.count == 2, error.attempts.count == 3, error.attempts.allSatisfy({ $0.status?.code == 503 })
            else {
                throw StepFailure("\(error.attempts.count) attempts, \(delays.count) retries: \(error)")
            }
            return Outcome(
                sent: ["GET /status/503, 3 attempts"],
                received: delays.map { "observer: \($0)" } + ["ClientError \(error.code): \(error.message)"],
                summary:
                    "503 ×3, waits \(delays.map(\.short).joined(separator: ", ")), then ClientError.\(error.code)")
        } catch let error as EndpointError where error.status?.code == 503 {
            let delays = await retryDelays(since: mark)
            guard delays.count == 2 else { throw StepFailure("\(delays.count) retries: \(error)") }
            return Outcome(
                sent: ["GET /status/503"],
                received: delays.map { "observer: \($0)" } + ["EndpointError \(error.code), status 503"],
                summary: "503 ×3, waits \(delays.map(\.short).joined(separator: ", ")), then \(error.code)")
        }
    }

    func retryRecovers(_ faults: Client) async throws -> Outcome {
        let mark = await metrics.events.count
        let key = "heron-demo-\(UUID().uuidString.prefix(8))"
        let response = try await faults.response(for: FaultServer.flaky, variables: ["key": key, "fail": 2])
        let delays = await retryDelays(since: mark)
        guard response.body.attempt == 3, delays.count == 2 else {
            throw StepFailure("attempt \(response.body.attempt), \(delays.count) retries")
        }
        return Outcome(
            sent: ["\(response.request)"],
            received: delays.map { "observer: \($0)" } + ["\(response.status) on attempt \(response.body.attempt)"],
            summary: "503, 503, 200 after waits \(delays.map(\.short).joined(separator: ", "))")
    }

    func typedError(_ api: Client) async throws -> Outcome {
        do {
            try await api.call(Httpbin.status, variables: ["code": 404])
            throw StepFailure("/status/404 succeeded")
        } catch let error as EndpointError where error.code == .unacceptableStatus {
            guard let status = error.status, status.code == 404 else { throw error }
            return Outcome(
                sent: ["GET /status/404"],
                received: ["EndpointError.\(error.code) from endpoint \"\(error.endpoint)\", status \(status)"],
                summary: "EndpointError.\(error.code), status \(status.code)")
        }
    }

    // MARK: Helpers

    /// The waits the observer saw scheduled since `mark`, as `retry after attempt 1 in 0.2 s`.
    func retryDelays(since mark: Int) async -> [RetryWait] {
        await metrics.settle()
        return await metrics.events(since: mark).compactMap { event in
            if case .retryScheduled(let attempt, let delay, let reason) = event.kind {
                return RetryWait(attempt: attempt, delay: delay, reason: reason)
            }
            return nil
        }
    }

    /// Writes `bytes` bytes of varied content to `url`, 1 MiB at a time.
    func generate(_ url: URL, bytes: Int64) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw StepFailure("cannot create \(url.path)")
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var chunk = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })
        var written: Int64 = 0
        var index: UInt64 = 0
        while written < bytes {
            withUnsafeBytes(of: index) { chunk.replaceSubrange(0..<8, with: $0) }
            let count = Int(min(Int64(chunk.count), bytes - written))
            try handle.write(contentsOf: count == chunk.count ? chunk : chunk.prefix(count))
            written += Int64(count)
            index += 1
        }
    }

    /// The request's body as text, when it is bytes in memory.
    func bodyText(_ request: HTTPRequest) -> String {
        guard case .data(let data)? = request.body?.source else { return "(streamed)" }
        return String(decoding: data, as: UTF8.self)
    }

    func size(of url: URL) throws -> Int64 {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value ?? -1
    }

    /// Checks a few bytes of the fault server's `/bytes` download: byte `i` is `i % 256`.
    func checkPattern(_ url: URL, size: Int64) throws {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        for offset in [0, 255, 1 << 20, size / 2 + 7, size - 1] where offset >= 0 && offset < size {
            try handle.seek(toOffset: UInt64(offset))
            guard let byte = try handle.read(upToCount: 1)?.first, byte == UInt8(offset % 256) else {
                throw StepFailure("byte \(offset) of the download is wrong")
            }
        }
    }
}

/// One retry the observer saw scheduled.
struct RetryWait: CustomStringConvertible {
    var attempt: Int
    var delay: Duration
    var reason: String

    var short: String { delay.short }
    var description: String { "retry after attempt \(attempt) in \(delay.short) (\(reason))" }
}
