import Foundation
import HTTPCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A download being written to a hidden temporary file next to its destination, moved
/// into place only when complete.
///
/// The temporary file lives in the destination's directory so the final move is an
/// atomic `rename(2)` on the same file system: the destination holds either its old
/// content or the whole new body, never a partial one.
///
/// Not `Sendable`: a file belongs to the one attempt that writes it.
final class DownloadFile {
    let destination: URL
    let temporary: URL
    private let request: HTTPRequest
    private let response: HTTPResponse
    private var handle: FileHandle?

    /// Creates the temporary file.
    /// - Throws: ``ClientError/Code/fileWriteFailed`` naming the path when it cannot be created.
    init(destination: URL, request: HTTPRequest, response: HTTPResponse) throws(ClientError) {
        self.destination = destination
        self.request = request
        self.response = response
        let directory = destination.deletingLastPathComponent()
        temporary = directory.appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).partial")
        guard destination.isFileURL,
            FileManager.default.createFile(atPath: temporary.path, contents: nil),
            let handle = FileHandle(forWritingAtPath: temporary.path)
        else {
            throw ClientError(
                .fileWriteFailed, "cannot create a file in \(directory.path) for the download to \(destination.path)",
                request: request, response: response)
        }
        self.handle = handle
    }

    /// Appends `data` to the temporary file.
    /// - Throws: ``ClientError/Code/fileWriteFailed`` naming the path.
    func write(_ data: Data) throws(ClientError) {
        do {
            try handle?.write(contentsOf: data)
        } catch {
            throw ClientError(
                .fileWriteFailed, "writing the download to \(temporary.path) failed", request: request,
                response: response, underlying: error)
        }
    }

    /// Closes the file and moves it to the destination, replacing any file there.
    /// - Returns: The destination.
    /// - Throws: ``ClientError/Code/fileWriteFailed`` naming the path; the temporary file
    ///   is then removed.
    func commit() throws(ClientError) -> URL {
        do {
            try handle?.close()
            handle = nil
        } catch {
            discard()
            throw ClientError(
                .fileWriteFailed, "closing the download at \(temporary.path) failed", request: request,
                response: response, underlying: error)
        }
        guard rename(temporary.path, destination.path) == 0 else {
            let reason = String(cString: strerror(errno))
            discard()
            throw ClientError(
                .fileWriteFailed, "moving the download to \(destination.path) failed: \(reason)", request: request,
                response: response)
        }
        return destination
    }

    /// Closes and removes the temporary file; the destination is left untouched.
    func discard() {
        try? handle?.close()
        handle = nil
        try? FileManager.default.removeItem(at: temporary)
    }
}
