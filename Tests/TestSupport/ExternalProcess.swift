import Foundation

/// Runs a program outside Swift (a peer parser, a shell) without blocking Swift's
/// cooperative thread pool, and at a lower CPU priority than the tests.
///
/// Tests run in parallel on a pool with one thread per core; a test that waited for a
/// child process on a pool thread would stall every other test on a 2-core machine, and
/// timing-sensitive tests would then fail for no fault of their own. All blocking work
/// (writing stdin, draining stdout and stderr, waiting for exit) happens on dedicated
/// threads, and the caller awaits the result.
///
/// Programs run under `nice -n 10`: the peers of the differential tests (interpreters
/// reading thousands of cases) would otherwise take both cores while the suite starts, and
/// the test process and its servers, starved, missed sub-second timeouts in cold CI runs.
/// Niced, they use what the tests leave.
public enum ExternalProcess {
    /// What a finished program produced.
    public struct Output: Sendable {
        /// The exit status.
        public let status: Int32
        /// Everything written to standard output.
        public let standardOutput: Data
        /// Everything written to standard error.
        public let standardError: Data
    }

    /// Runs `executable` with `arguments`, feeding it `input`, and waits for it to exit.
    /// - Parameters:
    ///   - executable: The program's path.
    ///   - arguments: Its arguments.
    ///   - input: Bytes for its standard input, closed afterwards.
    /// - Returns: The exit status and the captured output.
    /// - Throws: When the program cannot be started.
    public static func run(_ executable: String, _ arguments: [String], input: Data = Data()) async throws -> Output {
        try await DedicatedThread.run { try runBlocking(executable, arguments, input: input) }
    }

    /// At most two programs run at once. Dozens of tests start peers together when the
    /// suite begins; on a 2-core machine so many interpreters starting at once took the
    /// test process's share of the CPU for several seconds, and timing-sensitive tests
    /// failed. Only the dedicated threads wait here, never a cooperative one.
    private static let slots = DispatchSemaphore(value: 2)

    private static func runBlocking(_ executable: String, _ arguments: [String], input: Data) throws -> Output {
        slots.wait()
        defer { slots.signal() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/nice")
        process.arguments = ["-n", "10", executable] + arguments
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        // Drain stderr and feed stdin on their own threads so no pipe can fill up and
        // deadlock the child while this thread drains stdout.
        let errorBox = DataBox()
        let done = DispatchGroup()
        done.enter()
        Thread {
            errorBox.data = stderr.fileHandleForReading.readDataToEndOfFile()
            done.leave()
        }.start()
        Thread {
            if !input.isEmpty { stdin.fileHandleForWriting.write(input) }
            try? stdin.fileHandleForWriting.close()
        }.start()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        done.wait()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, standardOutput: output, standardError: errorBox.data)
    }

    /// Holds bytes handed from the stderr thread to the waiting thread; the
    /// `DispatchGroup` wait orders the write before the read.
    private final class DataBox: @unchecked Sendable {
        var data = Data()
    }
}
