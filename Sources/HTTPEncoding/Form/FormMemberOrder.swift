import Foundation

/// The order in which an object's members are written, shared by the writer and by
/// ``FormEncodingContext/freeze(_:reclaimingFrom:)``: sorted by the written bytes of their keys, or as
/// encoded; of a key encoded twice only the last value is written.
enum FormMemberOrder {
    /// Objects up to this size sort by insertion; larger ones on key prefixes.
    static let insertionSortLimit = 16

    /// The positions of the members to write, in order.
    static func positions(of object: FormObject, arena: UnsafeBufferPointer<UInt8>, sorted: Bool) -> [Int] {
        let members = object.members
        if sorted {
            let prefixes = object.prefixes
            let known = prefixes.count == members.count
            let order = sortedPositions(of: members, prefixes: prefixes, arena: arena)
            var kept: [Int] = []
            kept.reserveCapacity(order.count)
            for (rank, position) in order.enumerated() {
                // The sort is stable: of equal keys, the last one encoded comes last and wins.
                // Keys with different prefixes differ: no need to read them back.
                if rank + 1 < order.count, !known || prefixes[position] == prefixes[order[rank + 1]],
                    compare(members[position].key, members[order[rank + 1]].key, arena) == 0
                {
                    continue
                }
                kept.append(position)
            }
            return kept
        }
        let superseded = supersededPositions(in: members, arena: arena)
        return members.indices.filter { !superseded.contains($0) }
    }

    /// Small objects (the fields of a struct) use an insertion sort, which needs no extra
    /// storage; large ones the standard library's stable sort on an eight-byte prefix of
    /// each key (taken when the key was stored, see ``FormObject/prefixes``), comparing in
    /// full only when prefixes are equal.
    private static func sortedPositions(
        of members: [(key: FormSlice, value: FormNode)], prefixes: [UInt64], arena: UnsafeBufferPointer<UInt8>
    ) -> [Int] {
        var order = Array(members.indices)
        if members.count <= insertionSortLimit {
            for next in order.indices.dropFirst() {
                let position = order[next]
                var slot = next
                while slot > 0, compare(members[order[slot - 1]].key, members[position].key, arena) > 0 {
                    order[slot] = order[slot - 1]
                    slot -= 1
                }
                order[slot] = position
            }
            return order
        }
        let known = prefixes.count == members.count
        var entries = members.indices.map {
            (prefix: known ? prefixes[$0] : prefix(of: members[$0].key, arena), position: $0)
        }
        entries.sort { lhs, rhs in
            if lhs.prefix != rhs.prefix { return lhs.prefix < rhs.prefix }
            return compare(members[lhs.position].key, members[rhs.position].key, arena) < 0
        }
        return entries.map(\.position)
    }

    /// Positions of members whose key is encoded again later, in encoding order.
    private static func supersededPositions(
        in members: [(key: FormSlice, value: FormNode)], arena: UnsafeBufferPointer<UInt8>
    ) -> Set<Int> {
        var superseded = Set<Int>()
        if members.count < 12 {
            for first in members.indices {
                for later in (first + 1)..<members.count
                where compare(members[first].key, members[later].key, arena) == 0 {
                    superseded.insert(first)
                    break
                }
            }
            return superseded
        }
        var last: [String: Int] = [:]
        for (position, member) in members.enumerated() {
            let text = String(decoding: UnsafeBufferPointer(rebasing: arena[member.key.range]), as: UTF8.self)
            if let earlier = last.updateValue(position, forKey: text) { superseded.insert(earlier) }
        }
        return superseded
    }

    /// Compares two keys by their written (percent-encoded) bytes: negative, zero or positive.
    @inline(__always)
    static func compare(_ lhs: FormSlice, _ rhs: FormSlice, _ arena: UnsafeBufferPointer<UInt8>) -> Int {
        let leftCount = Int(lhs.end - lhs.start)
        let rightCount = Int(rhs.end - rhs.start)
        let common = min(leftCount, rightCount)
        var offset = 0
        while offset < common {
            let left = arena[Int(lhs.start) + offset]
            let right = arena[Int(rhs.start) + offset]
            if left != right { return Int(left) - Int(right) }
            offset += 1
        }
        return leftCount - rightCount
    }

    /// The first eight bytes of a key, big-endian and zero-padded: ordering these integers
    /// agrees with ordering the keys by bytes wherever the prefixes differ.
    @inline(__always)
    static func prefix(of slice: FormSlice, _ arena: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var value: UInt64 = 0
        let taken = min(8, Int(slice.end - slice.start))
        for offset in 0..<taken { value = value << 8 | UInt64(arena[Int(slice.start) + offset]) }
        return taken == 0 ? 0 : value << (8 * UInt64(8 - taken))
    }
}
