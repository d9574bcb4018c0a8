import Foundation

/// The SHA-256 of files, from the system's `sha256sum` run through ``ExternalProcess`` (off
/// the cooperative pool, at a lower priority): hashing hundreds of MiB keeps a core busy for
/// seconds while timing-sensitive tests run beside it.
public enum FileDigest {
    /// `sha256sum` failed or printed something that is not a digest.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public let description: String
    }

    /// The SHA-256 of the files at `urls` read one after the other, in lowercase hex, from
    /// `cat` piped into `sha256sum`.
    /// - Parameter urls: The files, in order.
    /// - Returns: 64 hex digits.
    /// - Throws: ``Failure`` when the command fails; an error when it cannot be started.
    public static func sha256(of urls: [URL]) async throws -> String {
        let output = try await ExternalProcess.run(
            "/bin/sh", ["-c", #"cat -- "$@" | sha256sum"#, "sh"] + urls.map(\.path))
        guard output.status == 0 else {
            throw Failure(description: "sha256sum failed: \(String(decoding: output.standardError, as: UTF8.self))")
        }
        let digest = String(decoding: output.standardOutput.prefix(64), as: UTF8.self)
        guard digest.count == 64, digest.allSatisfy(\.isHexDigit) else {
            throw Failure(description: "sha256sum printed \(digest)")
        }
        return digest
    }
}
