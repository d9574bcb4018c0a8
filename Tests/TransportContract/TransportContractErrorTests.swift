import Foundation
import HTTPClient
import HTTPCore
import Testing

/// The same fault gives the same ``ClientError/Code`` on every transport.
@Suite("Transport contract: faults and timeouts")
struct TransportContractErrorTests {
    private func failure(
        _ subject: any ContractTransport, _ request: HTTPRequest, options: TransportOptions = TransportOptions(),
        fresh: Bool = false
    ) async -> ClientError? {
        let transport = fresh ? subject.make() : subject.shared
        return await #expect(throws: ClientError.self) {
            try await TransportFixture.data(transport.send(request, options: options))
        }
    }

    @Test(arguments: ContractTransports.all)
    func connectionResetIsConnectionLost(_ subject: any ContractTransport) async throws {
        let error = await failure(subject, try TransportFixture.request(.get, TransportFixture.fault("/reset")))
        #expect(error?.code == .connectionLost, "got \(String(describing: error))")
        #expect(error?.url?.path == "/reset")
        #expect(error?.underlying != nil)
    }

    @Test(arguments: ContractTransports.all)
    func bodyShorterThanContentLengthIsTruncatedBody(_ subject: any ContractTransport) async throws {
        let error = await failure(
            subject, try TransportFixture.request(.get, TransportFixture.fault("/truncate?declared=1000&send=10")))
        #expect(error?.code == .truncatedBody, "got \(String(describing: error))")
        #expect(error?.response?.status == .ok)
        #expect(error?.message.contains("10 of the 1000") == true)
    }

    /// A reset after part of the body is `truncatedBody` once the head was read; a reset
    /// that reaches the client before it read anything (the kernel then drops the bytes that
    /// came before it) is `connectionLost`, as a reset before any answer is.
    @Test(arguments: ContractTransports.all)
    func resetInsideTheBodyIsTruncatedBodyOrConnectionLost(_ subject: any ContractTransport) async throws {
        let error = await failure(
            subject,
            try TransportFixture.request(.get, TransportFixture.fault("/reset-mid-body?declared=100000&send=1000")))
        let described = error.map(String.init(describing:)) ?? "no error"
        if error?.response != nil {
            #expect(error?.code == .truncatedBody, "\(described)")
            #expect(error?.response?.status == .ok)
        } else {
            #expect(error?.code == .connectionLost, "\(described)")
        }
    }

    @Test(arguments: ContractTransports.all)
    func refusedConnectionIsCannotConnect(_ subject: any ContractTransport) async throws {
        let error = await failure(
            subject, try TransportFixture.request(.get, try #require(URL(string: "http://127.0.0.1:1/"))))
        #expect(error?.code == .cannotConnect, "got \(String(describing: error))")
        #expect(error?.underlying != nil)
    }

    @Test(arguments: ContractTransports.all)
    func unresolvableHostIsCannotConnect(_ subject: any ContractTransport) async throws {
        let error = await failure(
            subject, try TransportFixture.request(.get, try #require(URL(string: "http://heron.invalid/"))))
        #expect(error?.code == .cannotConnect, "got \(String(describing: error))")
    }

    /// The fault server's `/delay` answers after 4 s: with a 1 s idle timeout the request
    /// fails. The fault server gives each connection a thread of its own, so the request is
    /// read at once even while the suite keeps httpbin busy (behind a busy httpbin, URLSession on
    /// Linux let the idle time pass unnoticed); a transport of its own, so no other test's
    /// connection is in the way.
    @Test(arguments: ContractTransports.all)
    func idleTimeoutPastIsTimedOut(_ subject: any ContractTransport) async throws {
        let error = await failure(
            subject, try TransportFixture.request(.get, TransportFixture.fault("/delay?seconds=4")),
            options: TransportOptions(idleTimeout: .seconds(1)), fresh: true)
        #expect(error?.code == .timedOut, "got \(String(describing: error))")
    }

    /// A body that drips a byte at a time more slowly than the idle timeout ends with it.
    @Test(arguments: ContractTransports.all)
    func slowDripPastTheIdleTimeoutIsTimedOut(_ subject: any ContractTransport) async throws {
        let start = ContinuousClock.now
        let error = await failure(
            subject, try TransportFixture.request(.get, TransportFixture.fault("/slow?bytes=10&chunks=10&interval=3")),
            options: TransportOptions(idleTimeout: .seconds(1), awaitsWholeBody: true))
        #expect(error?.code == .timedOut, "got \(String(describing: error))")
        #expect(ContinuousClock.now - start < .seconds(25))
    }

    /// A short idle timeout must not fail an answer that comes within it.
    @Test(arguments: ContractTransports.all)
    func subSecondIdleTimeoutDoesNotFailAPromptAnswer(_ subject: any ContractTransport) async throws {
        // A starved machine can hold a 50 ms answer past 900 ms now and then (a cold CI run
        // did, once): a timeout in each of three tries is what would show a transport that
        // misreads a short idle timeout.
        let response = try await HoggingStep.timed {
            try await StarvedStart.retryingTimeouts {
                try await subject.shared.send(
                    try TransportFixture.request(.get, TransportFixture.fault("/delay?seconds=0.05")),
                    options: TransportOptions(idleTimeout: .milliseconds(900)))
            }
        }
        #expect(response.head.status == .ok)
    }

    @Test(
        "a body longer than its Content-Length is cut at the declared length (RFC 9112 §6.3)",
        arguments: ContractTransports.all)
    func overlongBodyIsCut(_ subject: any ContractTransport) async throws {
        let client = Client(
            baseURL: try TransportFixture.fault(""), transport: subject.shared, retry: .none)
        let response = try await client.send(.get("overlong?declared=10&send=100000"))
        #expect(response.body == Data((0..<10).map { UInt8($0) }))
        // The excess was not read as the next response (the server announced the close): the
        // next call is answered normally.
        #expect(try await client.send(.get("bytes?n=5")).body == Data([0, 1, 2, 3, 4]))
    }

    @Test(
        "a response head far beyond reason (100,000 fields) fails with responseTooLarge, not retried",
        arguments: ContractTransports.all)
    func hugeHead(_ subject: any ContractTransport) async throws {
        let client = Client(baseURL: try TransportFixture.fault(""), transport: subject.shared, timeout: .seconds(20))
        // Alone: on Linux it holds URLSession's work queue, every session's, for seconds.
        let error = await HoggingStep.alone {
            await #expect(throws: ClientError.self) {
                _ = try await client.send(.get("huge-head?fields=100000"))
            }
        }
        #expect(error?.code == .responseTooLarge, "got \(String(describing: error))")
        #expect(error?.response == nil)
        #expect(error?.attempts.count == 1)
    }
}
