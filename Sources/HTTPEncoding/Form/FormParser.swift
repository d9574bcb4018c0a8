import Foundation

/// Reads `application/x-www-form-urlencoded` bytes into a ``FormParsedNode`` tree.
///
/// Pairs are split on `&`, names from values on the first `=`, and both are decoded as
/// the WHATWG URL Standard §5.1 says (`+` is a space). A name is then split into a path:
/// `user[address][city]` (or `user.address.city` with dotted nesting), where `[]`
/// appends to a list. As in Rack, `items[][name]=a&items[][size]=2` builds one element
/// and starts the next only when a key repeats.
struct FormParser {
    private enum Segment {
        case name(String)
        case append
    }

    /// The deepest key read, as `JSONDecoder` limits nesting: decoding recurses once per
    /// level, so an attacker's `a[a][a]…` must not be able to exhaust the stack.
    static let maximumDepth = FormStyle.maximumDepth

    private let dots: Bool
    let root = FormParsedObject()

    init(style: FormStyle) {
        dots = style.nesting.dots
    }

    mutating func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(HTTPEncodingError) {
        var start = 0
        while start <= bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "&") { end += 1 }
            if end > start {
                try parsePair(UnsafeBufferPointer(rebasing: bytes[start..<end]))
            }
            start = end + 1
        }
    }

    private mutating func parsePair(_ pair: UnsafeBufferPointer<UInt8>) throws(HTTPEncodingError) {
        var equals = 0
        while equals < pair.count, pair[equals] != UInt8(ascii: "=") { equals += 1 }
        let name = PercentEncoding.decode(UnsafeBufferPointer(rebasing: pair[0..<equals]))
        let value =
            equals < pair.count ? PercentEncoding.decode(UnsafeBufferPointer(rebasing: pair[(equals + 1)...])) : nil
        let path = segments(of: name)
        guard case .name(let first) = path.first, !first.isEmpty else { return }
        guard path.count <= Self.maximumDepth else {
            throw HTTPEncodingError(
                .malformedInput, keyPath: [first], value: String(name.prefix(100)),
                reason: "the key nests \(path.count) levels deep; at most \(Self.maximumDepth) are read")
        }
        try insert(.scalar(value), at: path, name: name)
    }

    /// Splits a decoded name into its path.
    private func segments(of name: String) -> [Segment] {
        var result: [Segment] = []
        var current = ""
        var characters = name.makeIterator()
        var inBracket = false
        var bracketText = ""
        var sawBracket = false
        while let character = characters.next() {
            if inBracket {
                if character == "]" {
                    result.append(bracketText.isEmpty ? .append : .name(bracketText))
                    bracketText = ""
                    inBracket = false
                } else {
                    bracketText.append(character)
                }
            } else if character == "[" && (!current.isEmpty || sawBracket || !result.isEmpty) {
                if !current.isEmpty || result.isEmpty {
                    result.append(.name(current))
                    current = ""
                }
                inBracket = true
                sawBracket = true
            } else if character == "." && dots && (!current.isEmpty || !result.isEmpty) {
                if !current.isEmpty { result.append(.name(current)) }
                current = ""
            } else if sawBracket && !dots {
                // Text after a closing bracket that does not open another one is ignored, as PHP does.
                continue
            } else {
                current.append(character)
            }
        }
        if inBracket {
            // An unclosed bracket: the rest is part of the name, as written.
            if result.count == 1, case .name(let head) = result[0] {
                return [.name(head + "[" + bracketText)]
            }
            current += "[" + bracketText
        }
        if !current.isEmpty || result.isEmpty { result.append(.name(current)) }
        return result
    }

    private func insert(_ leaf: FormParsedNode, at path: [Segment], name: String) throws(HTTPEncodingError) {
        var container = FormParsedNode.object(root)
        for position in path.indices {
            let isLast = position == path.count - 1
            let segment = path[position]
            let next: Segment? = isLast ? nil : path[position + 1]
            switch (container, segment) {
            case (.object(let object), .name(let key)):
                if isLast {
                    object.set(key, try merged(object.value(for: key), with: leaf, name: name))
                } else if let existing = object.value(for: key) {
                    guard case .scalar = existing else {
                        container = existing
                        continue
                    }
                    throw conflict(name)
                } else {
                    let child = Self.emptyContainer(for: next)
                    object.set(key, child)
                    container = child
                }
            case (.list(let list), .append):
                if isLast {
                    list.values.append(leaf)
                } else if case .name(let key) = next, case .object(let last) = list.values.last,
                    last.value(for: key) == nil
                {
                    container = .object(last)
                } else {
                    let child = Self.emptyContainer(for: next)
                    list.values.append(child)
                    container = child
                }
            default:
                throw conflict(name)
            }
        }
    }

    /// A new list for a path that continues with `[]`, else a new object.
    private static func emptyContainer(for next: Segment?) -> FormParsedNode {
        if case .append = next { return .list(FormParsedList()) }
        return .object(FormParsedObject())
    }

    /// The node for a key written again: repeated scalars make a list (`key=a&key=b`).
    private func merged(
        _ existing: FormParsedNode?, with leaf: FormParsedNode, name: String
    ) throws(HTTPEncodingError)
        -> FormParsedNode
    {
        switch existing {
        case .none: return leaf
        case .scalar(let previous): return .list(FormParsedList([.scalar(previous), leaf]))
        case .list(let list):
            list.values.append(leaf)
            return .list(list)
        case .object: throw conflict(name)
        }
    }

    private func conflict(_ name: String) -> HTTPEncodingError {
        HTTPEncodingError(
            .malformedInput, keyPath: [name], value: name,
            reason: "the key is used both as a value and as a container (or as both a list and an object)")
    }
}
