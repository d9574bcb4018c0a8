import Foundation

/// Reads a regular file in chunks with `FileHandle`, closing it at the end.
///
/// Uses `FileHandle` rather than `InputStream`: on swift-corelibs-foundation reading
/// `streamError` of a healthy stream traps, and `FileHandle` makes one `read` per chunk.
/// `@unchecked Sendable` is not claimed: a reader belongs to one iterator.
final class FileChunkReader {
    private let url: URL
    private let handle: FileHandle
    private let expectedSize: Int64
    private var remaining: Int64
    private var checkedEnd = false

    init(url: URL, expectedSize: Int64) throws(HTTPCoreError) {
        self.url = url
        self.expectedSize = expectedSize
        self.remaining = expectedSize
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw HTTPCoreError(
                .unreadableFile, value: url.path, reason: "cannot open for reading: \(error.localizedDescription)")
        }
    }

    deinit { try? handle.close() }

    /// The next chunk of at most `count` bytes, or `nil` after exactly `expectedSize` bytes.
    ///
    /// Throws ``HTTPCoreError/Code/bodyLengthMismatch`` when the file ends early or still has
    /// bytes after `expectedSize` (it changed since its size was taken): the body announced
    /// `expectedSize` bytes and must not silently send part of a different file.
    func read(upTo count: Int) throws(HTTPCoreError) -> Data? {
        guard remaining > 0 else {
            try checkAtEnd()
            return nil
        }
        let want = Int(Swift.min(Int64(count), remaining))
        let chunk: Data?
        do {
            chunk = try handle.read(upToCount: want)
        } catch {
            throw HTTPCoreError(.unreadableFile, value: url.path, reason: "read failed: \(error.localizedDescription)")
        }
        guard let chunk, !chunk.isEmpty else {
            throw HTTPCoreError(
                .bodyLengthMismatch, value: url.path,
                reason: "file ended after \(expectedSize - remaining) of its \(expectedSize) bytes")
        }
        remaining -= Int64(chunk.count)
        return chunk
    }

    /// Throws when the file holds more than `expectedSize` bytes; checked once, at the end.
    private func checkAtEnd() throws(HTTPCoreError) {
        guard !checkedEnd else { return }
        checkedEnd = true
        let extra: Data?
        do {
            extra = try handle.read(upToCount: 1)
        } catch {
            throw HTTPCoreError(.unreadableFile, value: url.path, reason: "read failed: \(error.localizedDescription)")
        }
        if let extra, !extra.isEmpty {
            throw HTTPCoreError(
                .bodyLengthMismatch, value: url.path,
                reason: "file grew past its \(expectedSize) bytes after the body was created")
        }
    }

    /// The size of the readable regular file at `url`, from `stat` (following a symbolic link).
    static func regularFileSize(at url: URL) throws(HTTPCoreError) -> Int64 {
        switch RegularFile.size(at: url) {
        case .success(let size): return size
        case .failure(let problem): throw HTTPCoreError(.unreadableFile, value: problem.path, reason: problem.reason)
        }
    }
}
