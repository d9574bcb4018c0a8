import NIOConcurrencyHelpers

/// How many of a transport's transfers have not ended yet: each counts from `send` until
/// its response ended (its body read from AsyncHTTPClient to the end, or failed, or stopped),
/// so a test can see that cancelled work really stopped.
final class TransferCount: Sendable {
    private let count = NIOLockedValueBox(0)

    /// Transfers not ended.
    var value: Int { count.withLockedValue { $0 } }

    /// One more transfer.
    func add() { count.withLockedValue { $0 += 1 } }

    /// One transfer ended.
    func remove() { count.withLockedValue { $0 -= 1 } }
}
