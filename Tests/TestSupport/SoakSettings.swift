import Foundation

/// What the soak tests (the client's and the cache's) share: their settings from the
/// environment `scripts/soak` sets, and the process's resident memory now.
public enum SoakSettings {
    /// The integer in the environment variable `name`, or `fallback`.
    public static func environment(_ name: String, _ fallback: Int) -> Int {
        ProcessInfo.processInfo.environment[name].flatMap { Int($0) } ?? fallback
    }

    /// The resident set of this process (`VmRSS`) in bytes, 0 where `/proc` cannot tell.
    public static func residentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kilobytes * 1024
    }
}
