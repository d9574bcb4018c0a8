import Foundation
import HTTPCore
import Testing

@testable import HTTPCache
@testable import HTTPClient

/// The default partition keeps what one user's credentials fetched from every other user:
/// a session cookie counts as much as a token, and a request's own `Host` names another site.
@Suite("Cache partitions by credentials and Host")
struct CachePartitionTests: CachingClientSuite {
    let base = URL(string: "https://api.example.com")!

    /// An origin whose private answers name the cookie, token or host they were made for.
    func privateOrigin(_ clock: ManualClock) -> ScriptedOrigin {
        let apiKey = try! HTTPFieldName("X-Api-Key")
        return ScriptedOrigin { request, _ in
            let fields = request.headerFields
            let who =
                fields[.cookie] ?? fields[.authorization] ?? fields[.proxyAuthorization] ?? fields[apiKey]
                ?? fields[.host] ?? "anonymous"
            return ScriptedOrigin.response(
                .ok, ["Cache-Control": "private, max-age=600", "Set-Cookie": "seen=\(who)"], body: who,
                date: clock.now)
        }
    }

    @Test(
        "a private answer to one session cookie is never a hit for another",
        // (A request's Proxy-Authorization never reaches a transport: the client drops it, as a
        // proxy's credentials are given in its Proxy.)
        arguments: ["Cookie", "Authorization"])
    func credentialsSeparate(field: String) async throws {
        let clock = ManualClock()
        let origin = privateOrigin(clock)
        let (client, _) = makeClient(origin, clock: clock)
        let alice = try await client.send(.get("me").header(field, "session=alice"))
        let bob = try await client.send(.get("me").header(field, "session=bob"))
        let aliceAgain = try await client.send(.get("me").header(field, "session=alice"))
        let nobody = try await client.send(.get("me"))
        #expect(alice.text == "session=alice" && bob.text == "session=bob")
        #expect(bob.cacheOutcome == .miss)
        #expect(aliceAgain.cacheOutcome == .hit && aliceAgain.text == "session=alice")
        #expect(nobody.cacheOutcome == .miss && nobody.text == "anonymous")
        #expect(origin.count == 3)
    }

    @Test("a field marked as a credential separates users too; unmarked, it does not")
    func markedFieldsSeparate() async throws {
        let apiKey = try HTTPFieldName("X-Api-Key")
        let clock = ManualClock()
        let marked = privateOrigin(clock)
        let (client, _) = makeClient(marked, clock: clock) { $0.partition = .byCredentials(including: [apiKey]) }
        _ = try await client.send(.get("me").header(apiKey, "key-a"))
        let other = try await client.send(.get("me").header(apiKey, "key-b"))
        #expect(other.cacheOutcome == .miss && other.text == "key-b")

        let unmarked = privateOrigin(clock)
        let (shared, _) = makeClient(unmarked, clock: clock)
        _ = try await shared.send(.get("me").header(apiKey, "key-a"))
        #expect(try await shared.send(.get("me").header(apiKey, "key-b")).cacheOutcome == .hit)
    }

    @Test("a request's own Host field is part of the key, whatever the partition rule")
    func hostSeparates() async throws {
        let clock = ManualClock()
        let origin = privateOrigin(clock)
        let (client, _) = makeClient(origin, clock: clock) { $0.partition = .shared }
        _ = try await client.send(.get("page").header(.host, "tenant-a.example.com"))
        let other = try await client.send(.get("page").header(.host, "tenant-b.example.com"))
        let again = try await client.send(.get("page").header(.host, "TENANT-A.example.com"))
        #expect(other.cacheOutcome == .miss && other.text == "tenant-b.example.com")
        #expect(again.cacheOutcome == .hit && again.text == "tenant-a.example.com")
    }

    @Test("a stored response drops Set-Cookie: a hit never sets the first user's cookie")
    func storedHeadsDropSetCookie() async throws {
        let clock = ManualClock()
        let origin = privateOrigin(clock)
        let (client, _) = makeClient(origin, clock: clock) { $0.partition = .shared }
        let first = try await client.send(.get("page"))
        let hit = try await client.send(.get("page"))
        #expect(first.headerFields[.setCookie] == "seen=anonymous")
        #expect(hit.cacheOutcome == .hit && hit.headerFields[.setCookie] == nil)
    }
}
