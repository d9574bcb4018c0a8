import Foundation

/// Machine-readable results, for `scripts/bench`.
///
/// With `HERON_BENCH_JSON=path` set, every ``record(_:_:heron:baseline:unit:ratio:bar:on:note:)``
/// appends one JSON object (one line) to `path`; without it nothing is written. The human
/// output of the benchmarks is the same either way.
///
/// `HERON_BENCH_QUICK=1` asks for a quick run: each benchmark then runs once at a small size
/// (fewer rounds and iterations, smaller files), only to check that nothing has rotted;
/// its figures are not comparable with a full run's.
public enum Report {
    /// Whether `HERON_BENCH_QUICK=1` is set.
    public static let quick = ProcessInfo.processInfo.environment["HERON_BENCH_QUICK"] == "1"

    /// What a bar applies to: the ratio, or Heron's own figure.
    public enum Subject: String, Sendable { case ratio, heron }

    /// A bar: `.atMost(x)` (lower is better) or `.atLeast(x)`.
    public enum Bar: Sendable {
        case atMost(Double)
        case atLeast(Double)

        var text: String {
            switch self {
            case .atMost(let value): "<= \(format(value))"
            case .atLeast(let value): ">= \(format(value))"
            }
        }

        func met(by value: Double) -> Bool {
            switch self {
            case .atMost(let bar): value <= bar
            case .atLeast(let bar): value >= bar
            }
        }

        private func format(_ value: Double) -> String {
            value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(format: "%.4g", value)
        }
    }

    /// Appends one result: `benchmark` (e.g. "multipart"), `name` (what was measured),
    /// Heron's figure, the baseline's (nil when there is none), their `unit`, the ratio
    /// (median of per-round ratios, as the benchmark prints it; nil when there is none),
    /// and the bar if there is one, on the ratio or on Heron's figure.
    public static func record(
        _ benchmark: String, _ name: String, heron: Double, baseline: Double? = nil, unit: String,
        ratio: Double? = nil, bar: Bar? = nil, on subject: Subject = .ratio, note: String? = nil
    ) {
        guard let path = ProcessInfo.processInfo.environment["HERON_BENCH_JSON"], !path.isEmpty else { return }
        var object: [String: Any] = [
            "benchmark": benchmark, "name": name, "heron": number(heron), "unit": unit, "quick": quick,
        ]
        if let baseline { object["baseline"] = number(baseline) }
        if let ratio { object["ratio"] = number(ratio) }
        if let bar {
            object["bar"] = bar.text
            switch bar {
            case .atMost(let value): object["bar_value"] = value
            case .atLeast(let value): object["bar_value"] = value
            }
            object["bar_on"] = subject.rawValue
            if let value = subject == .ratio ? ratio : heron, value.isFinite { object["met"] = bar.met(by: value) }
        }
        if let note { object["note"] = note }
        guard
            var line = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        else { return }
        line.append(UInt8(ascii: "\n"))
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        guard descriptor >= 0 else {
            FileHandle.standardError.write(Data("cannot open HERON_BENCH_JSON \(path)\n".utf8))
            return
        }
        defer { close(descriptor) }
        _ = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }

    /// JSON has no NaN or infinity: those become null.
    private static func number(_ value: Double) -> Any { value.isFinite ? value : NSNull() }
}
