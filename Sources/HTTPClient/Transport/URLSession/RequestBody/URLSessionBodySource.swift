import Foundation

/// What URLSession's body stream reads from: a ``URLSessionBodyPump`` for stream bodies, a
/// ``URLSessionDirectBodyReader`` for file bodies and bodies made from `InputStream`s.
protocol URLSessionBodySource: AnyObject, Sendable {
    /// Prepares the first read.
    func start()
    /// `false` only once the body has ended.
    var hasBytesAvailable: Bool { get }
    /// Copies up to `maxLength` bytes into `buffer`: the count, 0 at the end, -1 on failure.
    func read(into buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int
    /// Stops reading: later reads return -1.
    func close()
}
