import Foundation

/// What `HeronUploadProbe` (the child process that uploads a large file for
/// `LargeUploadTests`) prints as its one line of JSON on standard output.
///
/// ```swift
/// let report = try JSONDecoder().decode(UploadProbeReport.self, from: output.standardOutput)
/// print(report.status, report.bytes, report.peakRSSGrowth)
/// ```
public struct UploadProbeReport: Codable, Hashable, Sendable {
    /// The HTTP status of the fault server's answer.
    public var status: Int
    /// How many body bytes the fault server received.
    public var bytes: Int
    /// The SHA-256 of those bytes as the fault server computed it, in lowercase hex.
    public var sha256: String
    /// The probe's resident set just before it created the client, in bytes.
    public var baselineRSS: Int
    /// How far the peak resident set rose above ``baselineRSS`` by the end of the upload,
    /// in bytes.
    public var peakRSSGrowth: Int
    /// How long the request took, from sending to the whole answer, in seconds.
    public var seconds: Double

    /// Creates a report.
    /// - Parameters:
    ///   - status: The HTTP status of the answer.
    ///   - bytes: The body bytes the server received.
    ///   - sha256: Their SHA-256 as the server computed it.
    ///   - baselineRSS: The resident set before the client existed, in bytes.
    ///   - peakRSSGrowth: The peak resident set's rise above the baseline, in bytes.
    ///   - seconds: The request's duration.
    public init(status: Int, bytes: Int, sha256: String, baselineRSS: Int, peakRSSGrowth: Int, seconds: Double) {
        self.status = status
        self.bytes = bytes
        self.sha256 = sha256
        self.baselineRSS = baselineRSS
        self.peakRSSGrowth = peakRSSGrowth
        self.seconds = seconds
    }
}
