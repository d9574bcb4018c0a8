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

    init(url: URL, expectedSize: Int64) throws(HTTPCoreError) {
        self.url = url
        self.expectedSize = expectedSize
        self.remaining = expectedSize
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw HTTPCoreError(.unreadableFile, value: url.path, reason: "cannot open for reading: \(error.localizedDescription)")
        }
    }

    deinit { try? handle.close() }

    /// The next chunk of at most `count` bytes, or `nil` after exactly `expectedSize` bytes.
    func read(upTo count: Int) throws(HTTPCoreError) -> Data? {
        guard remaining > 0 else { return nil }
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

    /// The size of the regular file at `url`, from `stat`.
    static func regularFileSize(at url: URL) throws(HTTPCoreError) -> Int64 {
        guard url.isFileURL else {
            throw HTTPCoreError(.unreadableFile, value: url.absoluteString, reason: "not a file URL")
        }
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        } catch {
            throw HTTPCoreError(.unreadableFile, value: url.path, reason: "no such file or no access")
        }
        guard (attributes[.type] as? FileAttributeType) == .typeRegular else {
            throw HTTPCoreError(.unreadableFile, value: url.path, reason: "not a regular file")
        }
        guard FileManager.default.isReadableFile(atPath: url.path) else {
            throw HTTPCoreError(.unreadableFile, value: url.path, reason: "not readable")
        }
        return (attributes[.size] as? NSNumber)?.int64Value ?? 0
    }
}
