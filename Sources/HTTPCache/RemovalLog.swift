import HTTPClient

/// When entries were last removed, by key, URI, partition or all, on a counter that a
/// storage reads when a request goes to the origin (``CacheStorage/removalMark()``): a
/// response requested before a removal that covers its key must not bring the removed
/// response back, however late its writer is made (RFC 9111 §4.4).
///
/// Kept under the storage's lock. Each map is bounded: past ``limit`` names it is cleared
/// and counted as a removal of everything, which only costs the writers in flight their
/// store.
struct RemovalLog {
    /// The most names a map keeps.
    static let limit = 4096

    /// The counter's current value: the mark of a request sent now.
    private(set) var now: UInt64 = 0
    private var byKey: [CacheKey: UInt64] = [:]
    private var byURI: [String: UInt64] = [:]
    private var byPartition: [String: UInt64] = [:]
    private var all: UInt64 = 0

    /// Records that the entries of `key` were removed.
    mutating func removed(_ key: CacheKey) { Self.note(key, in: &byKey, now: &now, all: &all) }

    /// Records that the entries of `uri` were removed in every partition.
    mutating func removed(uri: String) { Self.note(uri, in: &byURI, now: &now, all: &all) }

    /// Records that `partition`, or every entry when `nil`, was removed.
    mutating func removed(partition: String?) {
        guard let partition else {
            now &+= 1
            all = now
            return
        }
        Self.note(partition, in: &byPartition, now: &now, all: &all)
    }

    /// Whether no removal covering `key` happened after `stamp` (a value of ``now``).
    func isCurrent(_ key: CacheKey, since stamp: UInt64) -> Bool {
        max(all, byKey[key] ?? 0, byURI[key.uri] ?? 0, byPartition[key.partition] ?? 0) <= stamp
    }

    private static func note<Name: Hashable>(
        _ name: Name, in map: inout [Name: UInt64], now: inout UInt64, all: inout UInt64
    ) {
        now &+= 1
        if map.count >= limit {
            map = [:]
            all = now
        }
        map[name] = now
    }
}
