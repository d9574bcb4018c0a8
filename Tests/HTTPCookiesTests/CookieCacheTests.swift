import Foundation
import HTTPCache
import HTTPClient
import HTTPCore
import TestSupport
import Testing

@testable import HTTPCookies

@Suite("A cookie jar beside the HTTP cache")
struct CookieCacheTests {
    @Test("the cache keeps each jar's session apart: what one user's cookies fetched is never another's")
    func partitionsByJarCookies() async throws {
        let httpbin = try TestServers.httpbin()
        // One cache for the three clients, as one app's transport; each client its own jar.
        let cache = CachingTransport(wrapping: URLSessionTransport(), storage: MemoryCacheStorage())
        let alice = Client(baseURL: httpbin, transport: cache, cookies: CookieJar())
        let bob = Client(baseURL: httpbin, transport: cache, cookies: CookieJar())
        let anonymous = Client(baseURL: httpbin, transport: cache)
        try await alice.send(.get("cookies/set?user=alice"))
        try await bob.send(.get("cookies/set?user=bob"))
        let first = try await alice.send(.get("cache/60"))  // Cache-Control: public, max-age=60
        #expect(first.cacheOutcome == .miss)
        #expect(first.request.headerFields[.cookie] == "user=alice")
        #expect(try await alice.send(.get("cache/60")).cacheOutcome == .hit)
        // Bob's cookie and no cookie at all are other partitions: both go to the origin.
        #expect(try await bob.send(.get("cache/60")).cacheOutcome == .miss)
        #expect(try await anonymous.send(.get("cache/60")).cacheOutcome == .miss)
        #expect(try await bob.send(.get("cache/60")).cacheOutcome == .hit)
    }
}
