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

    /// The file read in 256 KiB `Data` chunks, as a stream body of an application would be.
    struct Chunks: AsyncSequence, Sendable {
        /// How each chunk is read.
        enum Reading: Sendable {
            /// `FileHandle.read(upToCount:)`, which swift-corelibs-foundation performs as
            /// `st_blksize` (4 KiB) reads into a buffer it grows by reallocation.
            case fileHandle
            /// One `read(2)` into uninitialised memory that the `Data` then owns: little
            /// more than the kernel's copy, which is all the raw `httpBodyStream` baseline
            /// pays to read the file.
            case systemRead
        }

        typealias Element = Data
        let url: URL
        var reading = Reading.fileHandle

        func makeAsyncIterator() -> Iterator {
            Iterator(handle: try? FileHandle(forReadingFrom: url), reading: reading)
        }

        struct Iterator: AsyncIteratorProtocol {
            let handle: FileHandle?
            let reading: Reading

            mutating func next() async throws -> Data? {
                guard let handle else { throw CocoaError(.fileReadUnknown) }
                guard let chunk = try nextChunk(handle), !chunk.isEmpty else {
                    try handle.close()
                    return nil
                }
                return chunk
            }

            private func nextChunk(_ handle: FileHandle) throws -> Data? {
                let size = 256 * 1024
                guard reading == .systemRead else { return try handle.read(upToCount: size) }
                guard let buffer = malloc(size) else { throw CocoaError(.fileReadUnknown) }
                let count = read(handle.fileDescriptor, buffer, size)
                guard count > 0 else {
                    free(buffer)
                    if count < 0 { throw CocoaError(.fileReadUnknown) }
                    return nil
                }
                return Data(bytesNoCopy: buffer, count: count, deallocator: .free)
            }
        }
    }
}
