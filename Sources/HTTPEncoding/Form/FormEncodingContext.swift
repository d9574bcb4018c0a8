import Foundation

/// The settings and the byte arena of one encoding run, shared by reference between
/// every nested encoder (creating a child encoder costs one retain, not a copy).
///
/// Every key and scalar is percent-encoded into ``arena`` the moment it is encoded, so
/// the tree holds only byte ranges and the writer only copies bytes.
final class FormEncodingContext {
    let keys: KeyEncodingStrategy
    let dates: DateEncodingStrategy
    let data: DataEncodingStrategy
    let keysAreIdentity: Bool
    let encodesNils: Bool
    let literalBools: Bool
    let plusForSpace: Bool
    let style: FormStyle
    /// Where ``freeze(_:reclaimingFrom:)`` assembles a fragment before appending it to the arena.
    @exclusivity(unchecked) private var scratch = FormBytes(capacity: 1024)
    // Unchecked: one encoding run uses a context on one thread, and no access to the arena
    // overlaps another (each append finishes before the next begins); dynamic exclusivity
    // checks here cost about a tenth of the encoding time.
    @exclusivity(unchecked) private(set) var arena = FormBytes(capacity: 4096)
    /// The longest the arena has been: slices are 32-bit, so past 4 GiB they would wrap.
    private var peakArenaCount = 0

    deinit {
        arena.free()
        scratch.free()
    }

    init(_ encoder: FormEncoder, plusForSpace: Bool) {
        keys = encoder.keyEncodingStrategy
        dates = encoder.dateEncodingStrategy
        data = encoder.dataEncodingStrategy
        keysAreIdentity = encoder.keyEncodingStrategy.isIdentity
        encodesNils = encoder.style.nils != .omit
        literalBools = encoder.style.bools.literal
        self.plusForSpace = plusForSpace
        style = encoder.style
    }

    /// The key as the key strategy writes it, percent-encoded into the arena.
    @inline(__always)
    func key(_ key: String) -> FormSlice {
        text(keysAreIdentity ? key : keys.encode(key))
    }

    /// Text, percent-encoded into the arena.
    @inline(__always)
    func text(_ string: String) -> FormSlice {
        let start = arena.count
        arena.appendPercentEncoded(string, plusForSpace: plusForSpace)
        return FormSlice(start: UInt32(truncatingIfNeeded: start), end: UInt32(truncatingIfNeeded: arena.count))
    }

    @inline(__always)
    func leaf(_ string: String) -> FormNode { .leaf(text(string)) }

    /// A signed integer's digits (no percent-encoding needed).
    @inline(__always)
    func leaf(_ value: Int64) -> FormNode {
        let start = arena.count
        if value < 0 { arena.append(UInt8(ascii: "-")) }
        arena.appendDigits(value.magnitude)
        return .leaf(FormSlice(start: UInt32(truncatingIfNeeded: start), end: UInt32(truncatingIfNeeded: arena.count)))
    }

    /// An unsigned integer's digits.
    @inline(__always)
    func leaf(_ value: UInt64) -> FormNode {
        let start = arena.count
        arena.appendDigits(value)
        return .leaf(FormSlice(start: UInt32(truncatingIfNeeded: start), end: UInt32(truncatingIfNeeded: arena.count)))
    }

    /// A bool as `1`/`0` or `true`/`false`.
    @inline(__always)
    func leaf(_ value: Bool) -> FormNode {
        let start = arena.count
        if literalBools {
            arena.append(contentsOf: value ? Self.trueText : Self.falseText)
        } else {
            arena.append(value ? UInt8(ascii: "1") : UInt8(ascii: "0"))
        }
        return .leaf(FormSlice(start: UInt32(truncatingIfNeeded: start), end: UInt32(truncatingIfNeeded: arena.count)))
    }

    // MARK: Fragments

    /// Writes a finished object or array out as a fragment when all it holds is scalars,
    /// `nil`s and arrays of those (the fields of a typical struct, a list of strings);
    /// anything deeper stays a tree.
    ///
    /// A fragment is the rest of each pair below the node's key, every piece preceded by
    /// `&`: `&%5Bcount%5D=1&%5Btags%5D%5B%5D=a`. The writer puts the full key in front of
    /// each piece. The node's bytes then sit together in the arena, so writing a large
    /// object of small ones touches one stretch of memory per member instead of following
    /// several pointers, and the temporary tree is freed at once. `&` cannot occur inside a
    /// piece: it is percent-encoded in every key and value.
    ///
    /// - Parameters:
    ///   - node: A finished node.
    ///   - mark: The arena's length before the node was encoded: everything after it
    ///     belongs to this node alone, so a fragment replaces it instead of adding to it.
    func freeze(_ node: FormNode, reclaimingFrom mark: Int) -> FormNode {
        switch node {
        case .object(let object):
            let members = object.members
            for member in members where !Self.isFlat(member.value) { return node }
            scratch.truncate(to: 0)
            arena.withUnsafeBufferPointer { arena in
                for position in FormMemberOrder.positions(of: members, arena: arena, sorted: style.keyOrder.sorted) {
                    let (key, value) = members[position]
                    switch value {
                    case .array(let array):
                        for (index, element) in array.values.enumerated() {
                            appendPiece(element, arena: arena) {
                                appendMemberKey(key, arena: arena)
                                appendArraySuffix(index)
                            }
                        }
                    default:
                        appendPiece(value, arena: arena) { appendMemberKey(key, arena: arena) }
                    }
                }
            }
        case .array(let array):
            for element in array.values where !Self.isScalar(element) { return node }
            scratch.truncate(to: 0)
            arena.withUnsafeBufferPointer { arena in
                for (index, element) in array.values.enumerated() {
                    appendPiece(element, arena: arena) { appendArraySuffix(index) }
                }
            }
        default:
            return node
        }
        peakArenaCount = max(peakArenaCount, arena.count)
        arena.truncate(to: mark)
        let start = arena.count
        scratch.withUnsafeBufferPointer { arena.append(contentsOf: $0) }
        return .fragment(
            FormSlice(start: UInt32(truncatingIfNeeded: start), end: UInt32(truncatingIfNeeded: arena.count)))
    }

    private static func isScalar(_ node: FormNode) -> Bool {
        switch node {
        case .leaf, .null: return true
        default: return false
        }
    }

    private static func isFlat(_ node: FormNode) -> Bool {
        switch node {
        case .leaf, .null: return true
        case .array(let array): return array.values.allSatisfy(isScalar)
        default: return false
        }
    }

    /// Appends one piece for a scalar or `nil`, its relative key written by `key`.
    @inline(__always)
    private func appendPiece(_ value: FormNode, arena: UnsafeBufferPointer<UInt8>, key: () -> Void) {
        switch value {
        case .leaf(let slice):
            scratch.append(UInt8(ascii: "&"))
            key()
            scratch.append(UInt8(ascii: "="))
            scratch.append(contentsOf: UnsafeBufferPointer(rebasing: arena[slice.range]))
        case .null:
            switch style.nils.kind {
            case .omit:
                return
            case .emptyValue:
                scratch.append(UInt8(ascii: "&"))
                key()
                scratch.append(UInt8(ascii: "="))
            case .keyOnly:
                scratch.append(UInt8(ascii: "&"))
                key()
            }
        default:
            return
        }
    }

    @inline(__always)
    private func appendMemberKey(_ key: FormSlice, arena: UnsafeBufferPointer<UInt8>) {
        if style.nesting.dots {
            scratch.append(UInt8(ascii: "."))
            scratch.append(contentsOf: UnsafeBufferPointer(rebasing: arena[key.range]))
        } else {
            appendBracket(open: true)
            scratch.append(contentsOf: UnsafeBufferPointer(rebasing: arena[key.range]))
            appendBracket(open: false)
        }
    }

    @inline(__always)
    private func appendArraySuffix(_ index: Int) {
        switch style.arrays.kind {
        case .brackets:
            appendBracket(open: true)
            appendBracket(open: false)
        case .indexed:
            appendBracket(open: true)
            scratch.appendDigits(UInt64(index))
            appendBracket(open: false)
        case .noBrackets:
            return
        }
    }

    @inline(__always)
    private func appendBracket(open: Bool) {
        if style.brackets.literal {
            scratch.append(open ? UInt8(ascii: "[") : UInt8(ascii: "]"))
        } else {
            scratch.append(UInt8(ascii: "%"))
            scratch.append(UInt8(ascii: "5"))
            scratch.append(open ? UInt8(ascii: "B") : UInt8(ascii: "D"))
        }
    }

    /// Whether every offset handed out fits the 32 bits of a ``FormSlice``.
    var arenaFitsSlices: Bool { max(peakArenaCount, arena.count) <= Int(UInt32.max) }

    private static let trueText: [UInt8] = Array("true".utf8)
    private static let falseText: [UInt8] = Array("false".utf8)

    /// Appends the decimal digits of `value`.
    static func appendDigits(_ value: UInt64, to buffer: inout [UInt8]) {
        if value < 10 {
            buffer.append(UInt8(truncatingIfNeeded: value) + UInt8(ascii: "0"))
            return
        }
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
            buffer[index] = UInt8(truncatingIfNeeded: rest % 10) + UInt8(ascii: "0")
            rest /= 10
            index -= 1
        }
    }
}

/// A coding key for array positions and for keys made at run time.
struct FormCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }

    static let superKey = FormCodingKey(stringValue: "super")
}

extension [any CodingKey] {
    /// The keys as strings, for an error's key path.
    var formKeyPath: [String] { map(\.stringValue) }
}
