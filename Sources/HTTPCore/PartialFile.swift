import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A hidden file beside a destination, written in full and only then renamed over it: the
/// one implementation behind HTTPMultipart's encode to disk and HTTPClient's downloads.
///
/// The file, `.<name>.<UUID>.partial`, sits in the destination's directory so the final
/// `rename(2)` stays on one file system, where POSIX makes it atomic: the destination names
/// its old file or the whole new one at every moment, and an existing file is replaced. It
/// is opened `O_CREAT | O_EXCL | O_CLOEXEC` (never someone else's file, never inherited),
/// mode `0644` (or the mode given) less the umask. A failed ``commit()`` removes it, as do ``discard()`` and
/// `deinit` when neither ran. Each failure is a ``RegularFile/Problem`` naming the path,
/// which `failure` turns into the module's own `Failure`.
///
/// Not `Sendable`: a partial file belongs to the one task that writes it.
package final class PartialFile<Failure: Error> {
    /// Where ``commit()`` moves the file.
    package let destination: URL
    /// The path of the hidden partial file.
    package let path: String
    /// The open descriptor, for an in-kernel copy into the file such as `sendfile(2)`; -1
    /// once closed.
    package private(set) var fileDescriptor: Int32 = -1
    /// Turns a problem into the error the methods throw.
    private let failure: (RegularFile.Problem) -> Failure
    /// Whether the file was moved into place or removed, so nothing is left to clean up.
    private var isSettled = true

    /// Creates the hidden partial file beside `destination`.
    /// - Parameters:
    ///   - destination: A `file:` URL in an existing directory.
    ///   - mode: The permissions the file is created with, less the umask: `0644` by default,
    ///     `0600` for a file only its owner may read (one that may hold a private response).
    ///   - failure: Turns a problem into the module's own error; every method throws its result.
    /// - Throws: What `failure` makes of a problem naming `destination` when it is not a file
    ///   URL or the file cannot be created there (the reason names the partial file and gives
    ///   `errno`'s text).
    package init(
        destination: URL, mode: mode_t = 0o644, failure: @escaping (RegularFile.Problem) -> Failure
    ) throws(Failure) {
        self.destination = destination
        self.failure = failure
        path =
            destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).partial").path
        guard destination.isFileURL else {
            throw failure(
                .init(path: destination.absoluteString, reason: "the destination is not a file URL", errorNumber: nil))
        }
        fileDescriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fileDescriptor >= 0 else {
            throw failure(
                RegularFile.systemProblem(destination.path, "cannot create the temporary file \(path) beside it", errno)
            )
        }
        isSettled = false
    }

    /// Opens an existing partial file at `path` (one a download kept, ``keep()``) to go on
    /// writing it; ``commit()`` moves it to `destination`.
    /// - Parameters:
    ///   - path: The partial file.
    ///   - destination: A `file:` URL on the same file system.
    ///   - failure: Turns a problem into the module's own error.
    /// - Throws: What `failure` makes of a problem naming `path` when it cannot be opened for
    ///   writing or is not a regular file.
    package init(
        resuming path: String, destination: URL, failure: @escaping (RegularFile.Problem) -> Failure
    )
        throws(Failure)
    {
        self.destination = destination
        self.failure = failure
        self.path = path
        fileDescriptor = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fileDescriptor >= 0 else {
            throw failure(RegularFile.systemProblem(path, "cannot open the partial file to go on writing it", errno))
        }
        var status = stat()
        guard fstat(fileDescriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            _ = systemClose(fileDescriptor)
            fileDescriptor = -1
            throw failure(.init(path: path, reason: "the partial file is not a regular file", errorNumber: nil))
        }
        isSettled = false
    }

    deinit { discard() }

    /// The file's length now.
    /// - Throws: What `failure` makes of a failed `fstat(2)`.
    package func length() throws(Failure) -> Int64 {
        var status = stat()
        guard fileDescriptor >= 0, fstat(fileDescriptor, &status) == 0 else {
            throw failure(RegularFile.systemProblem(path, "cannot read the partial file's length", errno))
        }
        return Int64(status.st_size)
    }

    /// Cuts the file to its first `length` bytes; the next ``write(_:)`` goes after them.
    /// - Parameter length: The bytes to keep.
    /// - Throws: What `failure` makes of a failed `ftruncate(2)` or `lseek(2)`.
    package func truncate(to length: Int64) throws(Failure) {
        guard fileDescriptor >= 0, ftruncate(fileDescriptor, off_t(length)) == 0,
            lseek(fileDescriptor, off_t(length), SEEK_SET) >= 0
        else {
            throw failure(RegularFile.systemProblem(path, "cannot cut the partial file to \(length) bytes", errno))
        }
    }

    /// Closes the file and leaves it where it is, for a later ``init(resuming:destination:failure:)``:
    /// neither ``discard()`` nor `deinit` removes it afterwards.
    package func keep() {
        guard !isSettled else { return }
        isSettled = true
        if fileDescriptor >= 0 { _ = systemClose(fileDescriptor) }
        fileDescriptor = -1
    }

    /// Appends all of `bytes`, retrying short writes and `EINTR` as `write(2)` allows.
    /// - Parameter bytes: The bytes to append, such as `Data` or an `UnsafeRawBufferPointer`.
    /// - Throws: What `failure` makes of a problem naming the partial file, which is left
    ///   for ``discard()``.
    package func write(_ bytes: some ContiguousBytes) throws(Failure) {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(Failure) in
                guard var next = buffer.baseAddress else { return }
                var remaining = buffer.count
                while remaining > 0 {
                    #if canImport(Darwin)
                    let count = Darwin.write(fileDescriptor, next, remaining)
                    #elseif canImport(Musl)
                    let count = Musl.write(fileDescriptor, next, remaining)
                    #else
                    let count = Glibc.write(fileDescriptor, next, remaining)
                    #endif
                    if count < 0 {
                        if errno == EINTR { continue }
                        throw failure(RegularFile.systemProblem(path, "write failed", errno))
                    }
                    remaining -= count
                    next += count
                }
            }
        }.get()
    }

    /// Closes the descriptor, reporting a failure of `close(2)`, which can mean lost data.
    /// Does nothing once closed.
    /// - Throws: What `failure` makes of a problem naming the partial file, which is left
    ///   for ``discard()``.
    package func close() throws(Failure) {
        guard fileDescriptor >= 0 else { return }
        let descriptor = fileDescriptor
        fileDescriptor = -1
        guard systemClose(descriptor) == 0 else {
            throw failure(RegularFile.systemProblem(path, "close failed", errno))
        }
    }

    /// Closes the file and renames it to ``destination``, atomically replacing any file there.
    /// - Returns: ``destination``.
    /// - Throws: What `failure` makes of a problem naming the partial file (close) or the
    ///   destination (rename); the partial file is then removed, the destination left as it was.
    package func commit() throws(Failure) -> URL {
        do throws(Failure) {
            try close()
            guard rename(path, destination.path) == 0 else {
                let problem = RegularFile.systemProblem(
                    destination.path, "cannot move the finished file into place", errno)
                throw failure(problem)
            }
        } catch {
            discard()
            throw error
        }
        isSettled = true
        return destination
    }

    /// Closes and removes the partial file, leaving the destination untouched; does nothing
    /// after ``commit()`` or a first ``discard()``.
    package func discard() {
        guard !isSettled else { return }
        isSettled = true
        if fileDescriptor >= 0 { _ = systemClose(fileDescriptor) }
        fileDescriptor = -1
        unlink(path)
    }
}
