import Foundation

/// A value that many threads share, read and written only under a lock.
///
/// The one place the package's modules keep shared mutable state: a class that holds its
/// state in a `Locked` (and nothing else mutable) is `Sendable` as it stands, with no
/// `@unchecked` of its own. Keep the closures short, and never await or call out to code
/// that may take the same lock inside one.
///
/// The value need not be `Sendable` (a file reader, an `InputStream`), as with the standard
/// library's `Mutex`: such a value, or a part of it, may leave a closure only where its
/// owner makes sure one thread at a time uses it.
///
/// `@unchecked Sendable`: `value` is read and written only inside `withLock`, under `lock`.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// Wraps `value`.
    /// - Parameter value: The initial state.
    package init(_ value: Value) { self.value = value }

    /// Runs `body` with the state, under the lock.
    /// - Parameter body: Reads or changes the state.
    /// - Returns: What `body` returns.
    package func withLock<Output>(_ body: (inout Value) throws -> Output) rethrows -> Output {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
