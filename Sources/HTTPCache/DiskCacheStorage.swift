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

/// A ``CacheStorage`` on disk: one file per entry in a directory, bounded by a size, evicting
/// the least recently used entries.
///
/// Each entry is written to a temporary file beside its final name as its body arrives (in
/// bounded memory, whatever the body's size) and renamed into place only when the body is
/// complete, so a reader sees a whole entry or none. The files have a versioned format; a
/// file that is corrupt, cut short or of another format is dropped when found, never a
/// crash. Memory holds a small index (key, size and order of use per entry), not the heads
/// or bodies: a lookup reads the head of the entries of its key from disk.
///
/// A directory it creates is readable by its owner alone (mode `0700`), as the entries may
/// hold private responses; an existing directory keeps its mode.
///
/// The order of use starts from the files' modification times when the directory is first
/// read, and follows lookups from then on. Several storages must not share a directory.
///
/// ```swift
/// let directory = FileManager.default.temporaryDirectory.appendingPathComponent("heron-http-cache")
/// let storage = try DiskCacheStorage(directory: directory, capacity: 100 * 1024 * 1024)
/// let cache = CachingTransport(wrapping: URLSessionTransport(), storage: storage)
/// let client = Client(baseURL: baseURL, transport: cache)
/// _ = try await client.send(.get("cache/60"))
/// print(storage.count)  // 1: a file, found by the storage made on the directory after a restart
/// ```
public final class DiskCacheStorage: CacheStorage {
    /// The directory of the entry files.
    public let directory: URL
    /// The most bytes the entry files may take together.
    public let capacity: Int64

    struct Indexed {
        let key: CacheKey
        var size: Int64
    }

    struct State {
        var loaded = false
        var byKey: [CacheKey: [String]] = [:]
        var byID: [String: Indexed] = [:]
        var order = LRUIndex<String>()
        var total: Int64 = 0
        /// The bytes of bodies being written to temporary files, held against the capacity
        /// (``CapacityReservation``).
        var inFlight: Int64 = 0
        var removals = RemovalLog()

        mutating func add(_ id: String, key: CacheKey, size: Int64) {
            byID[id] = Indexed(key: key, size: size)
            byKey[key, default: []].append(id)
            order.use(id)
            total += size
        }

        /// Forgets `id`; the caller deletes its file.
        mutating func forget(_ id: String) {
            guard let indexed = byID.removeValue(forKey: id) else { return }
            order.remove(id)
            total -= indexed.size
            byKey[indexed.key]?.removeAll { $0 == id }
            if byKey[indexed.key]?.isEmpty == true { byKey[indexed.key] = nil }
        }
    }

    let state = Locked(State())

    /// The file suffix of entries.
    static let suffix = ".entry"

    /// Creates a storage in `directory`, made if missing.
    /// - Parameters:
    ///   - directory: A `file:` URL of a directory for this storage alone.
    ///   - capacity: The most bytes the entries may take; 256 MiB by default.
    /// - Throws: `ClientError.Code.cacheStorageFailed` naming the directory when it cannot be
    ///   made or is not a directory.
    public init(directory: URL, capacity: Int64 = 256 * 1024 * 1024) throws {
        self.directory = directory
        self.capacity = max(0, capacity)
        do {
            // Only this user may read the entries (they may hold private responses).
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ClientError(
                .cacheStorageFailed, "cannot create the cache directory \(directory.path)", underlying: error)
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue
        else {
            throw ClientError(.cacheStorageFailed, "the cache directory \(directory.path) is not a directory")
        }
    }

    /// The bytes the entry files take now.
    public var totalCost: Int64 { withIndex { $0.total } }

    /// The number of entries held.
    public var count: Int { withIndex { $0.byID.count } }

    func path(of id: String) -> String { directory.appendingPathComponent(id + Self.suffix).path }

    /// Runs `body` on the index, reading the directory first when it was not read yet.
    func withIndex<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        try state.withLock { state in
            if !state.loaded {
                state.loaded = true
                loadIndex(into: &state)
            }
            return try body(&state)
        }
    }

    /// Reads every entry file's head once, oldest first by modification time, dropping the
    /// corrupt and foreign ones and temporary files left by a crash.
    private func loadIndex(into state: inout State) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        var found: [(id: String, key: CacheKey, size: Int64, modified: Double)] = []
        for name in names {
            let path = directory.appendingPathComponent(name).path
            if name.hasPrefix("."), name.hasSuffix(".partial") {
                unlink(path)
                continue
            }
            guard name.hasSuffix(Self.suffix) else { continue }
            let id = String(name.dropLast(Self.suffix.count))
            switch DiskCacheFile.read(path, id: id) {
            case .success(let entry):
                var info = stat()
                guard stat(path, &info) == 0 else { continue }
                #if canImport(Darwin)
                let modified = Double(info.st_mtimespec.tv_sec)
                #else
                let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) * 1e-9
                #endif
                found.append((id, entry.key, Int64(info.st_size), modified))
            case .failure:
                unlink(path)
            }
        }
        for file in found.sorted(by: { $0.modified < $1.modified }) {
            state.add(file.id, key: file.key, size: file.size)
        }
        evict(&state)
    }

    /// Drops the least recently used entries until the total fits the capacity.
    private func evict(_ state: inout State, keeping protected: String? = nil) {
        while state.total + state.inFlight > capacity, let oldest = state.order.oldest, oldest != protected {
            state.forget(oldest)
            unlink(path(of: oldest))
        }
    }

    /// The entries stored for `key`, read from their files and marked as used; a file found
    /// corrupt is dropped.
    /// - Parameter key: The partition and URI.
    /// - Returns: The entries.
    public func entries(for key: CacheKey) -> [CacheEntry] {
        let ids = withIndex { state in
            let ids = state.byKey[key] ?? []
            for id in ids { state.order.use(id) }
            return ids
        }
        var entries: [CacheEntry] = []
        for id in ids {
            switch DiskCacheFile.read(path(of: id), id: id) {
            case .success(let entry) where entry.key == key: entries.append(entry)
            default: drop(id)
            }
        }
        return entries
    }

    /// The body of `entry`, streamed from its file, or `nil` when the file is gone.
    /// - Parameter entry: The entry.
    /// - Returns: The body, read in chunks.
    public func body(of entry: CacheEntry) -> HTTPBody? {
        DiskBodySource(path: path(of: entry.id), length: entry.bodyLength)?.body
    }

    /// The permissions of every entry file: its owner's alone, as entries may hold private
    /// responses, even in a directory that already existed with wider permissions.
    static let entryMode: mode_t = 0o600

    /// A writer that streams the body into a temporary file beside the entry's final name;
    /// a removal covering its key before the commit voids it.
    /// - Parameters:
    ///   - entry: The new entry.
    ///   - replacing: The entries it supersedes, deleted on commit.
    /// - Returns: The writer.
    /// - Throws: `ClientError.Code.cacheStorageFailed` when the file cannot be created.
    public func makeWriter(for entry: CacheEntry, replacing: [String]) throws -> any CacheBodyWriter {
        try makeWriter(for: entry, replacing: replacing, since: removalMark())
    }

    /// The removals made so far, as a count.
    /// - Returns: The mark to give back to ``makeWriter(for:replacing:since:)``.
    public func removalMark() -> UInt64 {
        // Read first: reading the directory deletes the temporary files a crash left.
        withIndex { $0.removals.now }
    }

    /// A writer that streams the body into a temporary file beside the entry's final name;
    /// a removal covering its key made after `mark` voids it.
    /// - Parameters:
    ///   - entry: The new entry.
    ///   - replacing: The entries it supersedes, deleted on commit.
    ///   - mark: The ``removalMark()`` taken when the entry's request was sent.
    /// - Returns: The writer.
    /// - Throws: `ClientError.Code.cacheStorageFailed` when the file cannot be created, or
    ///   when the entry's key was removed since `mark`.
    public func makeWriter(
        for entry: CacheEntry, replacing: [String], since mark: UInt64
    ) throws
        -> any CacheBodyWriter
    {
        // Read first: reading the directory deletes the temporary files a crash left. A removal
        // since the request was sent voids the store before a file is made for it.
        let current = withIndex { $0.removals.isCurrent(entry.key, since: mark) }
        guard current else {
            throw ClientError(.cacheStorageFailed, "the entry's key was removed after its request was sent")
        }
        let stamp = mark
        // 0600 whatever the directory's mode: an entry may hold a private response.
        let file = try PartialFile<ClientError>(
            destination: URL(fileURLWithPath: path(of: entry.id)), mode: Self.entryMode, failure: Self.failure)
        try file.write(DiskCacheFile.header)
        let reservation = CapacityReservation(
            take: { [self] bytes in reserve(bytes) }, give: { [self] bytes in withIndex { $0.inFlight -= bytes } })
        return DiskBodyWriter(file: file, entry: entry, limit: capacity, reservation: reservation) {
            [self] entry, size, file, reserved in
            try committed(entry, size: size, file: file, replacing: replacing, stamp: stamp, reserved: reserved)
        }
    }

    /// Holds `bytes` of a body being written against the capacity, evicting the least
    /// recently used entries to make room; `false` when the bodies in flight alone would
    /// pass the capacity.
    private func reserve(_ bytes: Int64) -> Bool {
        withIndex { state in
            guard state.inFlight + bytes <= capacity else { return false }
            state.inFlight += bytes
            evict(&state)
            return true
        }
    }

    /// Renames the finished file into place and indexes it, under the index lock, unless its
    /// key was removed since its request was sent (`stamp`): then the file is discarded.
    private func committed(
        _ entry: CacheEntry, size: Int64, file: PartialFile<ClientError>, replacing: [String], stamp: UInt64,
        reserved: Int64
    ) throws {
        try withIndex { state in
            // The body's bytes stop being in flight as the entry (or nothing) takes their place.
            state.inFlight -= reserved
            guard state.removals.isCurrent(entry.key, since: stamp) else {
                file.discard()
                throw ClientError(.cacheStorageFailed, "the entry's key was removed while its body was written")
            }
            do {
                _ = try file.commit()
            } catch {
                file.discard()
                throw error
            }
            for id in replacing {
                state.forget(id)
                unlink(path(of: id))
            }
            state.add(entry.id, key: entry.key, size: size)
            evict(&state, keeping: entry.id)
        }
    }

    /// Rewrites the head of `entry`'s file (copying its body into a new file renamed over it).
    /// - Parameter entry: The entry with its new head.
    /// - Throws: `ClientError.Code.cacheStorageFailed` when the file cannot be rewritten.
    public func update(_ entry: CacheEntry) throws {
        guard withIndex({ $0.byID[entry.id] != nil }) else { return }
        let path = path(of: entry.id)
        guard case .success(let stored) = DiskCacheFile.read(path, id: entry.id),
            let source = DiskBodySource(path: path, length: stored.bodyLength)
        else {
            drop(entry.id)
            return
        }
        var updated = entry
        updated.bodyLength = stored.bodyLength
        let file = try PartialFile<ClientError>(
            destination: URL(fileURLWithPath: path), mode: Self.entryMode, failure: Self.failure)
        try file.write(DiskCacheFile.header)
        var offset: Int64 = 0
        while offset < stored.bodyLength {
            let count = Int(min(256 * 1024, stored.bodyLength - offset))
            try file.write(try source.read(at: offset, count: count))
            offset += Int64(count)
        }
        let trailer = try DiskCacheFile.trailer(for: updated)
        try file.write(trailer)
        let size = DiskCacheFile.headerSize + stored.bodyLength + Int64(trailer.count)
        try withIndex { state in
            // Renamed only while still indexed: an entry removed meanwhile stays removed.
            guard let indexed = state.byID[entry.id] else {
                file.discard()
                return
            }
            _ = try file.commit()
            state.total += size - indexed.size
            state.byID[entry.id]?.size = size
            state.order.use(entry.id)
        }
    }

    /// Deletes entries of `key`.
    /// - Parameters:
    ///   - ids: The entries.
    ///   - key: Their key.
    public func remove(_ ids: [String], for key: CacheKey) {
        withIndex { state in
            state.removals.removed(key)
            for id in ids {
                state.forget(id)
                unlink(path(of: id))
            }
        }
    }

    /// Deletes entries of `key` that newer ones replace; writers of `key` in flight commit.
    /// - Parameters:
    ///   - ids: The entries.
    ///   - key: Their key.
    public func removeReplaced(_ ids: [String], for key: CacheKey) {
        withIndex { state in
            for id in ids {
                state.forget(id)
                unlink(path(of: id))
            }
        }
    }

    /// Deletes every entry of `uri`, in every partition.
    /// - Parameter uri: The request URI.
    /// - Returns: How many entries were deleted.
    @discardableResult
    public func removeAll(uri: String) -> Int {
        withIndex { state in
            state.removals.removed(uri: uri)
            let ids = state.byKey.filter { $0.key.uri == uri }.flatMap(\.value)
            for id in ids {
                state.forget(id)
                unlink(path(of: id))
            }
            return ids.count
        }
    }

    /// Deletes every entry of every partition but `kept`.
    /// - Parameter kept: The partition to keep.
    public func removeAll(keepingPartition kept: String) {
        withIndex { state in
            let ids = state.byID.filter { $0.value.key.partition != kept }
            for partition in Set(ids.values.map(\.key.partition)) { state.removals.removed(partition: partition) }
            for id in ids.keys {
                state.forget(id)
                unlink(path(of: id))
            }
        }
    }

    /// Deletes every entry of `partition`, or all.
    /// - Parameter partition: The partition, or `nil` for all.
    public func removeAll(partition: String?) {
        withIndex { state in
            state.removals.removed(partition: partition)
            let ids = state.byID.filter { partition == nil || $0.value.key.partition == partition }.map(\.key)
            for id in ids {
                state.forget(id)
                unlink(path(of: id))
            }
        }
    }

    private func drop(_ id: String) {
        withIndex { state in
            state.forget(id)
            unlink(path(of: id))
        }
    }

    static func failure(_ problem: RegularFile.Problem) -> ClientError {
        ClientError(
            .cacheStorageFailed, "cache file \(problem.path): \(problem.reason)", underlying: problem.underlyingError)
    }
}

/// Streams a body into an entry's temporary file; the head follows on commit, then the
/// rename.
final class DiskBodyWriter: CacheBodyWriter {
    private struct State {
        var file: PartialFile<ClientError>?
        var written: Int64 = 0
    }

    private let state: Locked<State>
    private let entry: CacheEntry
    private let limit: Int64
    private let reservation: CapacityReservation
    private let committed: @Sendable (CacheEntry, Int64, PartialFile<ClientError>, Int64) throws -> Void

    /// - Parameter committed: Renames the file into place and indexes the entry (given the
    ///   bytes reserved for its body), or discards the file and throws.
    init(
        file: PartialFile<ClientError>, entry: CacheEntry, limit: Int64, reservation: CapacityReservation,
        committed: @escaping @Sendable (CacheEntry, Int64, PartialFile<ClientError>, Int64) throws -> Void
    ) {
        state = Locked(State(file: file))
        self.entry = entry
        self.limit = limit
        self.reservation = reservation
        self.committed = committed
    }

    func write(_ chunk: Data) throws {
        try state.withLock { state in
            guard let file = state.file else { return }
            func fail(_ error: any Error) -> any Error {
                file.discard()
                state.file = nil
                reservation.release()
                return error
            }
            guard state.written + Int64(chunk.count) <= limit else {
                throw fail(
                    ClientError(.cacheStorageFailed, "the body exceeds the storage's capacity of \(limit) bytes"))
            }
            guard reservation.hold(Int64(chunk.count)) else {
                throw fail(
                    ClientError(
                        .cacheStorageFailed,
                        "the bodies being stored at once would exceed the capacity of \(limit) bytes"))
            }
            do {
                try file.write(chunk)
            } catch {
                throw fail(error)
            }
            state.written += Int64(chunk.count)
        }
    }

    func commit() throws {
        let (entry, size, file) = try state.withLock { state -> (CacheEntry, Int64, PartialFile<ClientError>) in
            guard let file = state.file else {
                throw ClientError(.cacheStorageFailed, "the entry was discarded")
            }
            state.file = nil
            var entry = self.entry
            entry.bodyLength = state.written
            let trailer: Data
            do {
                trailer = try DiskCacheFile.trailer(for: entry)
                try file.write(trailer)
            } catch {
                file.discard()
                reservation.release()
                throw error
            }
            return (entry, DiskCacheFile.headerSize + state.written + Int64(trailer.count), file)
        }
        try committed(entry, size, file, reservation.settle())
    }

    func discard() {
        state.withLock { state in
            state.file?.discard()
            state.file = nil
        }
        reservation.release()
    }
}
