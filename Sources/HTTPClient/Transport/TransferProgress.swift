import Foundation

/// How far an upload or a download has got.
public struct TransferProgress: Sendable, Hashable, CustomStringConvertible {
    /// Which way the bytes move.
    public enum Direction: Sendable, Hashable {
        /// Request body bytes sent.
        case upload
        /// Response body bytes received.
        case download
    }

    /// Which way the bytes move.
    public var direction: Direction
    /// Bytes transferred so far.
    public var completed: Int64
    /// Total bytes expected, when known.
    public var expected: Int64?

    /// Creates a progress value.
    /// - Parameters:
    ///   - direction: Upload or download.
    ///   - completed: Bytes transferred so far.
    ///   - expected: Total bytes expected, if known.
    public init(direction: Direction, completed: Int64, expected: Int64?) {
        self.direction = direction
        self.completed = completed
        self.expected = expected
    }

    /// `completed / expected`, or `nil` when the total is unknown.
    public var fractionCompleted: Double? {
        guard let expected, expected > 0 else { return expected == 0 ? 1 : nil }
        return min(1, Double(completed) / Double(expected))
    }

    /// `completed / expected` from 0 to 1, as Foundation's `Progress.fractionCompleted` is: 0
    /// while the total is unknown (``isTotalKnown`` says which). The client's last report of a
    /// body whose length was unknown gives the count as the total, so it ends at 1.
    public var fraction: Double { fractionCompleted ?? 0 }

    /// Whether the total is known, so that ``fraction`` measures the transfer.
    public var isTotalKnown: Bool { expected != nil }

    /// `upload 512/1024`.
    public var description: String {
        "\(direction == .upload ? "upload" : "download") \(completed)/\(expected.map(String.init) ?? "?")"
    }
}
