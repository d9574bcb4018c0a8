import Foundation
import HTTPCore
import Testing

@testable import HTTPCache
@testable import HTTPClient

@Suite("Cache-Control arguments")
struct CacheDirectivesTests: CachingClientSuite {
    let base = URL(string: "https://api.example.com")!

    @Test("a quoted delta-seconds argument counts as the token form (RFC 9111 §5.2)")
    func quotedSeconds() {
        #expect(CacheDirectives(parsing: #"max-age="3600""#).seconds("max-age") == .value(3600))
        #expect(CacheDirectives(parsing: #"max-age="-1""#).seconds("max-age") == .invalid)
        #expect(CacheDirectives(parsing: #"max-age="""#).seconds("max-age") == .invalid)
        #expect(CacheDirectives(parsing: #"ext="max-age=5""#).seconds("max-age") == nil)
    }

    @Test("a response with max-age=\"3600\" is served fresh from the cache")
    func quotedMaxAgeIsFresh() async throws {
        let clock = ManualClock()
        let origin = ScriptedOrigin { _, number in
            ScriptedOrigin.response(.ok, ["Cache-Control": #"max-age="3600""#], body: "\(number)", date: clock.now)
        }
        let (client, _) = makeClient(origin, clock: clock)
        _ = try await client.send(.get("a"))
        clock.advance(60)
        let second = try await client.send(.get("a"))
        #expect(second.cacheOutcome == .hit && second.text == "1")
        #expect(origin.count == 1)
    }
}
