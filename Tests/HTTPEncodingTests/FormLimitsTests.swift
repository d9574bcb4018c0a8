import Foundation
import HTTPEncoding
import Testing

/// Input the form format cannot carry gets a typed error naming where it is, never a
/// crash and never text that reads back as something else.
@Suite("Form encoder limits")
struct FormLimitsTests {
    struct Event: Encodable {
        var when: Date
    }

    static let strategies: [(String, DateEncodingStrategy)] = [
        ("iso8601", .iso8601), ("iso8601 fractional", .iso8601WithFractionalSeconds),
        ("seconds", .secondsSince1970), ("milliseconds", .millisecondsSince1970),
    ]

    @Test("a non-finite date is refused by every built-in strategy, naming its key path", arguments: strategies)
    func nonFiniteDate(name: String, strategy: DateEncodingStrategy) {
        for seconds in [Double.nan, .infinity, -.infinity] {
            let encoder = FormEncoder(dateEncodingStrategy: strategy)
            let typed = #expect(throws: HTTPEncodingError.self, "\(name) \(seconds)") {
                try encoder.encodeQuery(Event(when: Date(timeIntervalSince1970: seconds)))
            }
            #expect(typed?.code == .unsupportedValue)
            #expect(typed?.keyPath == ["when"])
            let untyped = #expect(throws: HTTPEncodingError.self, "\(name) \(seconds)") {
                try encoder.encodeQuery(parameters: ["at": [Date(timeIntervalSince1970: seconds)]])
            }
            #expect(untyped?.keyPath == ["at", "0"])
        }
    }

    @Test("a date beyond what ISO 8601 text can say is refused instead of written as a number")
    func isoOutOfRange() {
        let error = #expect(throws: HTTPEncodingError.self) {
            try DateEncodingStrategy.iso8601.encode(Date(timeIntervalSince1970: 1e15))
        }
        #expect(error?.code == .unsupportedValue)
    }

    /// A value nested `depth` levels deep: `{"k": {"k": … "bottom"}}`.
    static func nested(_ depth: Int) -> [String: Any] {
        var value: [String: Any] = ["k": "bottom"]
        for _ in 1..<depth { value = ["k": value] }
        return value
    }

    @Test("untyped parameters nested deeper than the decoder reads are refused, not overflowing the stack")
    func deepParameters() {
        var value = Self.nested(100_000)
        let error = #expect(throws: HTTPEncodingError.self) { try FormEncoder().encodeQuery(parameters: value) }
        #expect(error?.code == .unsupportedValue)
        #expect(error?.keyPath.count == FormStyle.maximumDepth)
        // Release one level at a time: releasing the value whole would recurse 100,000 deep.
        while let inner = value["k"] as? [String: Any] { value = inner }
    }

    @Test("a recursive Codable value nested too deep is refused, not overflowing the stack")
    func deepCodable() {
        final class Node: Encodable {
            let next: Node?
            init(next: Node?) { self.next = next }
        }
        var head: Node? = nil
        for _ in 0..<100_000 { head = Node(next: head) }
        let error = #expect(throws: HTTPEncodingError.self) { try FormEncoder().encodeQuery(head) }
        #expect(error?.code == .unsupportedValue)
        #expect(error?.keyPath.count == FormStyle.maximumDepth)
        // Release the chain one node at a time: releasing it whole would recurse 100,000 deep.
        while let current = head { head = current.next }
    }

    @Test("nesting up to the decoder's depth still encodes and reads back")
    func deepestAllowed() throws {
        let query = try FormEncoder().encodeQuery(parameters: Self.nested(FormStyle.maximumDepth))
        var tree = FormTree.text("bottom")
        for _ in 0..<FormStyle.maximumDepth { tree = .object(["k": tree]) }
        #expect(try FormDecoder().decode(FormTree.self, from: query) == tree)
    }
}
