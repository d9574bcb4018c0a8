import Foundation

/// Writes a ``FormNode`` tree as `application/x-www-form-urlencoded` bytes in one pass.
///
/// Keys and values were percent-encoded into the arena while encoding; writing copies
/// byte ranges. The key of the pair being written lives in one buffer, ``key``: entering
/// an object or array appends one segment and leaving it truncates the buffer back, so
/// no key prefix is ever rebuilt. The cost is linear in the size of the output, plus
/// sorting each object's keys.
struct FormWriter {
    private(set) var out: [UInt8] = []
    private var key: [UInt8] = []
    private let arena: UnsafeBufferPointer<UInt8>
    private let style: FormStyle
    private let literalBrackets: Bool

    /// A writer reading leaves and keys from `arena`, which must outlive it.
    init(style: FormStyle, arena: UnsafeBufferPointer<UInt8>) {
        self.style = style
        self.arena = arena
        literalBrackets = style.brackets.literal
        key.reserveCapacity(256)
        out.reserveCapacity(arena.count + arena.count / 2 + 64)
    }

    /// Writes a top-level value, which must be an object: a form is a list of named values.
    mutating func writeRoot(_ node: FormNode) throws(HTTPEncodingError) {
        switch node {
        case .object(let object):
            try writeObject(object, isRoot: true)
        case .array:
            throw HTTPEncodingError(
                .unsupportedValue, value: "array",
                reason: "a form needs named values at the top level: encode a struct or a dictionary, not an array")
        case .null:
            return
        case .leaf(let slice):
            throw HTTPEncodingError(
                .unsupportedValue, value: text(slice),
                reason: "a form needs named values at the top level: encode a struct or a dictionary, not a scalar")
        }
    }

    private mutating func writeObject(_ object: FormObject, isRoot: Bool) throws(HTTPEncodingError) {
        let base = key.count
        let members = object.members
        if style.keyOrder.sorted {
            let order = sortedPositions(of: members)
            for (rank, position) in order.enumerated() {
                // The sort is stable: of equal keys, the last one encoded comes last and wins.
                if rank + 1 < order.count, compare(members[position].key, members[order[rank + 1]].key) == 0 {
                    continue
                }
                try writeMember(members[position].key, members[position].value, isRoot: isRoot, base: base)
            }
        } else {
            let superseded = supersededPositions(in: members)
            for position in members.indices where !superseded.contains(position) {
                try writeMember(members[position].key, members[position].value, isRoot: isRoot, base: base)
            }
        }
    }

    /// The positions of `members` in key order; of equal keys, the one encoded first comes first.
    ///
    /// Small objects (the fields of a struct) use an insertion sort, which needs no extra
    /// storage; large ones the standard library's stable sort on an eight-byte prefix of
    /// each key, comparing in full only when prefixes are equal.
    private func sortedPositions(of members: [(key: FormSlice, value: FormNode)]) -> [Int] {
        var order = Array(members.indices)
        if members.count <= 16 {
            for next in order.indices.dropFirst() {
                let position = order[next]
                var slot = next
                while slot > 0, compare(members[order[slot - 1]].key, members[position].key) > 0 {
                    order[slot] = order[slot - 1]
                    slot -= 1
                }
                order[slot] = position
            }
        } else {
            var entries = members.indices.map { (prefix: prefix(of: members[$0].key), position: $0) }
            entries.sort { lhs, rhs in
                if lhs.prefix != rhs.prefix { return lhs.prefix < rhs.prefix }
                return compare(members[lhs.position].key, members[rhs.position].key) < 0
            }
            order = entries.map(\.position)
        }
        return order
    }

    /// Positions of members whose key is encoded again later, in encoding order.
    private func supersededPositions(in members: [(key: FormSlice, value: FormNode)]) -> Set<Int> {
        var superseded = Set<Int>()
        if members.count < 12 {
            for first in members.indices {
                for later in (first + 1)..<members.count where compare(members[first].key, members[later].key) == 0 {
                    superseded.insert(first)
                    break
                }
            }
            return superseded
        }
        var last: [String: Int] = [:]
        for (position, member) in members.enumerated() {
            if let earlier = last.updateValue(position, forKey: text(member.key)) { superseded.insert(earlier) }
        }
        return superseded
    }

    @inline(__always)
    private mutating func writeMember(_ name: FormSlice, _ value: FormNode, isRoot: Bool, base: Int)
        throws(HTTPEncodingError)
    {
        if isRoot {
            key.append(contentsOf: bytes(name))
        } else if style.nesting.dots {
            key.append(UInt8(ascii: "."))
            key.append(contentsOf: bytes(name))
        } else {
            appendBracket(open: true)
            key.append(contentsOf: bytes(name))
            appendBracket(open: false)
        }
        do {
            try write(value)
        } catch {
            throw error.prefixed(by: [PercentEncoding.decode(bytes(name))])
        }
        key.removeSubrange(base...)
    }

    private mutating func writeArray(_ array: FormArray) throws(HTTPEncodingError) {
        let base = key.count
        for (position, element) in array.values.enumerated() {
            switch style.arrays.kind {
            case .brackets:
                appendBracket(open: true)
                appendBracket(open: false)
            case .indexed:
                appendBracket(open: true)
                FormEncodingContext.appendDigits(UInt64(position), to: &key)
                appendBracket(open: false)
            case .noBrackets:
                switch element {
                case .object, .array:
                    throw HTTPEncodingError(
                        .unsupportedValue, keyPath: [String(position)], value: Self.kind(of: element),
                        reason: "arrays without brackets (key=a&key=b) can only hold scalars; "
                            + "use FormStyle.Arrays.indexed or .brackets for arrays of arrays or objects")
                default:
                    break
                }
            }
            do {
                try write(element)
            } catch {
                throw error.prefixed(by: [String(position)])
            }
            key.removeSubrange(base...)
        }
    }

    private mutating func write(_ node: FormNode) throws(HTTPEncodingError) {
        switch node {
        case .leaf(let slice):
            startPair()
            out.append(UInt8(ascii: "="))
            out.append(contentsOf: bytes(slice))
        case .object(let object):
            try writeObject(object, isRoot: false)
        case .array(let array):
            try writeArray(array)
        case .null:
            switch style.nils.kind {
            case .omit:
                return
            case .emptyValue:
                startPair()
                out.append(UInt8(ascii: "="))
            case .keyOnly:
                startPair()
            }
        }
    }

    /// Appends `[` or `]` to the key, or `%5B` or `%5D`.
    @inline(__always)
    private mutating func appendBracket(open: Bool) {
        if literalBrackets {
            key.append(open ? UInt8(ascii: "[") : UInt8(ascii: "]"))
        } else {
            key.append(UInt8(ascii: "%"))
            key.append(UInt8(ascii: "5"))
            key.append(open ? UInt8(ascii: "B") : UInt8(ascii: "D"))
        }
    }

    /// Appends `&` (after the first pair) and the current key.
    @inline(__always)
    private mutating func startPair() {
        if !out.isEmpty { out.append(UInt8(ascii: "&")) }
        key.withUnsafeBufferPointer { out.append(contentsOf: $0) }
    }

    @inline(__always)
    private func bytes(_ slice: FormSlice) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: arena[slice.range])
    }

    private func text(_ slice: FormSlice) -> String {
        String(decoding: bytes(slice), as: UTF8.self)
    }

    /// Compares two keys by their written (percent-encoded) bytes: negative, zero or positive.
    @inline(__always)
    private func compare(_ lhs: FormSlice, _ rhs: FormSlice) -> Int {
        let leftCount = Int(lhs.end - lhs.start)
        let rightCount = Int(rhs.end - rhs.start)
        let common = min(leftCount, rightCount)
        if common > 0, let base = arena.baseAddress {
            let order = memcmp(base + Int(lhs.start), base + Int(rhs.start), common)
            if order != 0 { return Int(order) }
        }
        return leftCount - rightCount
    }

    /// The first eight bytes of a key, big-endian and zero-padded: ordering these integers
    /// agrees with ordering the keys by bytes wherever the prefixes differ.
    private func prefix(of slice: FormSlice) -> UInt64 {
        var value: UInt64 = 0
        let taken = min(8, Int(slice.end - slice.start))
        for offset in 0..<taken { value = value << 8 | UInt64(arena[Int(slice.start) + offset]) }
        return taken == 0 ? 0 : value << (8 * UInt64(8 - taken))
    }

    private static func kind(of node: FormNode) -> String {
        switch node {
        case .leaf: return "value"
        case .null: return "nil"
        case .object: return "object"
        case .array: return "array"
        }
    }
}
