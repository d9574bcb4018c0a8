import Foundation
import HTTPCore
import HTTPEncoding

/// The tree a value encodes into, written out as parts once encoding is done.
final class MultipartNode {
    enum Leaf {
        case text(String)
        case data(Data)
        case file(MultipartFile)
    }

    enum Kind {
        case empty
        case keyed([(key: String, node: MultipartNode)])
        case unkeyed([MultipartNode])
        case leaf(Leaf)
    }

    var kind: Kind = .empty
    let codingPath: [any CodingKey]

    init(codingPath: [any CodingKey]) { self.codingPath = codingPath }

    convenience init() { self.init(codingPath: []) }

    /// The child for `key`, replacing an earlier one of the same key.
    func child(forKey key: String, codingPath: [any CodingKey]) -> MultipartNode {
        let node = MultipartNode(codingPath: codingPath)
        var entries: [(key: String, node: MultipartNode)] = []
        if case .keyed(let existing) = kind { entries = existing.filter { $0.key != key } }
        entries.append((key, node))
        kind = .keyed(entries)
        return node
    }

    /// A new element at the end of an unkeyed container.
    func appendElement(codingPath: [any CodingKey]) -> MultipartNode {
        let node = MultipartNode(codingPath: codingPath)
        var elements: [MultipartNode] = []
        if case .unkeyed(let existing) = kind { elements = existing }
        elements.append(node)
        kind = .unkeyed(elements)
        return node
    }

    func makeKeyed() {
        if case .keyed = kind { return }
        kind = .keyed([])
    }

    func makeUnkeyed() {
        if case .unkeyed = kind { return }
        kind = .unkeyed([])
    }

    private var isContainer: Bool {
        switch kind {
        case .keyed, .unkeyed: return true
        case .empty, .leaf: return false
        }
    }

    /// Appends this node's parts: `name[key]` for keyed children, scalar array elements as
    /// the array style says, `name[index]` for container elements; nothing for `nil`.
    func appendParts(
        to form: inout MultipartForm, name: String?, options: MultipartFormEncoder
    )
        throws(MultipartError)
    {
        switch kind {
        case .empty:
            return
        case .keyed(let entries):
            let ordered = options.sortsKeys ? entries.sorted { $0.key < $1.key } : entries
            for entry in ordered {
                let childName = name.map { "\($0)[\(entry.key)]" } ?? entry.key
                try entry.node.appendParts(to: &form, name: childName, options: options)
            }
        case .unkeyed(let elements):
            let base = name ?? ""
            for (index, element) in elements.enumerated() {
                let childName: String
                if element.isContainer || options.arrays == .indexed {
                    childName = "\(base)[\(index)]"
                } else if options.arrays == .noBrackets {
                    childName = base
                } else {
                    childName = "\(base)[]"
                }
                try element.appendParts(to: &form, name: childName, options: options)
            }
        case .leaf(let leaf):
            let partName = name ?? ""
            switch leaf {
            case .text(let text):
                try form.appendText(name: partName, value: text)
            case .data(let data):
                try form.appendData(name: partName, data: data)
            case .file(let file):
                switch file.source {
                case .file(let url):
                    try form.append(name: partName, fileAt: url, filename: file.filename, contentType: file.contentType)
                case .data(let data):
                    try form.appendData(
                        name: partName, data: data, filename: file.filename, contentType: file.contentType)
                }
            }
        }
    }

    /// A coding path written as a bracketed name, for messages.
    static func name(for codingPath: [any CodingKey]) -> String {
        var out = ""
        for (index, key) in codingPath.enumerated() {
            let text = key.intValue.map(String.init) ?? key.stringValue
            out += index == 0 ? text : "[\(text)]"
        }
        return out
    }
}
