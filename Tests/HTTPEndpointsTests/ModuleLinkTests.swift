import HTTPEndpoints
import Testing

@testable import HTTPCore

@Suite("HTTPEndpoints module")
struct ModuleLinkTests {
    @Test("links against every lower layer")
    func linksLowerLayers() {
        // The endpoint layer lands with its own issue; until then this checks that the
        // module graph resolves and HTTPCore's vocabulary is reachable from it.
        #expect(HTTPMethod.get.isIdempotent)
    }
}
