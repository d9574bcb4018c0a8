import Foundation
import HTTPEncoding
import Testing

/// Randomly generated nested values (seeded, so every run is the same) encoded by
/// `FormEncoder` and read back by PHP's `parse_str` and by `FormDecoder`, which must give
/// back exactly the same structure. See `FormTreeGenerator` for the values left out.
@Suite("Form round trips")
struct FormRoundTripTests {
    static let casesPerStyle = 250

    static func trees(seed: UInt64, configure: (inout FormTreeGenerator) -> Void = { _ in }) -> [FormTree] {
        var generator = FormTreeGenerator(seed: seed)
        configure(&generator)
        return (0..<casesPerStyle).map { _ in generator.topLevel() }
    }

    static func firstMismatch(_ expected: [FormTree], _ actual: [FormTree], queries: [String]) -> String? {
        for (index, (want, got)) in zip(expected, actual).enumerated() where want != got {
            return "case \(index): query \(queries[index])\n expected \(want)\n got      \(got)"
        }
        return nil
    }

    @Test(
        "PHP parse_str reads bracket-style queries and bodies back to the same structure",
        arguments: [
            ("brackets, query", FormStyle(), UInt64(1)),
            ("literal brackets, body spaces", FormStyle(spaces: .plus, brackets: .literal), 2),
            ("indexed arrays of containers", FormStyle(arrays: .indexed), 3),
        ])
    func php(what: String, style: FormStyle, seed: UInt64) async throws {
        let trees = Self.trees(seed: seed) { $0.listsHoldContainers = style.arrays == .indexed }
        let encoder = FormEncoder(style: style)
        let queries = try trees.map { try encoder.encodeQuery($0) }
        let parsed = try await PHPPeer.parse(queries)
        let mismatch = Self.firstMismatch(trees.map(\.pruned), parsed, queries: queries)
        #expect(mismatch == nil, "\(what): \(mismatch ?? "")")
    }

    @Test(
        "FormDecoder reads every style back to the same structure",
        arguments: [
            ("brackets", FormStyle(), UInt64(11)),
            ("literal brackets, plus", FormStyle(spaces: .plus, brackets: .literal), 12),
            ("indexed", FormStyle(arrays: .indexed), 13),
            ("no brackets", FormStyle(arrays: .noBrackets), 14),
            ("dots", FormStyle(nesting: .dots), 15),
            ("dots, indexed", FormStyle(arrays: .indexed, nesting: .dots), 16),
            ("as encoded", FormStyle(keyOrder: .asEncoded), 17),
        ])
    func ownDecoder(what: String, style: FormStyle, seed: UInt64) throws {
        let trees = Self.trees(seed: seed) { generator in
            generator.listsHoldContainers = style.arrays == .indexed
            generator.minimumListCount = style.arrays == .noBrackets ? 2 : 0
            generator.dotsInKeys = !style.nesting.isDots
        }
        let encoder = FormEncoder(style: style)
        let decoder = FormDecoder(style: style)
        let queries = try trees.map { try encoder.encodeQuery($0) }
        let decoded = try queries.map { try decoder.decode(FormTree.self, from: $0) }
        let mismatch = Self.firstMismatch(trees.map(\.pruned), decoded, queries: queries)
        #expect(mismatch == nil, "\(what): \(mismatch ?? "")")
    }

    @Test("deep nesting survives both decoders")
    func deepNesting() async throws {
        var tree = FormTree.text("bottom & more")
        for level in (0..<40).reversed() { tree = .object(["k\(level)": tree]) }
        let query = try FormEncoder().encodeQuery(tree)
        #expect(try FormDecoder().decode(FormTree.self, from: query) == tree)
        let parsed = try await PHPPeer.parse([query])
        #expect(parsed == [tree])
    }

    @Test("the same value always encodes to the same bytes")
    func deterministic() throws {
        let trees = Self.trees(seed: 99)
        let encoder = FormEncoder()
        for tree in trees.prefix(50) {
            // A fresh dictionary with the same contents may iterate in another order.
            let copy = try FormDecoder().decode(FormTree.self, from: encoder.encodeQuery(tree))
            #expect(try encoder.encodeQuery(copy) == encoder.encodeQuery(tree))
        }
    }
}

extension FormStyle.Nesting {
    var isDots: Bool { self == .dots }
}
