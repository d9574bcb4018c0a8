import Foundation

/// Timing helpers shared by the benchmark executables.
///
/// Machines here are noisy: every figure is reported as a ratio to a baseline measured
/// in the same run, over several rounds, with the median taken.
public enum Measure {
    /// Runs `body` `rounds` times after `warmup` untimed runs and returns each duration in seconds.
    public static func seconds(rounds: Int, warmup: Int = 1, _ body: () throws -> Void) rethrows -> [Double] {
        for _ in 0..<warmup { try body() }
        var samples: [Double] = []
        for _ in 0..<rounds {
            let start = DispatchTime.now().uptimeNanoseconds
            try body()
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        return samples
    }

    /// Async variant of ``seconds(rounds:warmup:_:)``.
    public static func seconds(
        rounds: Int,
        warmup: Int = 1,
        _ body: () async throws -> Void
    ) async rethrows -> [Double] {
        for _ in 0..<warmup { try await body() }
        var samples: [Double] = []
        for _ in 0..<rounds {
            let start = DispatchTime.now().uptimeNanoseconds
            try await body()
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        return samples
    }

    /// CPU seconds the calling thread has used (`CLOCK_THREAD_CPUTIME_ID`): steadier than
    /// wall time on a shared machine, since other processes' load hardly moves it.
    public static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// CPU seconds the whole process has used, on every thread (`CLOCK_PROCESS_CPUTIME_ID`).
    public static func processCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Context switches of the whole process so far, voluntary and involuntary (`getrusage`).
    public static func processContextSwitches() -> Int {
        var usage = rusage()
        #if os(Linux)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        return usage.ru_nvcsw + usage.ru_nivcsw
    }

    /// The median of `samples`.
    public static func median(_ samples: [Double]) -> Double {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return .nan }
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }

    /// Peak resident set size of this process so far, in bytes (`VmHWM` on Linux).
    public static func peakRSS() -> Int64 {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let digits = line.filter(\.isNumber)
            return (Int64(digits) ?? -1) * 1024
        }
        return -1
    }

    /// Formats seconds as milliseconds with two decimals.
    public static func ms(_ seconds: Double) -> String { String(format: "%.2f ms", seconds * 1000) }
}
