import Foundation
import HTTPClient
import HTTPCore

/// A ``CacheStorage`` in memory, bounded by a size, evicting the least recently used entries.
///
/// An entry counts its body and an estimate of its head (``CacheEntry/cost``) against the
/// capacity; an entry larger than the whole capacity is not kept. Nothing survives the
/// process.
///
/// ```swift
/// let storage = MemoryCacheStorage(capacity: 16 * 1024 * 1024)
/// let client = Client(transport: CachingTransport(wrapping: URLSessionTransport(), storage: storage))
/// print(storage.totalCost, client.transport is CachingTransport)  // 0 true
/// ```
public final class MemoryCacheStorage: CacheStorage {
    /// The most bytes the entries may take together.
    public let capacity: Int64

    private struct Stored {
        var entry: CacheEntry
        var body: Data
    }

    private struct State {
        var byKey: [CacheKey: [String]] = [:]
        var byID: [String: Stored] = [:]
        var order = LRUIndex<String>()
        var total: Int64 = 0
        /// The bytes of bodies being written, held against the capacity (``CapacityReservation``).
        var inFlight: Int64 = 0
        var removals = RemovalLog()

        mutating func drop(_ id: String) {
            guard let stored = byID.removeValue(forKey: id) else { return }
            order.remove(id)
            total -= stored.entry.cost
            byKey[stored.entry.key]?.removeAll { $0 == id }
            if byKey[stored.entry.key]?.isEmpty == true { byKey[stored.entry.key] = nil }
        }
    }

    private let state = Locked(State())

    /// Creates an empty storage.
    /// - Parameter capacity: The most bytes the entries may take; 32 MiB by default.
    public init(capacity: Int64 = 32 * 1024 * 1024) {
        self.capacity = max(0, capacity)
    }

    /// The bytes the entries take now.
    public var totalCost: Int64 { state.withLock { $0.total } }

    /// The number of entries held.
    public var count: Int { state.withLock { $0.byID.count } }

    /// The entries stored for `key`, each marked as used.
    /// - Parameter key: The partition and URI.
    /// - Returns: The entries.
    public func entries(for key: CacheKey) -> [CacheEntry] {
        state.withLock { state in
            guard let ids = state.byKey[key] else { return [] }
            return ids.compactMap { id in
                guard let stored = state.byID[id] else { return nil }
                state.order.use(id)
                return stored.entry
            }
        }
    }

    /// The body of `entry`, or `nil` when it was evicted.
    /// - Parameter entry: The entry.
    /// - Returns: The body, bytes in memory.
    public func body(of entry: CacheEntry) -> HTTPBody? {
        state.withLock { $0.byID[entry.id].map { HTTPBody($0.body) } }
    }

    /// A writer that collects the body in memory and stores the entry on commit, unless a
    /// removal covering its key comes first.
    /// - Parameters:
    ///   - entry: The new entry.
    ///   - replacing: The entries it supersedes.
    /// - Returns: The writer.
    public func makeWriter(for entry: CacheEntry, replacing: [String]) -> any CacheBodyWriter {
        writer(for: entry, replacing: replacing, stamp: removalMark())
    }

    /// The removals made so far, as a count.
    /// - Returns: The mark to give back to ``makeWriter(for:replacing:since:)``.
    public func removalMark() -> UInt64 {
        state.withLock { $0.removals.now }
    }

    /// A writer that collects the body in memory and stores the entry on commit, unless a
    /// removal covering its key was made after `mark`.
    /// - Parameters:
    ///   - entry: The new entry.
    ///   - replacing: The entries it supersedes.
    ///   - mark: The ``removalMark()`` taken when the entry's request was sent.
    /// - Returns: The writer.
    /// - Throws: `ClientError.Code.cacheStorageFailed` when the entry's key was removed since
    ///   `mark`.
    public func makeWriter(
        for entry: CacheEntry, replacing: [String], since mark: UInt64
    ) throws
        -> any CacheBodyWriter
    {
        guard state.withLock({ $0.removals.isCurrent(entry.key, since: mark) }) else {
            throw ClientError(.cacheStorageFailed, "the entry's key was removed after its request was sent")
        }
        return writer(for: entry, replacing: replacing, stamp: mark)
    }

    /// A writer whose commit stores the entry unless its key was removed after `stamp`.
    private func writer(for entry: CacheEntry, replacing: [String], stamp: UInt64) -> any CacheBodyWriter {
        let reservation = CapacityReservation(
            take: { [self] bytes in reserve(bytes) }, give: { [self] bytes in state.withLock { $0.inFlight -= bytes } })
        return MemoryBodyWriter(limit: capacity, reservation: reservation) { [self] body, reserved in
            var entry = entry
            entry.bodyLength = Int64(body.count)
            try insert(Stored(entry: entry, body: body), replacing: replacing, stamp: stamp, reserved: reserved)
        }
    }

    /// Holds `bytes` of a body being written against the capacity, evicting the least
    /// recently used entries to make room; `false` when the bodies in flight alone would
    /// pass the capacity.
    private func reserve(_ bytes: Int64) -> Bool {
        state.withLock { state in
            guard state.inFlight + bytes <= capacity else { return false }
            while state.total + state.inFlight + bytes > capacity, let oldest = state.order.oldest {
                state.drop(oldest)
            }
            state.inFlight += bytes
            return true
        }
    }

    /// Stores `stored`, unless its key was removed since its request was sent (`stamp`).
    /// - Throws: `ClientError.Code.cacheStorageFailed` when it was, as ``DiskCacheStorage``
    ///   throws: the commit stored nothing.
    private func insert(_ stored: Stored, replacing: [String], stamp: UInt64, reserved: Int64) throws {
        try state.withLock { state in
            // The body's bytes stop being in flight as the entry (or nothing) takes their place.
            state.inFlight -= reserved
            guard state.removals.isCurrent(stored.entry.key, since: stamp) else {
                throw ClientError(.cacheStorageFailed, "the entry's key was removed while its body was written")
            }
            for id in replacing { state.drop(id) }
            let cost = stored.entry.cost
            guard cost <= capacity else { return }
            while state.total + state.inFlight + cost > capacity, let oldest = state.order.oldest {
                state.drop(oldest)
            }
            guard state.total + state.inFlight + cost <= capacity else { return }
            state.byID[stored.entry.id] = stored
            state.byKey[stored.entry.key, default: []].append(stored.entry.id)
            state.order.use(stored.entry.id)
            state.total += cost
        }
    }

    /// Replaces the head and times of `entry`.
    /// - Parameter entry: The entry with its new head.
    public func update(_ entry: CacheEntry) {
        state.withLock { state in
            guard var stored = state.byID[entry.id] else { return }
            state.total -= stored.entry.cost
            var updated = entry
            updated.bodyLength = stored.entry.bodyLength
            stored.entry = updated
            state.total += updated.cost
            state.byID[entry.id] = stored
            state.order.use(entry.id)
        }
    }

    /// Drops entries of `key`.
    /// - Parameters:
    ///   - ids: The entries.
    ///   - key: Their key.
    public func remove(_ ids: [String], for key: CacheKey) {
        state.withLock { state in
            state.removals.removed(key)
            for id in ids { state.drop(id) }
        }
    }

    /// Drops entries of `key` that newer ones replace; writers of `key` in flight commit.
    /// - Parameters:
    ///   - ids: The entries.
    ///   - key: Their key.
    public func removeReplaced(_ ids: [String], for key: CacheKey) {
        state.withLock { state in
            for id in ids { state.drop(id) }
        }
    }

    /// Drops every entry of `uri`, in every partition.
    /// - Parameter uri: The request URI.
    /// - Returns: How many entries were dropped.
    @discardableResult
    public func removeAll(uri: String) -> Int {
        state.withLock { state in
            state.removals.removed(uri: uri)
            let ids = state.byKey.filter { $0.key.uri == uri }.flatMap(\.value)
            for id in ids { state.drop(id) }
            return ids.count
        }
    }

    /// Drops every entry of every partition but `kept`.
    /// - Parameter kept: The partition to keep.
    public func removeAll(keepingPartition kept: String) {
        state.withLock { state in
            let partitions = Set(state.byKey.keys.map(\.partition)).subtracting([kept])
            for partition in partitions { state.removals.removed(partition: partition) }
            for (key, ids) in state.byKey where key.partition != kept {
                for id in ids { state.drop(id) }
            }
        }
    }

    /// Drops every entry of `partition`, or all.
    /// - Parameter partition: The partition, or `nil` for all.
    public func removeAll(partition: String?) {
        state.withLock { state in
            state.removals.removed(partition: partition)
            guard let partition else {
                let removals = state.removals
                state = State()
                state.removals = removals
                return
            }
            for (key, ids) in state.byKey where key.partition == partition {
                for id in ids { state.drop(id) }
            }
        }
    }
}

/// Collects a body in memory up to a limit, then hands it over on commit.
final class MemoryBodyWriter: CacheBodyWriter {
    private struct State {
        var data = Data()
        var done = false
    }

    private let state = Locked(State())
    private let limit: Int64
    private let reservation: CapacityReservation
    private let store: @Sendable (Data, Int64) throws -> Void

    /// - Parameter store: Adds the entry, given its body and the bytes reserved for it; throws
    ///   when it cannot.
    init(limit: Int64, reservation: CapacityReservation, store: @escaping @Sendable (Data, Int64) throws -> Void) {
        self.limit = limit
        self.reservation = reservation
        self.store = store
    }

    func write(_ chunk: Data) throws {
        try state.withLock { state in
            guard !state.done else { return }
            func fail(_ reason: String) -> ClientError {
                state.done = true
                state.data = Data()
                reservation.release()
                return ClientError(.cacheStorageFailed, reason)
            }
            guard Int64(state.data.count + chunk.count) <= limit else {
                throw fail("the body exceeds the storage's capacity of \(limit) bytes")
            }
            guard reservation.hold(Int64(chunk.count)) else {
                throw fail("the bodies being stored at once would exceed the capacity of \(limit) bytes")
            }
            state.data.append(chunk)
        }
    }

    func commit() throws {
        let data: Data? = state.withLock { state in
            guard !state.done else { return nil }
            state.done = true
            defer { state.data = Data() }
            return state.data
        }
        if let data { try store(data, reservation.settle()) }
    }

    func discard() {
        state.withLock { state in
            state.done = true
            state.data = Data()
        }
        reservation.release()
    }
}
