import Foundation

/// Writes large test files quickly whose content still catches reordered, repeated or
/// dropped blocks.
///
/// The file is one block of 1 MiB of random bytes repeated, each copy stamped in its first
/// eight bytes with its index (little-endian): a block sent twice or skipped changes the
/// SHA-256, while writing costs one random megabyte whatever the size.
///
/// ```swift
/// try PatternFile.write(to: url, size: 1 << 30)  // 1 GiB
/// ```
public enum PatternFile {
    /// The size of the repeated block: 1 MiB.
    public static let blockSize = 1 << 20

    /// Creates or replaces the file at `url` with `size` bytes of the pattern.
    ///
    /// Blocks the calling thread while it writes: call it off Swift's cooperative pool.
    /// - Parameters:
    ///   - url: A `file:` URL.
    ///   - size: The file's length in bytes; the last block is cut short when `size` is not a
    ///     multiple of ``blockSize``.
    /// - Throws: The file system's error when the file cannot be created or written.
    public static func write(to url: URL, size: Int) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var block = randomBlock()
        var index: UInt64 = 0
        var written = 0
        while written < size {
            withUnsafeBytes(of: index.littleEndian) { block.replaceSubrange(0..<8, with: $0) }
            let count = min(blockSize, size - written)
            try handle.write(contentsOf: count == blockSize ? block : block.prefix(count))
            written += count
            index += 1
        }
    }

    /// ``blockSize`` random bytes, made eight at a time (tests are built unoptimised).
    private static func randomBlock() -> Data {
        var data = Data(count: blockSize)
        var generator = SystemRandomNumberGenerator()
        data.withUnsafeMutableBytes { raw in
            for offset in stride(from: 0, to: blockSize, by: 8) {
                raw.storeBytes(of: generator.next(), toByteOffset: offset, as: UInt64.self)
            }
        }
        return data
    }
}
