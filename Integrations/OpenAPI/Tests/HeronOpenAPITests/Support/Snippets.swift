import Foundation

/// The Swift examples of the documentation, and whether a test holds each one verbatim, so an
/// example cannot drift from code that compiles and runs.
enum Snippets {
    /// The package folder (`Integrations/OpenAPI`), found from this file's path.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The text of the file at `path`, relative to the package folder.
    static func read(_ path: String) throws -> String {
        try String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// The guide: `Docs/Integrations.md` in Heron's repository or, in the repository
    /// `scripts/publish-integrations` makes of this package, the README.md it makes from the
    /// guide's section.
    static func guide() throws -> String {
        let inHeron = "../../Docs/Integrations.md"
        let found = FileManager.default.fileExists(atPath: packageRoot.appendingPathComponent(inHeron).path)
        return try read(found ? inHeron : "README.md")
    }

    /// The ```swift blocks of a Markdown text, each as its lines.
    static func markdownBlocks(_ text: String) -> [[String]] {
        blocks(in: text.components(separatedBy: "\n"))
    }

    /// The ```swift blocks inside the `///` comments of a Swift source text, each as its lines.
    static func docCommentBlocks(_ source: String) -> [[String]] {
        let comments = source.components(separatedBy: "\n").compactMap { line -> String? in
            let trimmed = line.drop { $0 == " " }
            guard trimmed.hasPrefix("///") else { return nil }
            let text = trimmed.dropFirst(3)
            return String(text.hasPrefix(" ") ? text.dropFirst() : text)
        }
        return blocks(in: comments)
    }

    /// Whether `source` holds the lines of `block` one after the other, ignoring indentation,
    /// blank lines and `import` lines (a test indents an example, and its file does the imports).
    static func contains(_ block: [String], in source: String) -> Bool {
        func lines(_ text: [String]) -> [String] {
            text.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        let wanted = lines(block).filter { !$0.hasPrefix("import ") }
        let haystack = lines(source.components(separatedBy: "\n"))
        guard !wanted.isEmpty, wanted.count <= haystack.count else { return false }
        return (0...(haystack.count - wanted.count)).contains { start in
            haystack[start..<start + wanted.count].elementsEqual(wanted)
        }
    }

    private static func blocks(in lines: [String]) -> [[String]] {
        var result: [[String]] = []
        var current: [String]?
        for line in lines {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = []
            } else if let block = current, trimmed == "```" {
                result.append(block)
                current = nil
            } else {
                current?.append(line)
            }
        }
        return result
    }
}
