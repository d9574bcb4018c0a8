import Foundation
import HTTPCore
import Testing

@testable import HTTPCache
@testable import HTTPClient

/// A `Vary` no origin needs (thousands of names) must cost one linear parse, never work on
/// every later lookup: a response nominating more than `VaryRule.nameLimit` names is passed
/// on and not stored.
@Suite("A hostile Vary")
struct HostileVaryTests: CachingClientSuite {
    let base = URL(string: "https://api.example.com")!

    /// `count` distinct field names, `X-V0, X-V1, …`, as one `Vary` value.
    static func varyValue(names count: Int) -> String {
        (0..<count).map { "X-V\($0)" }.joined(separator: ", ")
    }

    @Test("a response whose Vary nominates 25,000 names is passed on and not stored")
    func hugeVaryIsNotStored() async throws {
        let clock = ManualClock()
        let vary = Self.varyValue(names: 25_000)
        let origin = ScriptedOrigin { _, number in
            ScriptedOrigin.response(
                .ok, ["Cache-Control": "max-age=600", "Vary": vary], body: "\(number)", date: clock.now)
        }
        let (client, cache) = makeClient(origin, clock: clock)
        let first = try await client.send(.get("a"))
        let second = try await client.send(.get("a"))
        #expect(first.text == "1" && second.text == "2")
        #expect(second.cacheOutcome == .miss)
        #expect(origin.count == 2)
        #expect(cache.counters.stores == 0)
    }

    @Test("a Vary of nameLimit distinct names, repeats not counted, is stored and matched")
    func varyAtTheLimitIsStored() async throws {
        let clock = ManualClock()
        let names = Self.varyValue(names: VaryRule.nameLimit)
        let repeats = Array(repeating: "x-v0", count: 10_000).joined(separator: ",")
        let origin = ScriptedOrigin { _, number in
            ScriptedOrigin.response(
                .ok, ["Cache-Control": "max-age=600", "Vary": names, "Vary": repeats], body: "\(number)",
                date: clock.now)
        }
        let (client, cache) = makeClient(origin, clock: clock)
        _ = try await client.send(.get("a").header("X-V1", "one"))
        let same = try await client.send(.get("a").header("X-V1", "one"))
        let other = try await client.send(.get("a").header("X-V1", "two"))
        #expect(same.cacheOutcome == .hit && same.text == "1")
        #expect(other.cacheOutcome == .miss && other.text == "2")
        #expect(cache.counters.stores == 2)
    }

    @Test("parsing stops one name past the limit, and an entry holds its names parsed once")
    func parsingIsBounded() throws {
        var fields = HTTPFields()
        try fields.append(name: .vary, value: Self.varyValue(names: 25_000))
        #expect(VaryRule.names(in: fields).count == VaryRule.nameLimit + 1)
        try fields.set(.vary, "Accept-Language, accept-language,, ACCEPT")
        #expect(VaryRule.names(in: fields) == ["accept-language", "accept"])

        var entry = CacheEntry(
            key: CacheKey(partition: "", uri: "https://api.example.com/a"), head: HTTPResponse(status: .ok),
            requestTime: Date(), responseTime: Date())
        #expect(entry.varyNames.isEmpty)
        entry.head.headerFields = fields
        #expect(entry.varyNames == ["accept-language", "accept"])
    }
}
