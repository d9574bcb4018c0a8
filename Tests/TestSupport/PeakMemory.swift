import Foundation

/// The resident memory of this process, read from Linux's `/proc/self/status`.
///
/// A memory bound is checked as growth above a baseline: ``resetPeak()`` makes the peak
/// (`VmHWM`) equal to the current resident set (`VmRSS`) by writing `5` to
/// `/proc/self/clear_refs`, and returns that baseline; ``peak()`` read after the work is the
/// highest resident set since. Only meaningful in a process that does one thing at a time:
/// in a test process running hundreds of tests in parallel the peak is everyone's.
///
/// ```swift
/// let baseline = try PeakMemory.resetPeak()
/// try await upload()
/// print("peak RSS grew by \(try PeakMemory.peak() - baseline) bytes")
/// ```
public enum PeakMemory {
    /// A figure that could not be read, with the file and what went wrong.
    public struct Unavailable: Error, CustomStringConvertible {
        /// The file that was read or written.
        public let path: String
        /// What went wrong.
        public let reason: String
        /// The failure, naming the file.
        public var description: String { "cannot measure resident memory through \(path): \(reason)" }
    }

    /// Resets the peak resident set to the current one and returns it.
    /// - Returns: The current resident set (`VmRSS`) in bytes, the baseline for ``peak()``.
    /// - Throws: ``Unavailable`` when `/proc/self/clear_refs` cannot be written or
    ///   `/proc/self/status` cannot be read (not Linux).
    public static func resetPeak() throws -> Int {
        let path = "/proc/self/clear_refs"
        do {
            try "5".write(toFile: path, atomically: false, encoding: .utf8)
        } catch {
            throw Unavailable(path: path, reason: "\(error)")
        }
        return try statusField("VmRSS")
    }

    /// The highest resident set (`VmHWM`) since the process started or since the last
    /// ``resetPeak()``.
    /// - Returns: The peak in bytes.
    /// - Throws: ``Unavailable`` when `/proc/self/status` cannot be read or lacks the field.
    public static func peak() throws -> Int { try statusField("VmHWM") }

    /// A `kB` field of `/proc/self/status` (such as `VmRSS:    1234 kB`), in bytes.
    private static func statusField(_ name: String) throws -> Int {
        let path = "/proc/self/status"
        let status: String
        do {
            status = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw Unavailable(path: path, reason: "\(error)")
        }
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("\(name):") }),
            let kibibytes = Int(line.dropFirst(name.count + 1).filter(\.isNumber))
        else {
            throw Unavailable(path: path, reason: "no \(name) line")
        }
        return kibibytes * 1024
    }
}
