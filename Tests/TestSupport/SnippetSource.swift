import Foundation

/// Finds the Swift code blocks of the documentation and checks that a test holds each verbatim,
/// so a snippet in the docs cannot drift from code that compiles and runs. Shared by every
/// module's documentation tests.
public enum SnippetSource {
    /// The package root, found from this file's path.
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The text of the file at `relativePath` under the package root.
    public static func read(_ relativePath: String) throws -> String {
        try String(contentsOf: packageRoot.appendingPathComponent(relativePath), encoding: .utf8)
    }

    /// The ```swift blocks of a Markdown text, each as its lines.
    public static func markdownBlocks(_ text: String) -> [[String]] {
        blocks(in: text.components(separatedBy: "\n"))
    }

    /// The ```swift blocks inside the `///` comments of a Swift source text, each as its lines.
    public static func docCommentBlocks(_ source: String) -> [[String]] {
        let commentLines = source.components(separatedBy: "\n").compactMap { line -> String? in
            let trimmed = line.drop { $0 == " " }
            guard trimmed.hasPrefix("///") else { return nil }
            let body = trimmed.dropFirst(3)
            return String(body.hasPrefix(" ") ? body.dropFirst() : body)
        }
        return blocks(in: commentLines)
    }

    /// The ```swift examples in the documentation comments of the Swift files under `folder`
    /// (relative to the package root) that none of `testFiles` holds verbatim, each with its
    /// file, and how many examples there are in all.
    /// - Parameters:
    ///   - folder: The source folder, such as `Sources/HTTPCache`.
    ///   - testFiles: The test files that hold the examples, relative to the package root.
    ///   - skip: Whether to leave out a file, given its path relative to `folder`.
    public static func untestedDocCommentExamples(
        under folder: String, testedIn testFiles: [String], skipping skip: (String) -> Bool = { _ in false }
    ) throws -> (count: Int, untested: [(file: String, block: [String])]) {
        let tests = try testFiles.map(read).joined(separator: "\n")
        let root = packageRoot.appendingPathComponent(folder)
        let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
        var count = 0
        var untested: [(file: String, block: [String])] = []
        for file in files.sorted() where file.hasSuffix(".swift") && !skip(file) {
            for block in docCommentBlocks(try read("\(folder)/\(file)")) {
                count += 1
                if !contains(block, in: tests) { untested.append((file, block)) }
            }
        }
        return (count, untested)
    }

    /// Whether `source` holds the lines of `block` consecutively, ignoring indentation,
    /// trailing spaces, blank lines and `import` lines (a snippet is indented inside a test
    /// function, whose file does the imports).
    public static func contains(_ block: [String], in source: String) -> Bool {
        let wanted = block.map(normalized).filter { !$0.isEmpty && !$0.hasPrefix("import ") }
        let lines = source.components(separatedBy: "\n").map(normalized).filter { !$0.isEmpty }
        guard !wanted.isEmpty, wanted.count <= lines.count else { return wanted.isEmpty }
        for start in 0...(lines.count - wanted.count) where lines[start] == wanted[0] {
            if Array(lines[start..<start + wanted.count]) == wanted { return true }
        }
        return false
    }

    private static func normalized(_ line: String) -> String {
        line.trimmingCharacters(in: .whitespaces)
    }

    private static func blocks(in lines: [String]) -> [[String]] {
        var result: [[String]] = []
        var current: [String]?
        for line in lines {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = []
            } else if current != nil, trimmed == "```" {
                result.append(current ?? [])
                current = nil
            } else if current != nil {
                current?.append(line)
            }
        }
        return result
    }
}
