import Foundation
import HTTPCore

/// The error thrown by HTTPMultipart: a part that cannot be built or a form that cannot be encoded.
///
/// Every error names the offending value (a field name, a file path, a boundary) and says
/// what is wrong with it, so the message tells what to fix:
///
/// ```swift
/// var form = MultipartForm()
/// do {
///     try form.append(name: "avatar", fileAt: URL(fileURLWithPath: "/tmp/missing.png"))
/// } catch {
///     print(error)  // unreadableFile: "/tmp/missing.png": no such file (ENOENT)
/// }
/// ```
public struct MultipartError: Error, Sendable, CustomStringConvertible {
    /// What went wrong. New codes may be added; switch with a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The stable identifier of the code, such as `"unreadableFile"`.
        public let rawValue: String

        /// Creates a code from its identifier.
        /// - Parameter rawValue: The stable identifier.
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// A boundary that is empty, longer than 70 characters, ends in a space or holds a
        /// character outside RFC 2046 §5.1.1's `bchars`.
        public static let invalidBoundary = Code("invalidBoundary")
        /// A field name or filename holding a control character that cannot go in a header
        /// (CR, LF and `"` are escaped instead; NUL, DEL and the rest are rejected).
        public static let invalidName = Code("invalidName")
        /// A part header field or content type that HTTPCore rejects, or a custom part
        /// without the `Content-Disposition` field RFC 7578 §4.2 requires.
        public static let invalidHeader = Code("invalidHeader")
        /// A file that is missing, not a regular file, or cannot be read.
        public static let unreadableFile = Code("unreadableFile")
        /// A file whose size changed between adding it and encoding it.
        public static let fileChanged = Code("fileChanged")
        /// A stream or chunk sequence that ended before, or went past, its declared length.
        public static let lengthMismatch = Code("lengthMismatch")
        /// A negative declared length.
        public static let invalidLength = Code("invalidLength")
        /// A one-shot stream part that an earlier encoding already read.
        public static let streamConsumed = Code("streamConsumed")
        /// A stream or chunk sequence that failed while being read.
        public static let streamFailed = Code("streamFailed")
        /// An in-memory part that contains the delimiter of a caller-chosen boundary.
        public static let boundaryInContent = Code("boundaryInContent")
        /// The output file could not be created, written or moved into place.
        public static let writeFailed = Code("writeFailed")
        /// The encoding task was cancelled.
        public static let cancelled = Code("cancelled")
        /// A value the Codable encoder cannot turn into form parts.
        public static let unsupportedValue = Code("unsupportedValue")

        /// The identifier, for messages.
        public var description: String { rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// The offending value, as given: a field name, a file path, a boundary, a coding path.
    public let value: String
    /// A human-readable explanation of what is wrong with ``value``.
    public let reason: String
    /// The error that caused this one, if any (an `errno` error, a stream's error, an
    /// HTTPCore validation error).
    public let underlyingError: (any Error)?

    /// Creates an error.
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - value: The offending value, as given.
    ///   - reason: What is wrong with it.
    ///   - underlyingError: The error that caused this one, if any.
    public init(_ code: Code, value: String, reason: String, underlyingError: (any Error)? = nil) {
        self.code = code
        self.value = value
        self.reason = reason
        self.underlyingError = underlyingError
    }

    /// A one-line message naming the code, the value and the reason.
    public var description: String {
        "\(code): \(HTTPCoreError.quoted(value)): \(reason)"
    }

    /// An error for a failed system call, naming `errno`.
    static func system(_ code: Code, value: String, doing what: String, errno number: Int32) -> MultipartError {
        MultipartError(
            code, value: value, reason: "\(what): \(String(cString: strerror(number))) (errno \(number))",
            underlyingError: POSIXErrorCode(rawValue: number).map { POSIXError($0) })
    }
}
