import Foundation
import TestSupport
import Testing

/// Checks the Heron rewrites of the usage examples of five older HTTP libraries: one rewrite
/// per usage code block of each README in `../shared/seeds/`, numbered in order, each no
/// longer than its original; prints the comparison as a Markdown table.
///
/// A usage block is a fenced block marked `swift` (any case) that is not a package
/// installation (SwiftPM `dependencies:`/`.package`/`.product`, CocoaPods, Carthage); JSON
/// samples, shell lines and printed output are not code to rewrite. A rewrite in
/// `Tests/HTTPEndpointsTests/Seeds/<Library>SeedExamples.swift` sits between
/// `// seed: <Library> <n>` and `// end seed`, with `// what:` next (and `// differs:` where
/// Heron does the job another way).
///
/// Lengths are counted by ``count(_:)`` alone: the `Character`s left when all whitespace is
/// removed. An original counts its whole block. A rewrite counts every line between its
/// markers but comment lines: what a user types, the function around a call and its braces
/// included.
@Suite("Seed example lengths")
struct SeedExampleLengthTests {
    static let libraries = ["HTTPSwift", "IndomioHTTP", "Osiris", "Osprey", "RestingKit"]

    @Test("HTTPSwift: one rewrite per usage block, none longer")
    func httpSwift() { Self.check(["HTTPSwift"]) }

    @Test("IndomioHTTP: one rewrite per usage block, none longer")
    func indomioHTTP() { Self.check(["IndomioHTTP"]) }

    @Test("Osiris: one rewrite per usage block, none longer")
    func osiris() { Self.check(["Osiris"]) }

    @Test("Osprey: one rewrite per usage block, none longer")
    func osprey() { Self.check(["Osprey"]) }

    @Test("RestingKit: one rewrite per usage block, none longer")
    func restingKit() { Self.check(["RestingKit"]) }

    @Test("all five libraries, with the whole table, which Docs/ComingFromOtherLibraries.md holds")
    func allLibraries() throws {
        let table = Self.check(Self.libraries)
        let path = "Docs/ComingFromOtherLibraries.md"
        let guide = try SnippetSource.read(path)
        let (open, close) = ("<!-- seed table -->\n", "<!-- end seed table -->")
        guard let start = guide.range(of: open),
            let end = guide.range(of: close, range: start.upperBound..<guide.endIndex)
        else {
            Issue.record("\(path) has no `<!-- seed table -->` … `<!-- end seed table -->` section")
            return
        }
        let current = String(guide[start.upperBound..<end.lowerBound])
        let wanted = table + "\n"
        guard current != wanted else { return }
        if ProcessInfo.processInfo.environment["HERON_REGENERATE_DOCS"] == "1" {
            let updated = guide.replacingCharacters(in: start.upperBound..<end.lowerBound, with: wanted)
            try updated.write(
                to: SnippetSource.packageRoot.appendingPathComponent(path), atomically: true, encoding: .utf8)
        } else {
            Issue.record("the seed table of \(path) is stale: run with HERON_REGENERATE_DOCS=1 to rewrite it")
        }
    }

    @Test("a missing README or rewrites file fails the check, never skips it")
    func missingFilesFail() {
        withKnownIssue {
            Self.check(["NoSuchLibrary"])
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("NoSuchLibrary.md is missing") }
        }
    }

    @Test("the counting rule: whitespace is not counted, characters are")
    func countingRule() {
        #expect(Self.count(["let a = 1", "\tprint( a )"]) == 14)
        #expect(Self.count(["  \"é\" "]) == 3)
        let source = """
                // seed: Demo 1
                // what: a demo
                // differs: one line
                // and the next
                struct Model {
                    let id: Int
                }
                @MainActor static func demo1(
                    client: Client
                ) async throws -> Int {
                    // a comment
                    try await client.value()
                }
                // end seed
            """
        let rewrites = Self.rewrites(in: source, library: "Demo")
        #expect(rewrites.issues.isEmpty)
        #expect(rewrites.items.map(\.number) == [1])
        #expect(
            rewrites.items.first?.count
                == Self.count([
                    "structModel{letid:Int}", "@MainActorstaticfuncdemo1(", "client:Client", ")asyncthrows->Int{",
                    "tryawaitclient.value()", "}",
                ]))
        #expect(rewrites.items.first?.differs == "one line and the next")
    }

    // MARK: Counting

    /// The one counting rule: the `Character`s of `lines` that are not whitespace.
    static func count(_ lines: [String]) -> Int {
        lines.reduce(0) { $0 + $1.filter { !$0.isWhitespace }.count }
    }

    // MARK: The originals

    /// A usage code block of a seed README.
    struct Original {
        var number: Int
        var lines: [String]
        var count: Int { SeedExampleLengthTests.count(lines) }
    }

    /// The usage blocks of a README, numbered from 1 in order.
    static func usageBlocks(markdown: String) -> [Original] {
        var blocks: [[String]] = []
        var current: [String]?
        var isSwift = false
        for line in markdown.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed.hasPrefix("```") {
                isSwift = trimmed.dropFirst(3).trimmingCharacters(in: .whitespaces).lowercased() == "swift"
                current = []
            } else if let block = current, trimmed == "```" {
                if isSwift, !isInstallation(block) { blocks.append(block) }
                current = nil
            } else if current != nil {
                current?.append(line)
            }
        }
        return blocks.enumerated().map { Original(number: $0.offset + 1, lines: $0.element) }
    }

    /// Whether a block installs the library rather than using it.
    static func isInstallation(_ block: [String]) -> Bool {
        block.contains { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return trimmed.hasPrefix("dependencies:") || trimmed.contains(".package(") || trimmed.contains(".product(")
                || trimmed.hasPrefix("pod ") || trimmed.hasPrefix("github \"")
        }
    }

    // MARK: The rewrites

    /// One rewrite between a library's markers.
    struct Rewrite {
        var number: Int
        var what: String?
        var differs: String?
        /// The lines counted.
        var counted: [String]
        var count: Int { SeedExampleLengthTests.count(counted) }
    }

    /// The rewrites of a Heron file, and what is wrong with its markers.
    static func rewrites(in source: String, library: String) -> (items: [Rewrite], issues: [String]) {
        var items: [Rewrite] = []
        var issues: [String] = []
        var open: (rewrite: Rewrite, indent: Int, lines: [String], line: Int)?
        for (index, line) in source.components(separatedBy: "\n").enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("// seed:") {
                if let open { issues.append("line \(open.line): seed \(open.rewrite.number) has no `// end seed`") }
                let words = trimmed.dropFirst("// seed:".count).split(separator: " ")
                guard words.count == 2, words[0] == library, let number = Int(words[1]) else {
                    issues.append("line \(index + 1): expected `// seed: \(library) <n>`, found `\(trimmed)`")
                    open = nil
                    continue
                }
                let rewrite = Rewrite(number: number, counted: [])
                open = (rewrite, indentation(line), [], index + 1)
            } else if trimmed == "// end seed" {
                guard let current = open else {
                    issues.append("line \(index + 1): `// end seed` without `// seed:`")
                    continue
                }
                let (rewrite, problems) = finish(current.rewrite, lines: current.lines, indent: current.indent)
                items.append(rewrite)
                issues += problems.map { "\(library) \(rewrite.number) (line \(current.line)): \($0)" }
                open = nil
            } else if open != nil {
                open?.lines.append(line)
            }
        }
        if let open { issues.append("line \(open.line): seed \(open.rewrite.number) has no `// end seed`") }
        return (items, issues)
    }

    /// A rewrite with its notes and counted lines read from the lines between its markers.
    private static func finish(_ start: Rewrite, lines: [String], indent: Int) -> (Rewrite, [String]) {
        var rewrite = start
        var problems: [String] = []
        // The leading comment lines: `// key: text` notes, a line without a key continuing the last one.
        var notes: [(key: String, text: String)] = []
        for line in lines.prefix(while: { $0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }) {
            let text = line.trimmingCharacters(in: .whitespaces).dropFirst(2).trimmingCharacters(in: .whitespaces)
            if let key = ["what", "differs"].first(where: { text.hasPrefix("\($0):") }) {
                notes.append((key, text.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces)))
            } else if let last = notes.indices.last {
                notes[last].text += " " + text
            }
        }
        func note(_ key: String) -> String? { notes.first { $0.key == key }?.text }
        rewrite.what = note("what")
        rewrite.differs = note("differs")
        if notes.first?.key != "what" || rewrite.what?.isEmpty != false {
            problems.append("the first line after `// seed:` must be `// what: <what it does>`")
        }
        // Everything a user types counts: declarations, the function around a call, its braces.
        rewrite.counted = lines.filter {
            let trimmed = $0.trimmingCharacters(in: .whitespaces)
            return !trimmed.isEmpty && !trimmed.hasPrefix("//")
        }
        return (rewrite, problems)
    }

    private static func indentation(_ line: String) -> Int { line.prefix { $0 == " " || $0 == "\t" }.count }

    // MARK: The check and the table

    /// One row of the table.
    struct Row {
        var library: String
        var number: Int
        var original: Int
        var heron: Int
        var note: String
        var ratio: Double { Double(heron) / Double(max(original, 1)) }
    }

    /// Checks `libraries` and prints their table, recording an issue for each problem.
    /// - Returns: The table.
    @discardableResult
    static func check(_ libraries: [String]) -> String {
        var rows: [Row] = []
        for library in libraries {
            let readme = "../shared/seeds/\(library).md"
            let heronFile = "Tests/HTTPEndpointsTests/Seeds/\(library)SeedExamples.swift"
            guard let markdown = try? SnippetSource.read(readme) else {
                Issue.record("\(library): the seed README \(readme) is missing or unreadable (from the package root)")
                continue
            }
            guard let source = try? SnippetSource.read(heronFile) else {
                Issue.record("\(library): the rewrites file \(heronFile) is missing or unreadable")
                continue
            }
            let originals = usageBlocks(markdown: markdown)
            let (rewrites, issues) = Self.rewrites(in: source, library: library)
            for issue in issues { Issue.record("\(heronFile): \(issue)") }
            let numbers = rewrites.map(\.number)
            let expected = Array(stride(from: 1, through: originals.count, by: 1))
            let missing = expected.filter { !numbers.contains($0) }
            let extra = numbers.filter { !expected.contains($0) }
            let repeated = Set(numbers.filter { number in numbers.filter { $0 == number }.count > 1 })
            if !missing.isEmpty { Issue.record("\(library): no rewrite of usage block(s) \(missing)") }
            if !extra.isEmpty {
                Issue.record("\(library): rewrite(s) \(extra) but the README has \(originals.count) usage blocks")
            }
            if !repeated.isEmpty { Issue.record("\(library): rewrite(s) \(repeated.sorted()) appear more than once") }
            if numbers != numbers.sorted() { Issue.record("\(library): rewrites are not in the README's order") }
            for rewrite in rewrites {
                guard let original = originals.first(where: { $0.number == rewrite.number }) else { continue }
                if rewrite.count == 0 { Issue.record("\(library) \(rewrite.number): the rewrite has no code") }
                if rewrite.count > original.count {
                    let counts = "\(rewrite.count) characters against the original's \(original.count)"
                    Issue.record("\(library) \(rewrite.number): \(counts): no rewrite may be longer than its original")
                }
                let note = rewrite.differs.map { "differs: \($0)" } ?? ""
                rows.append(
                    Row(
                        library: library, number: rewrite.number, original: original.count, heron: rewrite.count,
                        note: note))
            }
        }
        let text = table(rows)
        print(text)
        return text
    }

    /// The rows as a Markdown table, with a summary line per library and one for all of them.
    static func table(_ rows: [Row]) -> String {
        var lines = [
            "| library | example | original | Heron | ratio | note |",
            "| --- | ---: | ---: | ---: | ---: | --- |",
        ]
        for row in rows {
            let note = row.note.replacingOccurrences(of: "|", with: "\\|")
            lines.append(
                "| \(row.library) | \(row.number) | \(row.original) | \(row.heron) | \(format(row.ratio)) | \(note) |")
        }
        lines.append("")
        var groups = Set(rows.map(\.library)).sorted().map { name in (name, rows.filter { $0.library == name }) }
        if groups.count > 1 { groups.append(("all", rows)) }
        for (name, group) in groups { lines.append(summary(name, group)) }
        return lines.joined(separator: "\n")
    }

    /// `name: N examples: s shorter, e equal, l longer; median ratio m`.
    static func summary(_ name: String, _ rows: [Row]) -> String {
        let shorter = rows.filter { $0.heron < $0.original }.count
        let equal = rows.filter { $0.heron == $0.original }.count
        let longer = rows.filter { $0.heron > $0.original }.count
        let ratios = rows.map(\.ratio).sorted()
        var median = 0.0
        if !ratios.isEmpty {
            let middle = ratios.count / 2
            median = ratios.count % 2 == 1 ? ratios[middle] : (ratios[middle - 1] + ratios[middle]) / 2
        }
        let counts = "\(shorter) shorter, \(equal) equal, \(longer) longer"
        return "\(name): \(rows.count) examples: \(counts); median ratio \(format(median))"
    }

    private static func format(_ ratio: Double) -> String { String(format: "%.2f", ratio) }
}
