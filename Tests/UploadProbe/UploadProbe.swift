import Foundation
import HTTPClient
import HTTPCore
import TestSupport

/// `HeronUploadProbe FILE FAULT_URL`: uploads FILE to the fault server's `/hash` through a
/// ``Client`` on the default ``URLSessionTransport`` and prints one line of JSON, an
/// ``UploadProbeReport``: the status, what the server received (byte count and SHA-256),
/// and how far the peak resident set rose above the baseline taken before the client existed.
///
/// Used by `LargeUploadTests` only, never shipped. The upload runs in a process of its own
/// for two reasons: on Linux every `URLSession` of a process shares one work queue, which a
/// 1 GiB upload would hold for seconds while the suite's other tests wait; and a peak
/// resident set means something only in a process that does nothing else.
///
/// Any failure (bad arguments, memory figures unreadable, a transport error, a status other
/// than 200, an answer that is not the server's hash report) is written to standard error
/// and the probe exits with status 1.
@main
enum UploadProbe {
    /// Runs the probe with the process's arguments.
    static func main() async {
        do {
            let report = try await run(arguments: Array(CommandLine.arguments.dropFirst()))
            let line = try JSONEncoder().encode(report)
            FileHandle.standardOutput.write(line + Data("\n".utf8))
        } catch {
            FileHandle.standardError.write(Data("HeronUploadProbe: \(error)\n".utf8))
            exit(1)
        }
    }

    /// A failure the probe reports before exiting.
    struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        let description: String
    }

    /// What `/hash` answers; its other fields are not needed here.
    struct HashReply: Decodable {
        let bytes: Int
        let sha256: String
    }

    /// Uploads the file named by `arguments` and measures the peak resident set meanwhile.
    static func run(arguments: [String]) async throws -> UploadProbeReport {
        guard arguments.count == 2, let faultServer = URL(string: arguments[1]), faultServer.scheme != nil else {
            throw Failure(description: "usage: HeronUploadProbe FILE FAULT_URL (got \(arguments))")
        }
        let file = URL(fileURLWithPath: arguments[0])
        let baseline = try PeakMemory.resetPeak()
        // One attempt, no retry: a second attempt would hide what the first one did. The
        // timeout bounds a hung upload so the test waiting for this process cannot hang.
        let client = Client(transport: URLSessionTransport(), retry: .none, timeout: .seconds(300))
        let request = HTTPRequest(
            method: .post, url: faultServer.appendingPathComponent("hash"), body: try HTTPBody(fileAt: file))
        let clock = ContinuousClock()
        let start = clock.now
        let response = try await client.send(request)
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let growth = try PeakMemory.peak() - baseline
        guard response.status == .ok else {
            let prefix = String(decoding: response.body.prefix(200), as: UTF8.self)
            throw Failure(description: "POST \(request.url) answered \(response.status): \(prefix)")
        }
        let reply: HashReply
        do {
            reply = try JSONDecoder().decode(HashReply.self, from: response.body)
        } catch {
            let prefix = String(decoding: response.body.prefix(200), as: UTF8.self)
            throw Failure(description: "POST \(request.url) answered no hash report (\(error)): \(prefix)")
        }
        return UploadProbeReport(
            status: response.status.code, bytes: reply.bytes, sha256: reply.sha256, baselineRSS: baseline,
            peakRSSGrowth: growth, seconds: seconds)
    }
}
