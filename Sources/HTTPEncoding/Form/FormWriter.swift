import Foundation

/// Writes a ``FormNode`` tree as `application/x-www-form-urlencoded` bytes in one pass.
///
/// Keys and values were percent-encoded into the arena while encoding; writing copies
/// byte ranges. The key of the pair being written lives in one buffer, ``key``: entering
/// an object or array appends one segment and leaving it truncates the buffer back, so
/// no key prefix is ever rebuilt. The cost is linear in the size of the output, plus
/// sorting each object's keys.
struct FormWriter {
    private var out: FormBytes
    private var key = FormBytes(capacity: 256)
    private let arena: UnsafeBufferPointer<UInt8>
    private let style: FormStyle
    private let literalBrackets: Bool

    /// A writer reading leaves and keys from `arena`, which must outlive it.
    init(style: FormStyle, arena: UnsafeBufferPointer<UInt8>) {
        self.style = style
        self.arena = arena
        literalBrackets = style.brackets.literal
        out = FormBytes(capacity: arena.count + arena.count / 4 + 64)
    }

    /// The written bytes; the writer must not be used again.
    consuming func takeData() -> Data {
        key.free()
        return out.takeData()
    }

    /// Frees the output of a write that failed; the writer must not be used again.
    consuming func discardOutput() {
        key.free()
        out.free()
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
        case .fragment:
            throw HTTPEncodingError(
                .unsupportedValue, value: "container",
                reason: "a form needs named values at the top level: encode a struct or a dictionary")
        case .leaf(let slice):
            throw HTTPEncodingError(
                .unsupportedValue, value: text(slice),
                reason: "a form needs named values at the top level: encode a struct or a dictionary, not a scalar")
        }
    }

    private mutating func writeObject(_ object: FormObject, isRoot: Bool) throws(HTTPEncodingError) {
        let base = key.count
        let members = object.members
        for position in FormMemberOrder.positions(of: object, arena: arena, sorted: style.keyOrder.sorted) {
            try writeMember(members[position].key, members[position].value, isRoot: isRoot, base: base)
        }
    }

    @inline(__always)
    private mutating func writeMember(
        _ name: FormSlice, _ value: FormNode, isRoot: Bool, base: Int
    )
        throws(HTTPEncodingError)
    {
        if isRoot {
            key.append(contentsOf: bytes(name))
        } else if style.nesting.dots {
            key.append(UInt8(ascii: "."))
            key.append(contentsOf: bytes(name))
        } else {
            key.appendBracket(open: true, literal: literalBrackets)
            key.append(contentsOf: bytes(name))
            key.appendBracket(open: false, literal: literalBrackets)
        }
        do {
            try write(value)
        } catch {
            throw error.prefixed(by: [PercentEncoding.decode(bytes(name))])
        }
        key.truncate(to: base)
    }

    private mutating func writeArray(_ array: FormArray) throws(HTTPEncodingError) {
        let base = key.count
        for (position, element) in array.values.enumerated() {
            if style.arrays == .noBrackets {
                switch element {
                case .object, .array, .fragment:
                    throw HTTPEncodingError(
                        .unsupportedValue, keyPath: [String(position)], value: Self.kind(of: element),
                        reason: "arrays without brackets (key=a&key=b) can only hold scalars; "
                            + "use FormStyle.Arrays.indexed or .brackets for arrays of arrays or objects")
                default:
                    break
                }
            }
            key.appendArraySuffix(position, style: style)
            do {
                try write(element)
            } catch {
                throw error.prefixed(by: [String(position)])
            }
            key.truncate(to: base)
        }
    }

    private mutating func write(_ node: FormNode) throws(HTTPEncodingError) {
        switch node {
        case .leaf(let slice):
            startPair()
            out.append(UInt8(ascii: "="))
            out.append(contentsOf: bytes(slice))
        case .fragment(let slice):
            // "&piece&piece…": each piece is the rest of a pair below the current key.
            var index = Int(slice.start)
            let end = Int(slice.end)
            while index < end {
                index += 1
                var next = index
                while next < end, arena[next] != UInt8(ascii: "&") { next += 1 }
                startPair()
                out.append(contentsOf: UnsafeBufferPointer(rebasing: arena[index..<next]))
                index = next
            }
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

    private static func kind(of node: FormNode) -> String {
        switch node {
        case .leaf: return "value"
        case .null: return "nil"
        case .object: return "object"
        case .array: return "array"
        case .fragment: return "container"
        }
    }
}
