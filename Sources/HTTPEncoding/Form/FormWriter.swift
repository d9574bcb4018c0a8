import Foundation

/// Writes a ``FormNode`` tree as `application/x-www-form-urlencoded` bytes in one pass.
///
/// The key of the pair being written lives in one byte buffer, ``key``: entering an
/// object or array appends one percent-encoded segment and leaving it truncates the
/// buffer back, so each key segment is encoded once and no prefix string is ever
/// rebuilt. Output goes into one growing byte array. The cost is linear in the size
/// of the output, plus the sorting of each object's keys.
struct FormWriter {
    private(set) var out: [UInt8] = []
    private var key: [UInt8] = []
    private let style: FormStyle
    private let plusForSpace: Bool
    private let open: [UInt8]
    private let close: [UInt8]

    init(style: FormStyle, plusForSpace: Bool) {
        self.style = style
        self.plusForSpace = plusForSpace
        open = style.brackets.literal ? [UInt8(ascii: "[")] : Array("%5B".utf8)
        close = style.brackets.literal ? [UInt8(ascii: "]")] : Array("%5D".utf8)
        key.reserveCapacity(256)
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
        default:
            throw HTTPEncodingError(
                .unsupportedValue, value: Self.text(of: node),
                reason: "a form needs named values at the top level: encode a struct or a dictionary, not a scalar")
        }
    }

    private mutating func writeObject(_ object: FormObject, isRoot: Bool) throws(HTTPEncodingError) {
        let base = key.count
        let members = object.members
        if style.keyOrder.sorted {
            let order = Self.sortedPositions(of: members)
            for (rank, position) in order.enumerated() {
                // The sort is stable: of equal keys, the last one encoded comes last and wins.
                if rank + 1 < order.count, Self.compare(members[position].key, members[order[rank + 1]].key) == 0 {
                    continue
                }
                try writeMember(members[position].key, members[position].value, isRoot: isRoot, base: base)
            }
        } else {
            let superseded = Self.supersededPositions(in: members)
            for position in members.indices where !superseded.contains(position) {
                try writeMember(members[position].key, members[position].value, isRoot: isRoot, base: base)
            }
        }
    }

    /// The positions of `members` in key order; of equal keys, the one encoded first comes first.
    ///
    /// Small objects (the fields of a struct) use an insertion sort, which needs no extra
    /// storage; large ones the standard library's stable sort.
    private static func sortedPositions(of members: [(key: String, value: FormNode)]) -> [Int] {
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
            // Sort on the first eight bytes of each key as one integer, which decides most
            // comparisons without touching the strings; equal prefixes compare in full.
            var entries = members.indices.map { (prefix: Self.prefix(of: members[$0].key), position: $0) }
            entries.sort { lhs, rhs in
                if lhs.prefix != rhs.prefix { return lhs.prefix < rhs.prefix }
                return compare(members[lhs.position].key, members[rhs.position].key) < 0
            }
            order = entries.map(\.position)
        }
        return order
    }

    /// The first eight UTF-8 bytes of `key`, big-endian, zero-padded: ordering these
    /// integers agrees with ordering the keys by bytes wherever the prefixes differ.
    private static func prefix(of key: String) -> UInt64 {
        var value: UInt64 = 0
        var taken = 0
        for byte in key.utf8 {
            value = value << 8 | UInt64(byte)
            taken += 1
            if taken == 8 { break }
        }
        return taken == 0 ? 0 : value << (8 * UInt64(8 - taken))
    }

    /// Positions of members whose key is encoded again later (byte-for-byte), in encoding order.
    private static func supersededPositions(in members: [(key: String, value: FormNode)]) -> Set<Int> {
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
        var last: [[UInt8]: Int] = [:]
        for (position, member) in members.enumerated() {
            if let earlier = last.updateValue(position, forKey: Array(member.key.utf8)) { superseded.insert(earlier) }
        }
        return superseded
    }

    @inline(__always)
    private mutating func writeMember(
        _ name: String, _ value: FormNode, isRoot: Bool, base: Int
    )
        throws(HTTPEncodingError)
    {
        if !isRoot {
            if style.nesting.dots {
                key.append(UInt8(ascii: "."))
            } else {
                key.append(contentsOf: open)
            }
        }
        PercentEncoding.append(name, plusForSpace: plusForSpace, to: &key)
        if !isRoot && !style.nesting.dots { key.append(contentsOf: close) }
        do {
            try write(value)
        } catch {
            throw error.prefixed(by: [name])
        }
        key.removeSubrange(base...)
    }

    private mutating func writeArray(_ array: FormArray) throws(HTTPEncodingError) {
        let base = key.count
        for (position, element) in array.values.enumerated() {
            switch style.arrays.kind {
            case .brackets:
                key.append(contentsOf: open)
                key.append(contentsOf: close)
            case .indexed:
                key.append(contentsOf: open)
                Self.appendDigits(UInt64(position), to: &key)
                key.append(contentsOf: close)
            case .noBrackets:
                switch element {
                case .object, .array:
                    throw HTTPEncodingError(
                        .unsupportedValue, keyPath: [String(position)], value: Self.text(of: element),
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
        case .object(let object):
            try writeObject(object, isRoot: false)
        case .array(let array):
            try writeArray(array)
        case .string(let string):
            startPair()
            PercentEncoding.append(string, plusForSpace: plusForSpace, to: &out)
        case .int(let int):
            startPair()
            if int < 0 { out.append(UInt8(ascii: "-")) }
            Self.appendDigits(int.magnitude, to: &out)
        case .uint(let uint):
            startPair()
            Self.appendDigits(uint, to: &out)
        case .bool(let bool):
            startPair()
            if style.bools.literal {
                out.append(contentsOf: bool ? Self.trueText : Self.falseText)
            } else {
                out.append(bool ? UInt8(ascii: "1") : UInt8(ascii: "0"))
            }
        case .null:
            switch style.nils.kind {
            case .omit:
                return
            case .emptyValue:
                startPair()
            case .keyOnly:
                if !out.isEmpty { out.append(UInt8(ascii: "&")) }
                out.append(contentsOf: key)
            }
        }
    }

    /// Writes `&` (after the first pair), the current key and `=`.
    @inline(__always)
    private mutating func startPair() {
        if !out.isEmpty { out.append(UInt8(ascii: "&")) }
        out.append(contentsOf: key)
        out.append(UInt8(ascii: "="))
    }

    private static let trueText: [UInt8] = Array("true".utf8)
    private static let falseText: [UInt8] = Array("false".utf8)

    private static func appendDigits(_ value: UInt64, to buffer: inout [UInt8]) {
        var width = 1
        var probe = value
        while probe >= 10 {
            probe /= 10
            width += 1
        }
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width))
        var rest = value
        var index = start + width - 1
        while rest > 0 {
            buffer[index] = UInt8(rest % 10) + 0x30
            rest /= 10
            index -= 1
        }
    }

    /// Compares keys by their UTF-8 bytes (negative, zero or positive), so the order never
    /// depends on Unicode normalisation or on the order a dictionary happened to yield them.
    @inline(__always)
    static func compare(_ lhs: String, _ rhs: String) -> Int {
        let fast = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right -> Int in
                let common = min(left.count, right.count)
                if common > 0, let leftBase = left.baseAddress, let rightBase = right.baseAddress {
                    let order = memcmp(leftBase, rightBase, common)
                    if order != 0 { return Int(order) }
                }
                return left.count - right.count
            }
        }
        if let fast, let result = fast { return result }
        if lhs.utf8.elementsEqual(rhs.utf8) { return 0 }
        return lhs.utf8.lexicographicallyPrecedes(rhs.utf8) ? -1 : 1
    }

    private static func text(of node: FormNode) -> String {
        switch node {
        case .string(let string): return string
        case .int(let int): return String(int)
        case .uint(let uint): return String(uint)
        case .bool(let bool): return String(bool)
        case .null: return "nil"
        case .object: return "object"
        case .array: return "array"
        }
    }
}
