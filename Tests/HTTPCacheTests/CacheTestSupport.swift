import Foundation
import HTTPCore

@testable import HTTPCache
@testable import HTTPClient

/// A clock a test moves by hand.
final class ManualClock: Sendable {
    private let current: Locked<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { current = Locked(start) }

    var now: Date { current.withLock { $0 } }

    func advance(_ seconds: Double) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }

    var cacheClock: CacheClock { CacheClock { [self] in now } }
}

/// An origin in memory: answers each request with what `answer` makes of it and counts them.
final class ScriptedOrigin: ClientTransport {
    typealias Answer = @Sendable (HTTPRequest, Int) throws -> TransportResponse

    private let answer: Answer
    private let log = Locked<[HTTPRequest]>([])
    let delay: Duration

    init(delay: Duration = .zero, _ answer: @escaping Answer) {
        self.answer = answer
        self.delay = delay
    }

    var requests: [HTTPRequest] { log.withLock { $0 } }
    var count: Int { log.withLock { $0.count } }

    func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
        let number = log.withLock { log in
            log.append(request)
            return log.count
        }
        if delay > .zero { try await Task.sleep(for: delay) }
        return try answer(request, number)
    }

    /// A response with `fields` (pairs), the body `body`, and `Date` at `date` when given.
    static func response(
        _ status: HTTPStatus = .ok, _ fields: KeyValuePairs<String, String> = [:], body: String = "body",
        date: Date? = nil
    ) -> TransportResponse {
        var head = HTTPResponse(status: status, headerFields: try! HTTPFields(fields))
        if let date { head.headerFields.append(try! HTTPField(name: .date, value: HTTPDate.format(date))) }
        let hasBody = status.code != 204 && status.code != 304
        return TransportResponse(head: head, body: hasBody ? HTTPBody(body) : nil)
    }
}

extension ClientResponse<Data> {
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// A suite whose calls go to `base` through a `CachingTransport` over a scripted origin.
protocol CachingClientSuite {
    /// Where the suite's requests go.
    var base: URL { get }
}

extension CachingClientSuite {
    /// A client over a memory cache of `origin` on `clock`, without retries, and the cache.
    func makeClient(
        _ origin: ScriptedOrigin, clock: ManualClock, configure: (inout CacheConfiguration) -> Void = { _ in }
    )
        -> (Client, CachingTransport)
    {
        var configuration = CacheConfiguration()
        configuration.clock = clock.cacheClock
        configure(&configuration)
        let cache = CachingTransport(wrapping: origin, configuration: configuration)
        return (Client(baseURL: base, transport: cache, retry: .none), cache)
    }
}
