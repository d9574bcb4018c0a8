import Foundation
import HTTPClient
import HTTPCore
import HTTPMultipart
import TestSupport

/// `HeronUploadProbe FILE FAULT_URL [file | multipart]`: uploads FILE to the fault server's
/// `/hash` through a ``Client`` on the default ``URLSessionTransport`` and prints one line of
/// JSON, an ``UploadProbeReport``: the status, what the server received (byte count, SHA-256,
/// whether it came chunked and with what `Content-Length`), and how far the peak resident set
/// rose above the baseline taken before the client existed.
///
/// In `file` mode, the default, FILE is the request's body. In `multipart` mode FILE is the
/// file part of a ``MultipartForm`` (``UploadForm``) sent as the form's streaming body, of
/// exact length and with no temporary file; the report then also describes the form: its
/// length and the bytes it sends before and after the file's content.
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

    /// What `/hash` answers.
    struct HashReply: Decodable {
        let bytes: Int
        let sha256: String
        let chunked: Bool
        let contentLength: Int?

        enum CodingKeys: String, CodingKey {
            case bytes, sha256, chunked
            case contentLength = "content_length"
        }
    }

    /// How the probe sends the file.
    enum Mode: String {
        /// The file is the request's body.
        case file
        /// The file is a part of a streamed multipart form.
        case multipart
    }

    /// Uploads the file named by `arguments` and measures the peak resident set meanwhile.
    static func run(arguments: [String]) async throws -> UploadProbeReport {
        guard (2...3).contains(arguments.count), let faultServer = URL(string: arguments[1]), faultServer.scheme != nil,
            let mode = arguments.count == 3 ? Mode(rawValue: arguments[2]) : .file
        else {
            throw Failure(description: "usage: HeronUploadProbe FILE FAULT_URL [file | multipart] (got \(arguments))")
        }
        let file = URL(fileURLWithPath: arguments[0])
        let url = faultServer.appendingPathComponent("hash")
        // The request is built before the baseline is taken: a streaming form reads nothing
        // until it is sent, and its framing, encoded in memory, is a few hundred bytes.
        let request: HTTPRequest
        let form: UploadProbeReport.Form?
        switch mode {
        case .file:
            request = HTTPRequest(method: .post, url: url, body: try HTTPBody(fileAt: file))
            form = nil
        case .multipart:
            let encoded = try UploadForm.holding(fileAt: file).streamingBody()
            let framing = try await UploadForm.framing()
            request = HTTPRequest(method: .post, url: url).body(encoded)
            form = UploadProbeReport.Form(
                contentLength: Int(encoded.contentLength), prefix: framing.prefix, suffix: framing.suffix)
        }
        let baseline = try PeakMemory.resetPeak()
        // One attempt, no retry: a second attempt would hide what the first one did. The
        // timeout bounds a hung upload so the test waiting for this process cannot hang.
        let client = Client(transport: URLSessionTransport(), retry: .none, timeout: .seconds(300))
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
            status: response.status.code, bytes: reply.bytes, sha256: reply.sha256, chunked: reply.chunked,
            contentLength: reply.contentLength, form: form, baselineRSS: baseline, peakRSSGrowth: growth,
            seconds: seconds)
    }
}
