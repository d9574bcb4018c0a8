import Foundation
import HTTPEndpoints
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything the demo prints goes through here: progress callbacks and log lines arrive
/// from any thread, so writes are serialised, and a log line clears a live progress bar
/// first (the bar is drawn again on its next update).
final class Console: Sendable {
    /// Whether standard output is a terminal (progress bars are redrawn in place).
    let isTerminal: Bool
    /// Whether only the summary is printed.
    let quiet: Bool
    private let barShown = Mutex(false)

    init(quiet: Bool) {
        self.quiet = quiet
        self.isTerminal = isatty(1) == 1
    }

    /// Prints a line unless quiet.
    func say(_ line: String = "") {
        guard !quiet else { return }
        write(line + "\n")
    }

    /// Prints a line even when quiet (the summary).
    func always(_ line: String = "") { write(line + "\n") }

    /// Draws `text` over the current line (a terminal's progress bar).
    func redraw(_ text: String) {
        guard !quiet else { return }
        barShown.withLock { shown in
            shown = true
            FileHandle.standardOutput.write(Data(("\r" + text + "\u{1B}[K").utf8))
        }
    }

    /// Ends a bar drawn with ``redraw(_:)``, keeping its last state on screen.
    func endBar() {
        barShown.withLock { shown in
            if shown { FileHandle.standardOutput.write(Data("\n".utf8)) }
            shown = false
        }
    }

    private func write(_ text: String) {
        barShown.withLock { shown in
            // A line printed while a bar is live replaces it; the bar comes back on its next redraw.
            let prefix = shown ? "\r\u{1B}[K" : ""
            shown = false
            FileHandle.standardOutput.write(Data((prefix + text).utf8))
        }
    }
}

/// A progress display for one transfer, fed by `RequestOptions.progress` from any thread.
///
/// On a terminal: a bar with percent, bytes, rate and ETA, redrawn in place at most ten
/// times a second. Otherwise: one plain line at 25, 50, 75 and 100 %.
final class ProgressBar: Sendable {
    private struct State {
        var started: ContinuousClock.Instant?
        var lastDraw: ContinuousClock.Instant?
        var nextQuarter = 1
        var last: TransferProgress?
    }

    private let label: String
    private let direction: TransferProgress.Direction
    private let console: Console
    private let state = Mutex(State())
    private let clock = ContinuousClock()

    init(_ label: String, direction: TransferProgress.Direction, console: Console) {
        self.label = label
        self.direction = direction
        self.console = console
    }

    /// Takes one progress update; those of the other direction are ignored.
    func update(_ progress: TransferProgress) {
        guard progress.direction == direction, !console.quiet else { return }
        let now = clock.now
        state.withLock { state in
            let started = state.started ?? now
            state.started = started
            state.last = progress
            let elapsed = now - started
            let fraction = progress.fractionCompleted ?? 0
            if console.isTerminal {
                let done = fraction >= 1
                if let last = state.lastDraw, now - last < .milliseconds(100), !done { return }
                state.lastDraw = now
                console.redraw(Self.bar(label, progress, elapsed: elapsed))
            } else {
                while state.nextQuarter <= 4, fraction >= Double(state.nextQuarter) / 4 {
                    state.nextQuarter += 1
                    console.say("  " + Self.line(label, progress, elapsed: elapsed))
                }
            }
        }
    }

    /// Ends the display (a terminal's bar stays on screen with its last state).
    func finish() {
        if console.isTerminal {
            let final = state.withLock { state -> String? in
                guard let last = state.last, let started = state.started else { return nil }
                return Self.bar(label, last, elapsed: ContinuousClock.now - started)
            }
            if let final { console.redraw(final) }
            console.endBar()
        }
    }

    private static func bar(_ label: String, _ progress: TransferProgress, elapsed: Duration) -> String {
        let width = 30
        let filled = Int(((progress.fractionCompleted ?? 0) * Double(width)).rounded(.down))
        let cells = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        return "  \(label) \(cells) \(figures(progress, elapsed: elapsed))"
    }

    private static func line(_ label: String, _ progress: TransferProgress, elapsed: Duration) -> String {
        "\(label) \(figures(progress, elapsed: elapsed))"
    }

    /// ` 42%  112.7 MB / 268.4 MB  95.3 MB/s  ETA 2s`.
    private static func figures(_ progress: TransferProgress, elapsed: Duration) -> String {
        let seconds = elapsed.seconds
        let rate = seconds > 0 ? Double(progress.completed) / seconds : 0
        let percent = String(format: "%3.0f%%", (progress.fractionCompleted ?? 0) * 100)
        let total = progress.expected.map { " / " + megabytes($0) } ?? ""
        var eta = "ETA --"
        if let expected = progress.expected, rate > 0 {
            let left = Double(expected - progress.completed) / rate
            eta = String(format: left < 10 ? "ETA %.1fs" : "ETA %.0fs", left)
        }
        let speed = String(format: "%.1f MB/s", rate / 1e6)
        return "\(percent)  \(megabytes(progress.completed))\(total)  \(speed)  \(eta)"
    }
}

/// `268.4 MB`.
func megabytes(_ bytes: Int64) -> String { String(format: "%.1f MB", Double(bytes) / 1e6) }

extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// `12 ms` or `3.42 s`.
    var short: String {
        seconds < 1 ? String(format: "%.0f ms", seconds * 1000) : String(format: "%.2f s", seconds)
    }
}

/// This process's peak resident set size so far (`VmHWM`), in bytes; `nil` off Linux.
func peakResidentBytes() -> Int64? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return Int64(line.filter(\.isNumber)).map { $0 * 1024 }
    }
    return nil
}

/// Resets the peak resident set size to the current one (Linux), so a later
/// ``peakResidentBytes()`` measures what happened since.
func resetPeakResident() {
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
}
