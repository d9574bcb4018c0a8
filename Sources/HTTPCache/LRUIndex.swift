import HTTPClient

/// Keys in order of last use, with O(1) use, insertion, removal and oldest lookup: a
/// doubly linked list threaded through arrays, plus a dictionary from key to slot.
struct LRUIndex<Key: Hashable> {
    private var slots: [Key: Int] = [:]
    private var keys: [Key?] = []
    private var previous: [Int] = []
    private var next: [Int] = []
    private var free: [Int] = []
    /// The most recently used slot, or -1.
    private var head = -1
    /// The least recently used slot, or -1.
    private var tail = -1

    /// How many keys the index holds.
    var count: Int { slots.count }

    /// Whether `key` is held.
    func contains(_ key: Key) -> Bool { slots[key] != nil }

    /// Marks `key` as used now, adding it when absent.
    mutating func use(_ key: Key) {
        if let slot = slots[key] {
            unlink(slot)
            linkFirst(slot)
            return
        }
        let slot: Int
        if let reused = free.popLast() {
            slot = reused
            keys[slot] = key
        } else {
            slot = keys.count
            keys.append(key)
            previous.append(-1)
            next.append(-1)
        }
        slots[key] = slot
        linkFirst(slot)
    }

    /// Removes `key`, when held.
    mutating func remove(_ key: Key) {
        guard let slot = slots.removeValue(forKey: key) else { return }
        unlink(slot)
        keys[slot] = nil
        free.append(slot)
    }

    /// The least recently used key, if any.
    var oldest: Key? { tail >= 0 ? keys[tail] : nil }

    /// Removes every key.
    mutating func removeAll() { self = LRUIndex() }

    private mutating func unlink(_ slot: Int) {
        let before = previous[slot]
        let after = next[slot]
        if before >= 0 { next[before] = after } else { head = after }
        if after >= 0 { previous[after] = before } else { tail = before }
        previous[slot] = -1
        next[slot] = -1
    }

    private mutating func linkFirst(_ slot: Int) {
        previous[slot] = -1
        next[slot] = head
        if head >= 0 { previous[head] = slot }
        head = slot
        if tail < 0 { tail = slot }
    }
}
