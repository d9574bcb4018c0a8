import Foundation
import Testing

@testable import HTTPEncoding

@Suite("JSON Lines and JSON text sequences")
struct JSONStreamTests {
    struct Entry: Codable, Sendable, Equatable {
        var n: Int
        var text: String
    }

    /// `bytes` as a stream of chunks of `size` bytes.
    private func chunks(_ text: String, size: Int) -> AsyncStream<Data> {
        let bytes = Data(text.utf8)
        return AsyncStream { continuation in
            var start = 0
            while start < bytes.count {
                continuation.yield(bytes[start..<min(bytes.count, start + size)])
                start += size
            }
            continuation.finish()
        }
    }

    private func collect<S: AsyncSequence>(_ sequence: S) async throws -> [S.Element] {
        var out: [S.Element] = []
        for try await element in sequence { out.append(element) }
        return out
    }

    @Test("JSON Lines cut anywhere: blank lines skipped, CR LF accepted, the last LF optional")
    func jsonLines() async throws {
        let text = "{\"n\":1,\"text\":\"é🎉\"}\r\n\n  \n{\"n\":2,\"text\":\"b\"}\n{\"n\":3,\"text\":\"c\"}"
        for size in [1, 2, 3, 7, 64] {
            let entries = try await collect(chunks(text, size: size).jsonLines().decoded(as: Entry.self))
            #expect(entries == [Entry(n: 1, text: "é🎉"), Entry(n: 2, text: "b"), Entry(n: 3, text: "c")])
        }
    }

    @Test("a line that is not the type fails naming its line number; a cut line is not passed off")
    func jsonLinesErrors() async throws {
        let wrong = chunks("{\"n\":1,\"text\":\"a\"}\n\n{\"n\":\"two\",\"text\":\"b\"}\n", size: 5)
        let error = await #expect(throws: HTTPEncodingError.self) {
            _ = try await collect(wrong.jsonLines().decoded(as: Entry.self))
        }
        #expect(error?.code == .jsonDecodingFailed)
        #expect(error?.reason.contains("line 3") == true)
        #expect(error?.keyPath == ["n"])
        let cut = chunks("{\"n\":1,\"text\":\"a\"}\n{\"n\":2,\"te", size: 4)
        await #expect(throws: HTTPEncodingError.self) { _ = try await collect(cut.jsonLines().decoded(as: Entry.self)) }
    }

    @Test("a line outgrowing the limit fails with elementTooLarge")
    func jsonLinesLimit() async throws {
        let long = chunks("{\"n\":1,\"text\":\"\(String(repeating: "a", count: 500))\"}\n", size: 16)
        let error = await #expect(throws: HTTPEncodingError.self) {
            _ = try await collect(long.jsonLines(maximumLineSize: 100))
        }
        #expect(error?.code == .elementTooLarge)
        #expect(error?.reason.contains("line 1") == true)
    }

    @Test("a line outgrowing the limit inside one chunk fails too, naming the limit")
    func jsonLinesLimitInOneChunk() async throws {
        let text = "{\"n\":1,\"text\":\"a\"}\n{\"n\":2,\"text\":\"\(String(repeating: "a", count: 500))\"}\n"
        let error = await #expect(throws: HTTPEncodingError.self) {
            _ = try await collect(chunks(text, size: 1 << 20).jsonLines(maximumLineSize: 100))
        }
        #expect(error?.code == .elementTooLarge)
        #expect(error?.reason.contains("line 2 outgrew its limit of 100 bytes") == true)
        // A line finished in a later chunk is checked whole, as is one exactly at the limit.
        let finished = chunks("{\"n\":1,\"text\":\"\(String(repeating: "b", count: 500))\"}\n", size: 10)
        await #expect(throws: HTTPEncodingError.self) {
            _ = try await collect(finished.jsonLines(maximumLineSize: 100))
        }
        let exact = String(repeating: " ", count: 99) + "1"
        #expect(
            try await collect(chunks(exact + "\n", size: 1 << 20).jsonLines(maximumLineSize: 100)) == [Data(exact.utf8)]
        )
    }

    @Test("a record outgrowing the limit inside one chunk fails, naming the limit")
    func textSequenceLimitInOneChunk() async throws {
        let text =
            "\u{1E}{\"n\":1,\"text\":\"\(String(repeating: "a", count: 500))\"}\n\u{1E}{\"n\":2,\"text\":\"b\"}\n"
        let error = await #expect(throws: HTTPEncodingError.self) {
            _ = try await collect(chunks(text, size: 1 << 20).jsonTextSequence(maximumRecordSize: 100))
        }
        #expect(error?.code == .elementTooLarge)
        #expect(error?.reason.contains("outgrew its limit of 100 bytes") == true)
    }

    @Test("JSON text sequences: RS framing cut anywhere, empty records ignored")
    func textSequence() async throws {
        let text = "\u{1E}{\"n\":1,\"text\":\"a\"}\n\u{1E}\u{1E}\u{1E}{\"n\":2,\"text\":\"b\"}\n"
        for size in [1, 3, 64] {
            let entries = try await collect(chunks(text, size: size).jsonTextSequence().decoded(as: Entry.self))
            #expect(entries == [Entry(n: 1, text: "a"), Entry(n: 2, text: "b")])
        }
    }

    @Test("RFC 7464: a number or literal without whitespace after it and a cut text are dropped and reported")
    func textSequenceTruncation() async throws {
        let reports = ReportBox()
        let text = "\u{1E}42\n\u{1E}4\u{1E}true\u{1E}{\"n\":\u{1E}null \u{1E}\"s\"\u{1E}7"
        let values = try await collect(
            chunks(text, size: 2).jsonTextSequence(onTruncatedRecord: { reports.add($0) })
                .decoded(as: JSONScalar.self))
        #expect(values == [.number(42), .null, .string("s")])
        let dropped = reports.all
        #expect(dropped.map(\.code) == Array(repeating: .truncatedRecord, count: 4))
        #expect(dropped.map(\.value) == ["4", "true", "{\"n\":", "7"])
        #expect(dropped[0].reason.contains("record 2"))
    }

    @Test("a record that is JSON but not the type fails the sequence")
    func textSequenceTypeMismatch() async throws {
        let error = await #expect(throws: HTTPEncodingError.self) {
            _ = try await collect(chunks("\u{1E}{\"n\":true}\n", size: 3).jsonTextSequence().decoded(as: Entry.self))
        }
        #expect(error?.code == .jsonDecodingFailed)
        #expect(error?.reason.contains("record 1") == true)
    }

    /// A top-level JSON scalar.
    enum JSONScalar: Decodable, Equatable, Sendable {
        case number(Double)
        case string(String)
        case bool(Bool)
        case null
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let bool = try? container.decode(Bool.self) {
                self = .bool(bool)
            } else if let number = try? container.decode(Double.self) {
                self = .number(number)
            } else {
                self = .string(try container.decode(String.self))
            }
        }
    }

    final class ReportBox: Sendable {
        private let reports = Locked<[HTTPEncodingError]>([])
        func add(_ error: HTTPEncodingError) { reports.withLock { $0.append(error) } }
        var all: [HTTPEncodingError] { reports.withLock { $0 } }
    }
}
