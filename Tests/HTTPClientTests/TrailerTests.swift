import Foundation
import HTTPClient
import HTTPCore
import TestSupport
import Testing

/// Trailer sections (RFC 9110 §6.5): handed on from a transport that delivers them through
/// the client's every way of reading a body, and, on Linux, the platform defect that a
/// response with trailers ends a process using URLSession (issue 29, item 17).
@Suite("Trailer fields")
struct TrailerTests {
    /// A transport whose answer is `hello` followed by `X-Checksum: abc123`, made known only
    /// once the body has been read to its end, as AsyncHTTPClient's are.
    struct TrailingTransport: ClientTransport {
        func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
            let ended = Locked(false)
            // The trailers are known once the last chunk has been taken.
            let chunks = { @Sendable in
                let remaining = Locked([Data("hel".utf8), Data("lo".utf8)])
                return AsyncThrowingStream<Data, any Error> {
                    let next = remaining.withLock { $0.isEmpty ? nil : $0.removeFirst() }
                    if next == nil { ended.withLock { $0 = true } }
                    return next
                }
            }
            let body = HTTPBody(
                length: .unknown, iterationBehavior: .single, makeSequence: chunks,
                trailerFields: { ended.withLock { $0 } ? try? HTTPFields(["X-Checksum": "abc123"]) : nil })
            return TransportResponse(head: HTTPResponse(status: .ok), body: body)
        }
    }

    static let checksum = try! HTTPFieldName("X-Checksum")

    @Test("a body made with a trailer section returns it; bodies in memory or a file have none")
    func bodyCarriesItsTrailers() async throws {
        let response = try await TrailingTransport().send(
            HTTPRequest(url: URL(string: "https://example.com/")!), options: TransportOptions())
        let body = try #require(response.body)
        #expect(body.trailerFields == nil)
        #expect(try await body.collect(upTo: 100) == Data("hello".utf8))
        #expect(body.trailerFields?[Self.checksum] == "abc123")
        #expect(HTTPBody("text").trailerFields == nil)
    }

    @Test("send, download and stream all hand on the transport's trailers, through a HostLimiter and coalescing too")
    func clientHandsThemOn() async throws {
        let transports: [any ClientTransport] = [
            TrailingTransport(), HostLimiter(wrapping: TrailingTransport(), maxConcurrentPerHost: 1),
            CoalescingTransport(wrapping: TrailingTransport()),
        ]
        for transport in transports {
            let client = Client(baseURL: URL(string: "https://example.com/")!, transport: transport)
            let sent = try await client.send(HTTPRequest(url: URL(string: "a")!))
            #expect(sent.body == Data("hello".utf8))
            #expect(sent.trailerFields?[Self.checksum] == "abc123")
            // Trailer fields are never merged into the header section (RFC 9110 §6.5.1).
            #expect(sent.headerFields[Self.checksum] == nil)

            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("heron-trailers-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let downloaded = try await client.download(
                HTTPRequest(url: URL(string: "a")!), to: folder.appendingPathComponent("body"))
            #expect(try Data(contentsOf: downloaded.body) == Data("hello".utf8))
            #expect(downloaded.trailerFields?[Self.checksum] == "abc123")

            let streamed = try await client.stream(HTTPRequest(url: URL(string: "a")!))
            #expect(streamed.trailerFields == nil)
            var received = Data()
            for try await chunk in streamed.body { received.append(chunk) }
            #expect(received == Data("hello".utf8))
            #expect(streamed.trailerFields?[Self.checksum] == "abc123")
            // A response mapped to another body keeps them.
            #expect(sent.map { $0.count }.trailerFields?[Self.checksum] == "abc123")
        }
    }

    /// The probe's executable name (its target in Package.swift).
    static let probeName = "HeronTrailerProbe"

    /// On Linux, swift-corelibs-foundation ends the process on a response with trailers, in
    /// Heron's client and in `URLSession` alike; the fault server's `/trailers` sends one over
    /// plain HTTP/1.1 (TLS is not needed: the defect is in how the response head is parsed).
    /// Should a toolchain fix it, this test fails, and the transports guide's warning goes.
    /// Elsewhere, URLSession reads the response and drops its trailers.
    @Test(
        "a response with trailers over URLSession ends a Linux process in FoundationNetworking",
        arguments: ["client", "urlsession"])
    func urlSessionOnLinuxCrashes(mode: String) async throws {
        let probe = try #require(
            ProbeExecutable.find(Self.probeName),
            "\(Self.probeName) not found: build it with `swift build --build-tests`")
        let url = try TestServers.faultServer().appendingPathComponent("trailers")
        let output = try await ExternalProcess.run(probe.path, [url.absoluteString, mode])
        let errors = String(decoding: output.standardError, as: UTF8.self)
        #if os(Linux)
        #expect(output.status != 0 && output.status != 1, "the probe exited with \(output.status): \(errors)")
        #expect(errors.contains("Fatal error: Transfer completed, but there's no response."), "\(errors)")
        #expect(output.standardOutput.isEmpty)
        #else
        #expect(output.status == 0, "\(errors)")
        #expect(String(decoding: output.standardOutput, as: UTF8.self) == "status 200 trailers 0\n")
        #endif
    }
}
