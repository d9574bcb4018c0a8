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

    @Test("a quote never closed spoils its own member only: the directives after it apply (found by fuzzing)")
    func unclosedQuote() {
        // The fuzz target cache-control found a response whose `no-store` followed an
        // unclosed quote served as a hit: the quote had swallowed the rest of the field.
        let spoiled = CacheDirectives(parsing: #"max-age=60, prava="360Op, no-store,h=5"#)
        #expect(spoiled.has("no-store") && spoiled.has("h"))
        #expect(spoiled.seconds("max-age") == .value(60))
        // A malformed member counts by its name, without an argument.
        #expect(spoiled.has("prava") && spoiled.seconds("prava") == .invalid)
        // Found next: `no-store=0 pprav` hid the no-store it names.
        let junk = CacheDirectives(parsing: "max-age=60, no-store=0 pprav, max-stale=30-n")
        #expect(junk.has("no-store") && junk.seconds("max-stale") == .invalid)
        #expect(CacheDirectives(parsing: "max-age=60 seconds").seconds("max-age") == .invalid)
        #expect(CacheDirectives(parsing: "private=").has("private"))
        // A malformed no-cache is the unqualified one: validate every use.
        let noCache = CacheDirectives(parsing: #"no-cache="Set-Cookie, max-age=60"#)
        #expect(noCache.has("no-cache") && noCache.fieldNames(of: "no-cache").isEmpty)
        #expect(CachingTransport.requiresValidation(noCache))
        #expect(CacheDirectives(parsing: #""abc, no-store"#).has("no-store"))
        // A closed quoted string still hides what it holds, escapes and commas included.
        let quoted = CacheDirectives(parsing: #"ext="a\"b, no-store", max-age=5"#)
        #expect(!quoted.has("no-store") && quoted.has("ext") && quoted.seconds("max-age") == .value(5))
        // After an unclosed quote every later quote is text: linear, whatever the field holds.
        let many = String(repeating: #"\""#, count: 50_000) + ", no-store"
        #expect(CacheDirectives(parsing: #"a=""# + many).has("no-store"))
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
