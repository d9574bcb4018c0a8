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
    let dotsNesting: Bool
    let style: FormStyle
    /// The first refusal of a container call that cannot throw (an ambiguous key, or a
    /// container nested too deep); the encoder throws it instead of writing.
    private(set) var refusal: HTTPEncodingError?
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
        dotsNesting = encoder.style.nesting.dots
        style = encoder.style
    }

    /// The key as the key strategy writes it, percent-encoded into the arena.
    ///
    /// A key that a decoder would read as key syntax is recorded in ``refusal``
    /// (the first one only): the containers that call this cannot throw, so the encoder
    /// throws it before writing anything. A top-level key that is itself a well-formed
    /// path (`filter[status]`, `ids[]`) is written as given: that is how flat keys from
    /// other libraries are meant, and servers read it as that path.
    /// - Parameters:
    ///   - key: The key as the value encoded it.
    ///   - topLevel: Whether the key is a top-level key of the form (asked only for a key
    ///     holding key syntax).
    ///   - path: The key path to `key`, including it, for the error.
    @inline(__always)
    func key(_ key: String, topLevel: @autoclosure () -> Bool, at path: @autoclosure () -> [String]) -> FormSlice {
        let written = keysAreIdentity ? key : keys.encode(key)
        if Self.readsAsSyntax(written, dots: dotsNesting), !(topLevel() && Self.isPath(written, dots: dotsNesting)) {
            refuse(written, at: path())
        }
        return text(written)
    }

    /// Whether a decoder would read part of `key` as key syntax: `[` or `]` anywhere (every
    /// server percent-decodes a name before splitting it, so no escaping helps), `.` with
    /// dotted nesting, or an empty key (`a[]` appends to a list; a bare `=x` is dropped).
    @inline(__always)
    private static func readsAsSyntax(_ key: String, dots: Bool) -> Bool {
        for byte in key.utf8
        where byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]") || (dots && byte == UInt8(ascii: ".")) {
            return true
        }
        return key.isEmpty
    }

    /// Whether `key` is a well-formed path: a name with no empty dotted part (with dotted
    /// nesting), then any number of `[segment]` groups (a segment may be empty: `ids[]`)
    /// and nothing after the last one.
    static func isPath(_ key: String, dots: Bool) -> Bool {
        let bytes = Array(key.utf8)
        let open = bytes.firstIndex(of: UInt8(ascii: "[")) ?? bytes.endIndex
        let name = bytes[..<open]
        guard !name.isEmpty, !name.contains(UInt8(ascii: "]")) else { return false }
        let parts = name.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        if dots && parts.contains(where: \.isEmpty) { return false }
        var index = open
        while index < bytes.endIndex {
            guard bytes[index] == UInt8(ascii: "["),
                let close = bytes[(index + 1)...].firstIndex(of: UInt8(ascii: "]")),
                !bytes[(index + 1)..<close].contains(UInt8(ascii: "["))
            else { return false }
            index = close + 1
        }
        return true
    }

    /// Records `error` unless an earlier refusal is recorded.
    func refuse(_ error: HTTPEncodingError) {
        if refusal == nil { refusal = error }
    }

    /// The error for a container whose members would nest deeper than ``FormStyle/maximumDepth``.
    static func tooDeep(at path: [String]) -> HTTPEncodingError {
        HTTPEncodingError(
            .unsupportedValue, keyPath: path, value: "more than \(FormStyle.maximumDepth) levels",
            reason: "a form nests at most \(FormStyle.maximumDepth) levels (FormStyle.maximumDepth); "
                + "FormDecoder and servers refuse deeper keys")
    }

    private func refuse(_ key: String, at path: [String]) {
        guard refusal == nil else { return }
        let reason: String
        if key.isEmpty {
            reason = "an empty key cannot be read back (a nested one reads as [], which appends to a list)"
        } else if dotsNesting && key.utf8.contains(UInt8(ascii: ".")) {
            reason = "with dotted nesting a . in a key reads back as a nesting level; rename the key"
        } else {
            reason =
                "[ and ] in a key read back as nesting (servers percent-decode the name before splitting it); "
                + "rename the key, or nest the value (only a top-level key may be a flat path such as a[b])"
        }
        refusal = HTTPEncodingError(.ambiguousKey, keyPath: path, value: key, reason: reason)
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
                for position in FormMemberOrder.positions(of: object, arena: arena, sorted: style.keyOrder.sorted) {
                    let (key, value) = members[position]
                    switch value {
                    case .array(let array):
                        for (index, element) in array.values.enumerated() {
                            appendPiece(element, arena: arena) {
                                appendMemberKey(key, arena: arena)
                                scratch.appendArraySuffix(index, style: style)
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
                    appendPiece(element, arena: arena) { scratch.appendArraySuffix(index, style: style) }
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
            scratch.appendBracket(open: true, literal: style.brackets.literal)
            scratch.append(contentsOf: UnsafeBufferPointer(rebasing: arena[key.range]))
            scratch.appendBracket(open: false, literal: style.brackets.literal)
        }
    }

    /// Whether every offset handed out fits the 32 bits of a ``FormSlice``.
    var arenaFitsSlices: Bool { max(peakArenaCount, arena.count) <= Int(UInt32.max) }

    private static let trueText: [UInt8] = Array("true".utf8)
    private static let falseText: [UInt8] = Array("false".utf8)
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
    /// The keys as text; an array index as its number (`0`, not JSONDecoder's `Index 0`).
    var formKeyPath: [String] { map { key in key.intValue.map(String.init) ?? key.stringValue } }
}
