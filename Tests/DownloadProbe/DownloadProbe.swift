import Foundation
import HTTPClient
import HTTPCore
import TestSupport

/// `HeronDownloadProbe download FAULT_URL PATH_AND_QUERY DESTINATION RETRIES [keep]` downloads
/// from the fault server (`/resumable?...`) to DESTINATION through a ``Client`` on the default
/// ``URLSessionTransport``, retrying cut bodies up to RETRIES times (which resume them);
/// with `keep`, a failed call keeps its partial file.
/// `HeronDownloadProbe resume FAULT_URL RESUMABLE_JSON` goes on with the download that a
/// failed `download` run reported, from the JSON of its ``ResumableDownload``.
///
/// Either prints one line of JSON, a ``Report``: the status and attempts of a call that
/// succeeded, or the error code and the ``ResumableDownload`` of one that failed, and how far
/// the peak resident set rose above the baseline taken before the client existed.
///
/// Used by `ResumableDownloadTests` only, never shipped. It runs in a process of its own
/// because a resume after a restart is what it shows, because on Linux every `URLSession` of a
/// process shares one work queue (a 256 MiB download would hold the suite's other tests), and
/// because a peak resident set means something only in a process that does nothing else.
@main
enum DownloadProbe {
    struct Report: Codable {
        var status: Int?
        var attempts: Int
        /// Each attempt's failure code, or its status.
        var outcomes: [String] = []
        var errorCode: String?
        var errorMessage: String?
        var resumable: ResumableDownload?
        var peakGrowth: Int
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func main() async {
        do {
            let report = try await run(Array(CommandLine.arguments.dropFirst()))
            FileHandle.standardOutput.write(try JSONEncoder().encode(report) + Data("\n".utf8))
        } catch {
            FileHandle.standardError.write(Data("HeronDownloadProbe: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run(_ arguments: [String]) async throws -> Report {
        guard arguments.count >= 3, let base = URL(string: arguments[1]) else {
            throw Failure(
                description: "usage: download FAULT_URL PATH DESTINATION RETRIES [keep] | resume FAULT_URL JSON")
        }
        let baseline = try PeakMemory.resetPeak()
        var codes = RetryPolicy.defaultTransportErrorCodes
        codes.insert(.invalidResponse)
        let retries = arguments[0] == "download" && arguments.count >= 5 ? Int(arguments[4]) ?? 0 : 0
        let client = Client(
            baseURL: base, retry: [.transportErrors(max: retries, codes: codes), .attempts(max: retries + 1)])
        var options = RequestOptions()
        options.keepsPartialDownload = arguments.count >= 6 && arguments[5] == "keep"
        do {
            let response: ClientResponse<URL>
            switch arguments[0] {
            case "download":
                guard arguments.count >= 5 else { throw Failure(description: "download needs 4 arguments") }
                response = try await client.download(
                    HTTPRequest(url: URL(string: arguments[2])!), to: URL(fileURLWithPath: arguments[3]),
                    options: options)
            case "resume":
                let resumable = try JSONDecoder().decode(
                    ResumableDownload.self, from: Data(contentsOf: URL(fileURLWithPath: arguments[2])))
                response = try await client.download(resuming: resumable)
            default:
                throw Failure(description: "unknown mode \(arguments[0])")
            }
            return Report(
                status: response.status.code, attempts: response.metrics.attempts.count,
                outcomes: response.metrics.attempts.map { $0.failure ?? $0.status.map { "\($0.code)" } ?? "" },
                peakGrowth: try PeakMemory.peak() - baseline)
        } catch let error as ClientError {
            return Report(
                attempts: error.attempts.count, errorCode: error.code.rawValue, errorMessage: error.message,
                resumable: error.resumableDownload, peakGrowth: try PeakMemory.peak() - baseline)
        }
    }
}
