import Foundation

/// What a step sent and what came back, for its report and the summary table.
struct Outcome {
    /// What was sent, one line per request.
    var sent: [String]
    /// What came back, one line per fact.
    var received: [String]
    /// The summary table's column.
    var summary: String
}

/// A step whose result was not what it should be.
struct StepFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Runs the steps one after another, each caught on its own, and prints the summary table.
struct Tour {
    private struct Row {
        var name: String
        var ok: Bool
        var time: Duration
        var detail: String
    }

    let console: Console
    private var rows: [Row] = []
    private let total: Int

    init(console: Console, steps total: Int) {
        self.console = console
        self.total = total
    }

    /// Whether every step so far succeeded.
    var succeeded: Bool { rows.allSatisfy(\.ok) }

    /// Runs one step: prints its heading, what it sent and got, and how long it took.
    mutating func step(_ name: String, _ about: String, _ body: () async throws -> Outcome) async {
        console.say("[\(rows.count + 1)/\(total)] \(name): \(about)")
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let outcome = try await body()
            let time = clock.now - start
            for line in outcome.sent { console.say("  → " + line) }
            for line in outcome.received { console.say("  ← " + line) }
            console.say("  ✓ ok in \(time.short)")
            rows.append(Row(name: name, ok: true, time: time, detail: outcome.summary))
        } catch {
            let time = clock.now - start
            let message = String(describing: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
            console.say("  ✗ FAILED after \(time.short): \(message)")
            rows.append(Row(name: name, ok: false, time: time, detail: message))
        }
        console.say()
    }

    /// Prints the summary table (also when quiet).
    func summary(total time: Duration, observed: String) {
        let nameWidth = max(4, rows.map(\.name.count).max() ?? 0)
        func pad(_ text: String, _ width: Int) -> String {
            text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
        }
        func padLeft(_ text: String, _ width: Int) -> String {
            text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
        }
        let failed = rows.filter { !$0.ok }.count
        console.always("Summary")
        console.always("   # \(pad("step", nameWidth))  result  \(padLeft("time", 9))  what came back")
        for (index, row) in rows.enumerated() {
            let detail = row.detail.count > 90 ? String(row.detail.prefix(89)) + "…" : row.detail
            console.always(
                "  \(padLeft(String(index + 1), 2)) \(pad(row.name, nameWidth))  \(pad(row.ok ? "ok" : "FAIL", 6))  "
                    + "\(padLeft(row.time.short, 9))  \(detail)")
        }
        console.always("  observer: \(observed)")
        console.always(
            "  \(rows.count - failed) of \(rows.count) steps ok, \(failed) failed, in \(time.short)")
    }
}
