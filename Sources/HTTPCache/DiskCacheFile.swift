import Foundation
import HTTPClient
import HTTPCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The file format of one ``DiskCacheStorage`` entry, version 1:
///
/// | bytes | holds |
/// | --- | --- |
/// | 8 | `HRNCACHE` |
/// | 4 | the format version, big-endian (1) |
/// | n | the body, `bodyLength` bytes |
/// | m | the entry's head as JSON (``DiskCacheFile/Record``) |
/// | 4 | m, big-endian |
/// | 8 | `HRNCMETA` |
///
/// The body comes first so it can be streamed to disk as it arrives; the head follows once
/// its length is known. A file whose magic, version, lengths or JSON do not add up is
/// corrupt or foreign, and dropped.
enum DiskCacheFile {
    static let magic = Array("HRNCACHE".utf8)
    static let trailerMagic = Array("HRNCMETA".utf8)
    static let version: UInt32 = 1
    /// Bytes before the body.
    static let headerSize: Int64 = 12
    /// Bytes after the head's JSON.
    static let trailerSize: Int64 = 12
    /// The largest head accepted when reading (a guard against a corrupt length).
    static let headLimit = 1 << 20

    /// An entry's head and times, as stored.
    struct Record: Codable {
        var partition: String
        var uri: String
        var status: Int
        var reason: String
        var fields: [[String]]
        var url: String?
        var requestTime: Double
        var responseTime: Double
        var varyValues: [String: String]
        var bodyLength: Int64

        init(_ entry: CacheEntry) {
            partition = entry.key.partition
            uri = entry.key.uri
            status = entry.head.status.code
            reason = entry.head.status.reasonPhrase
            fields = entry.head.headerFields.map { [$0.name.rawName, $0.value] }
            url = entry.head.url?.absoluteString
            requestTime = entry.requestTime.timeIntervalSince1970
            responseTime = entry.responseTime.timeIntervalSince1970
            varyValues = entry.varyValues
            bodyLength = entry.bodyLength
        }

        /// The entry, or `nil` when a field, the status, the reason, a time or the body
        /// length is invalid (a corrupt or foreign file must never reach arithmetic that traps).
        func entry(id: String) -> CacheEntry? {
            guard bodyLength >= 0, Self.isSane(requestTime), Self.isSane(responseTime),
                !reason.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }),
                let status = try? HTTPStatus(code: status, reasonPhrase: reason)
            else { return nil }
            var headerFields = HTTPFields()
            for pair in fields {
                guard pair.count == 2, let field = try? HTTPField(name: pair[0], value: pair[1]) else { return nil }
                headerFields.append(field)
            }
            return CacheEntry(
                id: id, key: CacheKey(partition: partition, uri: uri),
                head: HTTPResponse(status: status, headerFields: headerFields, url: url.flatMap(URL.init(string:))),
                requestTime: Date(timeIntervalSince1970: requestTime),
                responseTime: Date(timeIntervalSince1970: responseTime), varyValues: varyValues,
                bodyLength: bodyLength)
        }

        /// Whether `time` (seconds since 1970) is finite and between 1970 and the year 10000.
        static func isSane(_ time: Double) -> Bool {
            time.isFinite && time >= 0 && time <= 253_402_300_800
        }
    }

    /// The bytes before the body.
    static var header: Data {
        var data = Data(magic)
        withUnsafeBytes(of: version.bigEndian) { data.append(contentsOf: $0) }
        return data
    }

    /// The head and trailer that end a file.
    static func trailer(for entry: CacheEntry) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var data = try encoder.encode(Record(entry))
        withUnsafeBytes(of: UInt32(data.count).bigEndian) { data.append(contentsOf: $0) }
        data.append(contentsOf: trailerMagic)
        return data
    }

    /// The entry stored in the file at `path`, or why it is not a valid entry file.
    static func read(_ path: String, id: String) -> Result<CacheEntry, Corrupt> {
        var info = stat()
        let descriptor = openEntry(path, info: &info)
        guard descriptor >= 0 else {
            return .failure(Corrupt(reason: errno == EINVAL ? "not a regular file" : "cannot open: errno \(errno)"))
        }
        defer { _ = close(descriptor) }
        let size = Int64(info.st_size)
        guard size >= headerSize + trailerSize,
            let start = readBytes(descriptor, at: 0, count: Int(headerSize)),
            Array(start.prefix(8)) == magic,
            let end = readBytes(descriptor, at: size - trailerSize, count: Int(trailerSize)),
            Array(end.suffix(8)) == trailerMagic
        else { return .failure(Corrupt(reason: "not a Heron cache entry")) }
        let version = start.dropFirst(8).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard version == Self.version else { return .failure(Corrupt(reason: "format version \(version)")) }
        let headLength = Int(end.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        guard headLength <= headLimit, Int64(headLength) <= size - headerSize - trailerSize,
            let json = readBytes(descriptor, at: size - trailerSize - Int64(headLength), count: headLength),
            let record = try? JSONDecoder().decode(Record.self, from: json),
            // No addition that could overflow: the room left for the body is known.
            record.bodyLength == size - headerSize - trailerSize - Int64(headLength),
            let entry = record.entry(id: id)
        else { return .failure(Corrupt(reason: "the head does not match the file")) }
        return .success(entry)
    }

    /// Opens the entry file at `path` for reading, or returns -1 with `errno` set: only a
    /// regular file, looked at before it is opened (a FIFO, a device or a link named like an
    /// entry is never opened), and opened `O_NONBLOCK | O_NOFOLLOW`, so that a file swapped for
    /// a FIFO in between cannot block the open (a FIFO's open for reading waits for a writer);
    /// what was opened is checked again, and `info` holds its status.
    static func openEntry(_ path: String, info: inout stat) -> Int32 {
        guard lstat(path, &info) == 0 else { return -1 }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            errno = EINVAL
            return -1
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
        guard descriptor >= 0 else { return -1 }
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            _ = close(descriptor)
            errno = EINVAL
            return -1
        }
        return descriptor
    }

    /// Why a file is not a valid entry.
    struct Corrupt: Error {
        let reason: String
    }

    static func readBytes(_ descriptor: Int32, at offset: Int64, count: Int) -> Data? {
        var data = Data(count: count)
        let read = data.withUnsafeMutableBytes { buffer -> Int in
            guard let base = buffer.baseAddress else { return 0 }
            var done = 0
            while done < count {
                let result = pread(descriptor, base + done, count - done, off_t(offset) + off_t(done))
                if result < 0 && errno == EINTR { continue }
                if result <= 0 { break }
                done += result
            }
            return done
        }
        return read == count ? data : nil
    }
}

/// The body of an entry file, read in chunks from a descriptor opened when the body was made:
/// a file replaced or evicted meanwhile is still read whole.
final class DiskBodySource: Sendable {
    private let descriptor: Locked<Int32>
    let length: Int64

    init?(path: String, length: Int64) {
        var info = stat()
        let opened = DiskCacheFile.openEntry(path, info: &info)
        guard opened >= 0 else { return nil }
        descriptor = Locked(opened)
        self.length = length
    }

    deinit {
        descriptor.withLock { if $0 >= 0 { _ = close($0) } }
    }

    /// The body as a stream of chunks of at most 256 KiB.
    var body: HTTPBody {
        HTTPBody(length: .known(length), iterationBehavior: .single) { [self] in
            Chunks(source: self)
        }
    }

    func read(at offset: Int64, count: Int) throws -> Data {
        let data = descriptor.withLock {
            DiskCacheFile.readBytes($0, at: DiskCacheFile.headerSize + offset, count: count)
        }
        guard let data else {
            throw ClientError(.cacheStorageFailed, "the stored body ended before its \(length) bytes")
        }
        return data
    }

    struct Chunks: AsyncSequence, Sendable {
        typealias Element = Data
        let source: DiskBodySource

        func makeAsyncIterator() -> Iterator { Iterator(source: source) }

        struct Iterator: AsyncIteratorProtocol {
            let source: DiskBodySource
            var offset: Int64 = 0

            mutating func next() async throws -> Data? {
                guard offset < source.length else { return nil }
                let count = Int(Swift.min(256 * 1024, source.length - offset))
                let data = try source.read(at: offset, count: count)
                offset += Int64(count)
                return data
            }
        }
    }
}
