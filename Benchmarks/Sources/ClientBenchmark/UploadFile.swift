import Foundation

/// The file the upload benchmark sends, and helpers around it.
enum UploadFile {
    /// Writes `size` bytes (1 MiB blocks of random bytes, each stamped with its index).
    static func write(_ url: URL, size: Int64) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var generator = SystemRandomNumberGenerator()
        var block = Data((0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        var written: Int64 = 0
        var index: UInt64 = 0
        while written < size {
            withUnsafeBytes(of: index) { block.replaceSubrange(0..<8, with: $0) }
            let count = Int(min(Int64(block.count), size - written))
            try handle.write(contentsOf: block.prefix(count))
            written += Int64(count)
            index += 1
        }
    }

    /// The SHA-256 of the file, from `sha256sum`.
    static func sha256(of url: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sha256sum", url.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output.prefix(64), as: UTF8.self)
    }

    /// User plus system CPU seconds this process has used so far.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// Resets the peak RSS (VmHWM) to the current RSS and returns it, in bytes.
    static func resetPeakRSS() -> Int64 {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return (Int64(line.filter(\.isNumber)) ?? 0) * 1024
        }
        return 0
    }

    /// The file read in 256 KiB chunks with `FileHandle.read(upToCount:)`, as a stream body
    /// of an application would be. swift-corelibs-foundation reads such a chunk in
    /// `st_blksize` (4 KiB) reads into a buffer it grows by reallocation.
    struct Chunks: AsyncSequence, Sendable {
        typealias Element = Data
        let url: URL

        func makeAsyncIterator() -> Iterator { Iterator(handle: try? FileHandle(forReadingFrom: url)) }

        struct Iterator: AsyncIteratorProtocol {
            let handle: FileHandle?

            mutating func next() async throws -> Data? {
                guard let handle else { throw CocoaError(.fileReadUnknown) }
                guard let chunk = try handle.read(upToCount: 256 * 1024), !chunk.isEmpty else {
                    try handle.close()
                    return nil
                }
                return chunk
            }
        }
    }

    /// The file read in 256 KiB chunks, one `read(2)` into a new `Data` each: an
    /// application's sequence that costs little more than the kernel's copy, which is all
    /// the raw `httpBodyStream` baseline pays to read the file.
    struct ReadChunks: AsyncSequence, Sendable {
        typealias Element = Data
        let url: URL

        func makeAsyncIterator() -> Iterator { Iterator(handle: try? FileHandle(forReadingFrom: url)) }

        struct Iterator: AsyncIteratorProtocol {
            let handle: FileHandle?

            mutating func next() async throws -> Data? {
                guard let handle else { throw CocoaError(.fileReadUnknown) }
                // Uninitialised memory that the `Data` then owns: no zero-filling first.
                let capacity = 256 * 1024
                guard let buffer = malloc(capacity) else { throw CocoaError(.fileReadUnknown) }
                let count = read(handle.fileDescriptor, buffer, capacity)
                guard count > 0 else {
                    free(buffer)
                    try handle.close()
                    if count < 0 { throw CocoaError(.fileReadUnknown) }
                    return nil
                }
                return Data(bytesNoCopy: buffer, count: count, deallocator: .free)
            }
        }
    }
}
