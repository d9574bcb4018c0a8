import Foundation

/// The HTTP version a response came over (RFC 9110 §2.5), as the transport reports it:
/// `HTTP/1.1`, `HTTP/2`, `HTTP/3`.
///
/// ```swift
/// let version = HTTPVersion.http2
/// print(version, HTTPVersion(major: 1, minor: 1) == .http1_1)  // HTTP/2 true
/// ```
public struct HTTPVersion: Hashable, Sendable, CustomStringConvertible {
    /// The major version: 1, 2 or 3.
    public var major: Int
    /// The minor version: 0 or 1 for HTTP/1, 0 otherwise.
    public var minor: Int

    /// Creates a version.
    /// - Parameters:
    ///   - major: The major version.
    ///   - minor: The minor version.
    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    // swift-format-ignore: AlwaysUseLowerCamelCase
    // Spelled as SwiftNIO and AsyncHTTPClient spell it, which users of both meet.
    /// HTTP/1.0.
    public static let http1_0 = HTTPVersion(major: 1, minor: 0)
    // swift-format-ignore: AlwaysUseLowerCamelCase
    /// HTTP/1.1.
    public static let http1_1 = HTTPVersion(major: 1, minor: 1)
    /// HTTP/2.
    public static let http2 = HTTPVersion(major: 2, minor: 0)
    /// HTTP/3.
    public static let http3 = HTTPVersion(major: 3, minor: 0)

    /// The version as HTTP/1 writes it in a status line (`HTTP/1.1`), and as HAR files and
    /// logs show the later ones (`HTTP/2`, `HTTP/3`).
    public var description: String { major >= 2 && minor == 0 ? "HTTP/\(major)" : "HTTP/\(major).\(minor)" }
}
