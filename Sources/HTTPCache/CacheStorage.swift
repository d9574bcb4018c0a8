import Foundation
import HTTPClient
import HTTPCore

/// Where a ``CachingTransport`` keeps responses: entries by key, their bodies, a capacity.
///
/// Implementations are ``MemoryCacheStorage`` and ``DiskCacheStorage``; a storage of your own
/// conforms with these six methods. Each must be safe to call from many tasks at once, and
/// a failure must leave the storage usable (a broken entry is dropped, not fatal).
///
/// A new entry is written in two steps: ``makeWriter(for:replacing:)`` returns a
/// ``CacheBodyWriter`` that takes the body chunk by chunk as it arrives; only
/// ``CacheBodyWriter/commit()`` makes the entry visible (and drops the entries it replaces),
/// so a body that failed or was cut short is never served.
///
/// ```swift
/// let storage = MemoryCacheStorage(capacity: 8 * 1024 * 1024)
/// let transport = CachingTransport(wrapping: URLSessionTransport(), storage: storage)
/// let client = Client(baseURL: baseURL, transport: transport)
/// _ = try await client.send(.get("cache/60"))
/// print(storage.count)  // 1
/// ```
public protocol CacheStorage: Sendable {
    /// The entries stored for `key`: every variant (RFC 9111 §4.1), in no particular order.
    /// - Parameter key: The partition and URI.
    /// - Returns: The entries, empty when there is none.
    /// - Throws: An error of the storage; the caller treats it as a miss.
    func entries(for key: CacheKey) throws -> [CacheEntry]

    /// The body of `entry`, readable once, or `nil` when it is gone (evicted meanwhile).
    /// - Parameter entry: An entry ``entries(for:)`` returned.
    /// - Returns: The body.
    /// - Throws: An error of the storage; the caller treats it as a miss.
    func body(of entry: CacheEntry) throws -> HTTPBody?

    /// Begins storing `entry`, whose body follows through the writer; a removal covering its
    /// key after this call voids the store.
    /// - Parameters:
    ///   - entry: The new entry (its ``CacheEntry/bodyLength`` is set by the writer).
    ///   - replacing: The IDs of entries the new one supersedes, dropped on commit.
    /// - Returns: The writer of the body.
    /// - Throws: An error of the storage; the response is then not stored.
    func makeWriter(for entry: CacheEntry, replacing: [String]) throws -> any CacheBodyWriter

    /// A mark of the removals made so far, taken when a request goes to the origin and handed
    /// back to ``makeWriter(for:replacing:since:)`` when its response is stored.
    ///
    /// A response arrives some time after its request was sent; an unsafe request answered in
    /// between invalidates the URI (RFC 9111 §4.4), and the response on its way may predate
    /// the change. The mark lets the storage tell: a removal covering the entry's key made
    /// after it voids the store.
    /// - Returns: A value of the storage's own, only ever given back to this storage.
    func removalMark() -> UInt64

    /// Begins storing `entry`, requested when the storage's ``removalMark()`` was `mark`: as
    /// ``makeWriter(for:replacing:)``, but a removal covering the entry's key made after the
    /// mark, even before this call, voids the store.
    /// - Parameters:
    ///   - entry: The new entry (its ``CacheEntry/bodyLength`` is set by the writer).
    ///   - replacing: The IDs of entries the new one supersedes, dropped on commit.
    ///   - mark: The ``removalMark()`` taken when the entry's request was sent.
    /// - Returns: The writer of the body.
    /// - Throws: An error of the storage; the response is then not stored.
    func makeWriter(for entry: CacheEntry, replacing: [String], since mark: UInt64) throws -> any CacheBodyWriter

    /// Replaces the stored head and times of `entry` (after a `304`, RFC 9111 §4.3.4), keeping
    /// its body; nothing when it is gone.
    /// - Parameter entry: The entry with its new head.
    /// - Throws: An error of the storage.
    func update(_ entry: CacheEntry) throws

    /// Drops the entries with these IDs stored for `key`.
    /// - Parameters:
    ///   - ids: The entries to drop.
    ///   - key: Their key.
    /// - Throws: An error of the storage.
    func remove(_ ids: [String], for key: CacheKey) throws

    /// Drops the entries with these IDs stored for `key` because newer entries of the key
    /// replace them (the cache keeps one entry per variant and at most its variant limit);
    /// unlike ``remove(_:for:)``, the writers of `key` still in flight are left alone, since
    /// nothing they hold was made stale.
    /// - Parameters:
    ///   - ids: The entries replaced.
    ///   - key: Their key.
    /// - Throws: An error of the storage.
    func removeReplaced(_ ids: [String], for key: CacheKey) throws

    /// Drops every entry of `partition`, or every entry when `partition` is `nil`.
    /// - Parameter partition: The partition to empty, or `nil` for all.
    /// - Throws: An error of the storage.
    func removeAll(partition: String?) throws

    /// Drops every entry of `uri`, in every partition: what an unsafe request invalidates
    /// (RFC 9111 §4.4) is stale for every user. A writer begun before and committed after
    /// must not bring an entry of `uri` back.
    /// - Parameter uri: The request URI (``CacheKey/uri``).
    /// - Returns: How many entries were dropped.
    /// - Throws: An error of the storage.
    @discardableResult
    func removeAll(uri: String) throws -> Int

    /// Drops every entry of every partition but `kept`: at sign-out, the responses of every
    /// credential the user had (with ``CachePartition/byAuthorization`` each token rotation
    /// made a partition of its own).
    /// - Parameter kept: The partition to keep, such as `""` for requests without credentials.
    /// - Throws: An error of the storage.
    func removeAll(keepingPartition kept: String) throws
}

extension CacheStorage {
    /// `0`: a storage without marks keeps no history of its removals.
    /// - Returns: `0`.
    public func removalMark() -> UInt64 { 0 }

    /// ``makeWriter(for:replacing:)``, the mark ignored: a storage of your own without marks
    /// voids only the stores whose writer was made before a removal, so a response requested
    /// before an invalidation and arriving after it is stored. Implement both methods to close
    /// that window, as ``MemoryCacheStorage`` and ``DiskCacheStorage`` do.
    /// - Parameters:
    ///   - entry: The new entry.
    ///   - replacing: The IDs of entries the new one supersedes.
    ///   - mark: Ignored.
    /// - Returns: The writer of the body.
    /// - Throws: An error of the storage.
    public func makeWriter(
        for entry: CacheEntry, replacing: [String], since mark: UInt64
    ) throws
        -> any CacheBodyWriter
    {
        try makeWriter(for: entry, replacing: replacing)
    }

    /// Drops the entries with ``remove(_:for:)``: a storage without a way to keep its writers
    /// of `key` may drop what they write too.
    /// - Parameters:
    ///   - ids: The entries replaced.
    ///   - key: Their key.
    /// - Throws: An error of the storage.
    public func removeReplaced(_ ids: [String], for key: CacheKey) throws {
        try remove(ids, for: key)
    }

    /// Drops every entry (``removeAll(partition:)`` with `nil`): a storage that cannot find
    /// the entries of a URI across partitions invalidates too much rather than too little.
    /// - Parameter uri: The request URI.
    /// - Returns: `0`: the count is unknown.
    /// - Throws: An error of the storage.
    @discardableResult
    public func removeAll(uri: String) throws -> Int {
        try removeAll(partition: nil)
        return 0
    }

    /// Drops every entry (``removeAll(partition:)`` with `nil`), the kept partition too: a
    /// storage that cannot list its partitions drops too much rather than too little.
    /// - Parameter kept: The partition that would be kept.
    /// - Throws: An error of the storage.
    public func removeAll(keepingPartition kept: String) throws {
        try removeAll(partition: nil)
    }
}

/// Takes the body of a new entry as it arrives; see ``CacheStorage/makeWriter(for:replacing:)``.
public protocol CacheBodyWriter: Sendable {
    /// Appends `chunk` to the body.
    /// - Parameter chunk: The next bytes.
    /// - Throws: When the storage cannot take them; the writer is then discarded.
    func write(_ chunk: Data) throws
    /// Makes the entry visible, with the body written so far, replacing the entries named
    /// when the writer was made.
    /// - Throws: When the storage cannot keep it; nothing is then stored.
    func commit() throws
    /// Drops what was written; the entry is never stored. Safe to call more than once, and
    /// after ``commit()`` (then it does nothing).
    func discard()
}

/// The bytes a body writer holds against its storage's capacity while the body arrives, so
/// that the capacity bounds the entries and the bodies being stored together, at every
/// moment: six bodies of 15 MiB arriving at once into a 16 MiB storage do not hold 90 MiB.
/// The storage makes room as ``hold(_:)`` asks (evicting its least recently used entries);
/// when the bodies in flight alone would pass the capacity, the hold is refused and the body
/// is not stored.
final class CapacityReservation: Sendable {
    private let held = Locked<Int64>(0)
    private let take: @Sendable (Int64) -> Bool
    private let give: @Sendable (Int64) -> Void

    /// - Parameters:
    ///   - take: Reserves bytes in the storage, making room; `false` when it cannot.
    ///   - give: Returns bytes reserved before.
    init(take: @escaping @Sendable (Int64) -> Bool, give: @escaping @Sendable (Int64) -> Void) {
        self.take = take
        self.give = give
    }

    /// A writer dropped without a commit or a discard gives its bytes back.
    deinit { release() }

    /// Reserves `bytes` more; `false` when the storage refused them.
    func hold(_ bytes: Int64) -> Bool {
        guard take(bytes) else { return false }
        held.withLock { $0 += bytes }
        return true
    }

    /// Returns everything held to the storage (a discarded or failed body).
    func release() {
        let bytes = settle()
        if bytes > 0 { give(bytes) }
    }

    /// Everything held, now owed by the caller (a commit, which returns it to the storage
    /// under the same lock that adds the entry).
    func settle() -> Int64 {
        held.withLock { held in
            defer { held = 0 }
            return held
        }
    }
}
