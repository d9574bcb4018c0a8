import Foundation
import TestSupport

/// Random nested form values that both PHP's `parse_str` and `FormDecoder` can represent.
///
/// What is left out, and why:
/// - Keys never contain `[` or `]` (the key syntax itself), never start with a digit (PHP
///   turns numeric keys into integers and a list-like object into a list) and are never
///   empty (PHP drops an empty name; `key[]` means "append").
/// - Top-level keys contain no space or `.`: PHP rewrites them to `_` there (a legacy of
///   register_globals). With dotted nesting no key contains `.`.
/// - Lists hold only text unless `listsHoldContainers` (indexed arrays): with `key[]`,
///   PHP starts a new element at every `[]`, so a list of objects cannot be written for it.
///   Containers inside lists are never empty, so no element disappears.
/// - With `minimumListCount` 2 (arrays without brackets) a list is never a lone value,
///   which would read back as text.
/// Empty lists and objects as object members are generated: a form writes nothing for
/// them, and the expected value is ``FormTree/pruned``.
struct FormTreeGenerator {
    var random: SplitMix64
    var listsHoldContainers = false
    var minimumListCount = 0
    var dotsInKeys = true
    var maximumDepth = 5

    private static let textPieces = [
        "a", "Z", "0", "9", " ", "&", "=", "+", "#", "/", "?", "[", "]", "%", "%20", "é", "ß", "日本", "🦩", "\n", "~",
        ".", "-", "_", ";", ",", "'", "\"", "\\", "<", "*",
    ]
    private static let keyPieces = [
        "a", "b", "Z", "0", "7", "&", "=", "+", "#", "/", "?", "%", "é", "日", "🦩", "~", "-", "_", ";", ",", "'", "!",
    ]
    private static let firstLetters = ["a", "b", "k", "x", "Q", "é", "ж"]

    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    mutating func topLevel() -> FormTree {
        .object(members(depth: 0, topLevel: true, nonEmpty: false))
    }

    private mutating func number(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }

    mutating func text() -> String {
        (0..<number(0...6)).map { _ in Self.textPieces.randomElement(using: &random) ?? "" }.joined()
    }

    private mutating func key(topLevel: Bool) -> String {
        var key = Self.firstLetters.randomElement(using: &random) ?? "a"
        for _ in 0..<number(0...4) {
            var piece = Self.keyPieces.randomElement(using: &random) ?? "a"
            if !topLevel && dotsInKeys && number(0...6) == 0 { piece = number(0...1) == 0 ? " " : "." }
            key += piece
        }
        return key
    }

    private mutating func members(depth: Int, topLevel: Bool, nonEmpty: Bool) -> [String: FormTree] {
        var result: [String: FormTree] = [:]
        if nonEmpty { result[key(topLevel: topLevel)] = .text(text()) }
        for _ in 0..<number(0...4) { result[key(topLevel: topLevel)] = value(depth: depth + 1, inList: false) }
        return result
    }

    private mutating func value(depth: Int, inList: Bool) -> FormTree {
        let choice = depth >= maximumDepth ? 0 : number(0...5)
        switch choice {
        case 0...2:
            return .text(text())
        case 3, 4:
            if inList && !listsHoldContainers { return .text(text()) }
            return .object(members(depth: depth, topLevel: false, nonEmpty: inList))
        default:
            if inList && !listsHoldContainers { return .text(text()) }
            let lower = inList ? max(1, minimumListCount) : (number(0...3) == 0 ? 0 : max(1, minimumListCount))
            var count = number(lower...max(lower, 4))
            if count > 0 { count = max(count, minimumListCount) }
            return .list((0..<count).map { _ in value(depth: depth + 1, inList: true) })
        }
    }
}
