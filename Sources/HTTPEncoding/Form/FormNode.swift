/// One value of the tree a ``FormEncoder`` builds before writing it out in one pass.
///
/// Scalars are not kept as Swift values: they are percent-encoded as soon as they are
/// encoded, into the byte arena of the ``FormEncodingContext``, and a leaf holds only
/// where its bytes are. The writer then copies byte ranges, with no string handling and
/// no reference counting per value. Objects and arrays are reference types so the
/// containers an `Encoder` hands out can keep filling them after they were stored.
enum FormNode {
    /// Percent-encoded bytes in the arena.
    case leaf(FormSlice)
    /// `nil`, written as the ``FormStyle/Nils-swift.struct`` style says.
    case null
    case object(FormObject)
    case array(FormArray)
    /// A finished object or array of scalars, already written out as the rest of each of
    /// its pairs (`&%5Bcount%5D=1&%5Btags%5D%5B%5D=a…`): see ``FormEncodingContext/freeze(_:reclaimingFrom:)``.
    case fragment(FormSlice)
}

/// A range of the arena of a ``FormEncodingContext``. Offsets are 32-bit to keep tree
/// nodes small; the encoder refuses a form whose arena passes 4 GiB.
struct FormSlice {
    let start: UInt32
    let end: UInt32

    var range: Range<Int> { Int(start)..<Int(end) }
}

/// The members of an encoded object, in the order they were encoded.
///
/// Storing a member only appends (one array, no hashing), so filling an object is
/// linear in its size. A key encoded twice is stored twice and the writer keeps the
/// last one, as `JSONEncoder` keeps the last value. Looking a key up (needed only when
/// a nested container is asked for twice) scans small objects and indexes large ones
/// once, keeping the index current from then on.
final class FormObject {
    private static let indexThreshold = 12

    // Unchecked, as the arena of FormEncodingContext: one thread, no overlapping access.
    @exclusivity(unchecked) private(set) var members: [(key: FormSlice, value: FormNode)]
    @exclusivity(unchecked) private var index: [String: Int]?
    /// The sort prefix (``FormMemberOrder/prefix(of:_:)``) of every member's key, kept once
    /// the object is too large for an insertion sort. Each is taken when its key is
    /// stored, while the key's bytes are still in cache: sorting a large object then
    /// reads no key back from the arena, which by then is mostly out of cache.
    @exclusivity(unchecked) private(set) var prefixes: [UInt64] = []

    /// An empty object with room for `capacity` members before its storage grows.
    init(capacity: Int = 8) {
        members = []
        members.reserveCapacity(capacity)
    }

    /// The value stored last for the key whose encoded bytes are `key`, if any.
    func value(for key: FormSlice, in context: FormEncodingContext) -> FormNode? {
        context.arena.withUnsafeBufferPointer { value(for: key, arena: $0) }
    }

    private func value(for key: FormSlice, arena: UnsafeBufferPointer<UInt8>) -> FormNode? {
        if index == nil && members.count >= Self.indexThreshold {
            var built = [String: Int](minimumCapacity: members.count * 2)
            for (position, member) in members.enumerated() { built[Self.text(member.key, arena)] = position }
            index = built
        }
        if let index { return index[Self.text(key, arena)].map { members[$0].value } }
        for member in members.reversed() where FormMemberOrder.compare(member.key, key, arena) == 0 {
            return member.value
        }
        return nil
    }

    /// Stores `node` under `key`; a later value for the same key wins.
    @inline(__always)
    func set(_ key: FormSlice, _ node: FormNode, in context: FormEncodingContext) {
        if index != nil { index?[context.arena.withUnsafeBufferPointer { Self.text(key, $0) }] = members.count }
        if members.count >= FormMemberOrder.insertionSortLimit { addPrefix(of: key, in: context) }
        members.append((key, node))
    }

    private func addPrefix(of key: FormSlice, in context: FormEncodingContext) {
        context.arena.withUnsafeBufferPointer { arena in
            if prefixes.count < members.count {
                prefixes = members.map { FormMemberOrder.prefix(of: $0.key, arena) }
                prefixes.reserveCapacity(members.capacity)
            }
            prefixes.append(FormMemberOrder.prefix(of: key, arena))
        }
    }

    private static func text(_ slice: FormSlice, _ arena: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: arena[slice.range]), as: UTF8.self)
    }
}

/// The elements of an encoded array, in order.
final class FormArray {
    // Unchecked, as the arena of FormEncodingContext: one thread, no overlapping access.
    @exclusivity(unchecked) var values: [FormNode]

    /// An empty array with room for `capacity` elements before its storage grows.
    init(capacity: Int = 4) {
        values = []
        values.reserveCapacity(capacity)
    }
}
