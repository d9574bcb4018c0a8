import BenchmarkSupport
import Foundation

// How ClientBenchmark and AsyncHTTPClientBenchmark find their server and time batches of
// requests: one file (linked into AsyncHTTPClientBenchmark), so both measure the same way.

/// The command line both benchmarks take: `[rounds] [which] [MiB]`.
struct BenchmarkArguments {
    let rounds: Int
    let which: String
    let uploadMiB: Int

    init(_ arguments: [String] = CommandLine.arguments) {
        rounds = arguments.count > 1 ? Int(arguments[1]) ?? 5 : 5
        which = arguments.count > 2 ? arguments[2] : "all"
        uploadMiB = arguments.count > 3 ? Int(arguments[3]) ?? 1024 : 1024
    }
}

/// Where the requests go: loopback nginx (started here on a free port) when it is installed,
/// else httpbin and the fault server of `scripts/with-servers`, far slower.
struct BenchmarkTargets {
    /// The nginx this process started, if any; stop it before exiting.
    let nginx: LoopbackServer?
    /// A small response.
    let smallURL: URL
    /// A sink for uploads.
    let uploadURL: URL

    /// The targets, or `nil` (after saying why) when there is no server at all.
    init?(environment: [String: String]) {
        let nginx = LoopbackServer()
        guard
            let smallURL = nginx.map({ $0.baseURL.appendingPathComponent("small") })
                ?? environment["HERON_HTTPBIN_URL"].flatMap({ URL(string: $0 + "/get") }),
            let uploadURL = nginx.map({ $0.baseURL.appendingPathComponent("upload") })
                ?? environment["HERON_FAULT_URL"].flatMap({ URL(string: $0 + "/hash") })
        else {
            print("No server: install nginx (apt-get install -y nginx) or run under scripts/with-servers.")
            nginx?.stop()
            return nil
        }
        self.nginx = nginx
        self.smallURL = smallURL
        self.uploadURL = uploadURL
        let host = "\(smallURL.host ?? ""):\(smallURL.port ?? 0)"
        print("server: \(nginx == nil ? "httpbin / fault server (nginx not found)" : "nginx \(host)")")
    }
}

/// Seconds taken by `count` calls of `once`, `concurrency` at a time.
func seconds(
    _ count: Int, concurrency: Int, _ once: @escaping @Sendable () async throws -> Void
) async throws -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try await withThrowingTaskGroup(of: Void.self) { group in
        for worker in 0..<concurrency {
            let share = count / concurrency + (worker < count % concurrency ? 1 : 0)
            group.addTask { for _ in 0..<share { try await once() } }
        }
        try await group.waitForAll()
    }
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// Per-round figures of each variant, in the order the variants were given.
struct RoundFigures {
    /// Requests a second.
    var rates: [[Double]]
    /// The process's CPU time per request in µs (every thread, user and system): steadier
    /// than the rate, what each variant costs the machine, the server aside.
    var cpuMicroseconds: [[Double]]
    /// The process's context switches per request.
    var contextSwitches: [[Double]]
}

extension RoundFigures {
    /// Prints each variant's CPU time and context switches per request (medians over the rounds).
    /// - Parameters:
    ///   - label: The mode, such as `sequential`.
    ///   - names: The variants' names, in the order of the figures.
    func printCosts(_ label: String, names: [String]) {
        for index in names.indices {
            print(
                String(
                    format: "GET %@, %@: %.1f µs of CPU and %.1f context switches per request (medians)",
                    label, names[index], Measure.median(cpuMicroseconds[index]),
                    Measure.median(contextSwitches[index])))
        }
    }
}

/// Runs `rounds` rounds of `variants`, each round `batches` batches of `batch` calls of every
/// variant, `concurrency` at a time, in a shuffled order each time: the machine's slow and fast
/// spells then fall on all of them alike, where one long run per variant would catch a spell
/// alone.
func interleavedRounds(
    _ variants: [@Sendable () async throws -> Void], rounds: Int, batches: Int, batch: Int, concurrency: Int
) async throws -> RoundFigures {
    var order = SystemRandomNumberGenerator()
    let empty = [[Double]](repeating: [], count: variants.count)
    var figures = RoundFigures(rates: empty, cpuMicroseconds: empty, contextSwitches: empty)
    let requests = Double(batch * batches)
    for _ in 0..<rounds {
        var totals = [Double](repeating: 0, count: variants.count)
        var cpuTotals = [Double](repeating: 0, count: variants.count)
        var switchTotals = [Int](repeating: 0, count: variants.count)
        for _ in 0..<batches {
            for index in variants.indices.shuffled(using: &order) {
                let cpuBefore = Measure.processCPUSeconds()
                let switchesBefore = Measure.processContextSwitches()
                totals[index] += try await seconds(batch, concurrency: concurrency, variants[index])
                cpuTotals[index] += Measure.processCPUSeconds() - cpuBefore
                switchTotals[index] += Measure.processContextSwitches() - switchesBefore
            }
        }
        for index in variants.indices {
            figures.rates[index].append(requests / totals[index])
            figures.cpuMicroseconds[index].append(cpuTotals[index] / requests * 1e6)
            figures.contextSwitches[index].append(Double(switchTotals[index]) / requests)
        }
    }
    return figures
}
