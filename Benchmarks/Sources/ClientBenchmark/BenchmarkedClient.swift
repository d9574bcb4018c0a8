import BenchmarkSupport
import Foundation
import HTTPClient
import HTTPCore

// The client both ClientBenchmark and AsyncHTTPClientBenchmark measure, and how they print a
// ratio: one file (linked into AsyncHTTPClientBenchmark), so the two measure the same client.

/// Counts finished requests; the one observer of the benchmarked client.
final class CountingObserver: ClientObserver, @unchecked Sendable {
    // Invariant: `finished` is only touched under `lock`.
    private let lock = NSLock()
    private var finished = 0

    func receive(_ event: ClientEvent) async {
        if case .finished = event.kind { lock.withLock { finished += 1 } }
    }
}

/// The benchmarked client: 3 interceptors, 1 observer, the default retry stack. Without
/// `interceptors` or `observer`, the same client less those, to show what each costs.
func makeClient(
    transport: any ClientTransport = URLSessionTransport(), interceptors: Bool = true, observer: Bool = true
) throws -> Client {
    Client(
        transport: transport,
        interceptors: interceptors
            ? [
                DefaultHeaderFields(try HTTPFields(["X-Bench": "1"])), BearerAuth(token: "bench-token"),
                ResponseValidation(),
            ] : [],
        observers: observer ? [CountingObserver()] : [], retry: .default, timeout: .seconds(600))
}

func ratioLine(
    _ name: String, heron: [Double], raw: [Double], unit: String, labels: (String, String) = ("Heron", "raw")
) -> String {
    let ratios = zip(heron, raw).map { $0 / $1 }
    let perRound = ratios.map { String(format: "%.3f", $0) }.joined(separator: " ")
    return "\(name): \(labels.0) \(String(format: "%.1f", Measure.median(heron))) \(unit), "
        + "\(labels.1) \(String(format: "%.1f", Measure.median(raw))) \(unit), "
        + "ratio median \(String(format: "%.3f", Measure.median(ratios))) (per round: \(perRound))"
}
