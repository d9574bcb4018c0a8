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

    /// Runs `body` on a thread with a 512 KiB stack, the size of many server and dispatch
    /// threads (a stack overflow there kills the test process, failing the suite).
    static func onSmallStack(_ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                body()
                finished.resume()
            }
            thread.stackSize = 512 * 1024
            thread.start()
        }
    }

    /// A recursive type, as deep as its input.
    final class Chain: Codable, @unchecked Sendable {
        let next: Chain?
        let value: String?

        init(next: Chain?, value: String?) {
            self.next = next
            self.value = value
        }
    }

    @Test("a hostile key at the deepest level read, into a recursive type, decodes on a 512 KiB thread")
    func deepestKeyOnASmallStack() async throws {
        let key = "next" + String(repeating: "[next]", count: FormStyle.maximumDepth - 2) + "[value]"
        let decoded = Box()
        await Self.onSmallStack {
            decoded.set(try? FormDecoder().decode(Chain.self, from: "\(key)=bottom"))
        }
        var depth = 0
        var current = decoded.value
        while let node = current?.next {
            depth += 1
            current = node
        }
        // The key's parts: `next` and its copies, then `value`.
        #expect(depth == FormStyle.maximumDepth - 1)
        #expect(current?.value == "bottom")
        let deeper = "next" + String(repeating: "[next]", count: FormStyle.maximumDepth) + "[value]=x"
        #expect(throws: HTTPEncodingError.self) { try FormDecoder().decode(Chain.self, from: deeper) }
    }

    @Test("a recursive value at the deepest level encodes on a 512 KiB thread")
    func deepestValueOnASmallStack() async throws {
        var chain = Chain(next: nil, value: "bottom")
        for _ in 0..<(FormStyle.maximumDepth - 2) { chain = Chain(next: chain, value: nil) }
        let encoded = Box()
        await Self.onSmallStack { [chain] in encoded.set(try? FormEncoder().encodeQuery(chain)) }
        let query = try #require(encoded.text)
        #expect(query.hasSuffix("%5Bvalue%5D=bottom"))
    }

    /// A result handed from the small-stack thread back to the test.
    final class Box: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: Chain?
        private var storedText: String?

        var value: Chain? { lock.withLock { stored } }
        var text: String? { lock.withLock { storedText } }

        func set(_ chain: Chain?) { lock.withLock { stored = chain } }
        func set(_ text: String?) { lock.withLock { storedText = text } }
    }

    @Test("nesting up to the decoder's depth still encodes and reads back")
    func deepestAllowed() throws {
        let query = try FormEncoder().encodeQuery(parameters: Self.nested(FormStyle.maximumDepth))
        var tree = FormTree.text("bottom")
        for _ in 0..<FormStyle.maximumDepth { tree = .object(["k": tree]) }
        #expect(try FormDecoder().decode(FormTree.self, from: query) == tree)
    }
}
