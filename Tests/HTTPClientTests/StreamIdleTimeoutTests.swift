import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import HTTPClient

@Suite("A streamed body's idle timeout")
struct StreamIdleTimeoutTests {
    @Test("with URLSessionTransport the attempt's timeout ends a streamed body whose server goes quiet for longer")
    func quietServerTimesOut() async throws {
        let base = try TestServers.faultServer()
        let client = Client(timeout: .seconds(1))
        // 3 bytes in 3 chunks, 20 s apart: the first arrives at once, then nothing for 20 s.
        let url = base.appending(path: "slow").appending(queryItems: [
            URLQueryItem(name: "bytes", value: "3"), URLQueryItem(name: "chunks", value: "3"),
            URLQueryItem(name: "interval", value: "20"),
        ])
        let response = try await client.stream(HTTPRequest(method: .get, url: url))
        let clock = ContinuousClock()
        let start = clock.now
        var received = 0
        let error = await #expect(throws: ClientError.self) {
            for try await chunk in response.body { received += chunk.count }
        }
        #expect(error?.code == .timedOut)
        #expect(received == 1)
        // Ended by the timeout, long before the next chunk was due (20 s).
        #expect(clock.now - start < .seconds(15))
    }
}
