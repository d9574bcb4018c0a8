import Foundation

/// What `HeronUploadProbe` (the child process that uploads a large file for
/// `LargeUploadTests`) prints as its one line of JSON on standard output.
///
/// ```swift
/// let report = try JSONDecoder().decode(UploadProbeReport.self, from: output.standardOutput)
/// print(report.status, report.bytes, report.contentLength ?? -1, report.peakRSSGrowth)
/// ```
public struct UploadProbeReport: Codable, Hashable, Sendable {
    /// The HTTP status of the fault server's answer.
    public var status: Int
    /// How many body bytes the fault server received.
    public var bytes: Int
    /// The SHA-256 of those bytes as the fault server computed it, in lowercase hex.
    public var sha256: String
    /// Whether the request reached the server with `Transfer-Encoding: chunked`; nil when
    /// the report does not say.
    public var chunked: Bool?
    /// The `Content-Length` the request reached the server with; nil when it had none.
    public var contentLength: Int?
    /// The multipart form the file was sent in, when the probe ran in `multipart` mode.
    public var form: Form?
    /// The probe's resident set just before it created the client, in bytes.
    public var baselineRSS: Int
    /// How far the peak resident set rose above ``baselineRSS`` by the end of the upload,
    /// in bytes.
    public var peakRSSGrowth: Int
    /// How long the request took, from sending to the whole answer, in seconds.
    public var seconds: Double

    /// The streamed multipart form that carried the file: its length, and the bytes it
    /// sends before and after the file's content.
    ///
    /// The body the server hashes is ``prefix``, then the file, then ``suffix``, so its
    /// expected SHA-256 is that of the three concatenated.
    public struct Form: Codable, Hashable, Sendable {
        /// The form's own `contentLength`: the exact byte count of its body.
        public var contentLength: Int
        /// The bytes before the file's content: the delimiters, the text field and the file
        /// part's header fields.
        public var prefix: Data
        /// The bytes after the file's content: any parts that follow and the closing delimiter.
        public var suffix: Data

        /// Creates the description of a form.
        /// - Parameters:
        ///   - contentLength: The form's exact length in bytes.
        ///   - prefix: The bytes before the file's content.
        ///   - suffix: The bytes after the file's content.
        public init(contentLength: Int, prefix: Data, suffix: Data) {
            self.contentLength = contentLength
            self.prefix = prefix
            self.suffix = suffix
        }
    }

    /// Creates a report.
    /// - Parameters:
    ///   - status: The HTTP status of the answer.
    ///   - bytes: The body bytes the server received.
    ///   - sha256: Their SHA-256 as the server computed it.
    ///   - chunked: Whether the body arrived chunked, if known.
    ///   - contentLength: The `Content-Length` the server received, if any.
    ///   - form: The multipart form the file was sent in, if it was.
    ///   - baselineRSS: The resident set before the client existed, in bytes.
    ///   - peakRSSGrowth: The peak resident set's rise above the baseline, in bytes.
    ///   - seconds: The request's duration.
    public init(
        status: Int, bytes: Int, sha256: String, chunked: Bool? = nil, contentLength: Int? = nil, form: Form? = nil,
        baselineRSS: Int, peakRSSGrowth: Int, seconds: Double
    ) {
        self.status = status
        self.bytes = bytes
        self.sha256 = sha256
        self.chunked = chunked
        self.contentLength = contentLength
        self.form = form
        self.baselineRSS = baselineRSS
        self.peakRSSGrowth = peakRSSGrowth
        self.seconds = seconds
    }
}
