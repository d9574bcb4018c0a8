import Foundation
import HTTPClientTesting
import HTTPCore
import TestSupport
import Testing

@testable import HTTPClient

/// Collects values from many tasks.
///
/// `@unchecked Sendable`: `items` is only read and written while `lock` is held.
final class Collector<Item: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Item] = []

    func append(_ item: Item) { lock.withLock { items.append(item) } }
    var values: [Item] { lock.withLock { items } }
    var count: Int { lock.withLock { items.count } }
}

/// An observer that records every event and lets a test wait for a call to finish.
final class RecordingObserver: ClientObserver, @unchecked Sendable {
    // `@unchecked Sendable`: `events` is only read and written while `lock` is held.
    private let lock = NSLock()
    private var events: [ClientEvent] = []

    func receive(_ event: ClientEvent) async { lock.withLock { events.append(event) } }

    var recorded: [ClientEvent] { lock.withLock { events } }

    /// Waits until `count` calls have finished, for at most `timeout`.
    func waitForFinished(_ count: Int = 1, timeout: Duration = .seconds(20)) async throws -> [ClientEvent] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let events = recorded
            if events.filter(\.isFinished).count >= count { return events }
            try await Task.sleep(for: .milliseconds(5))
        }
        Issue.record("observer did not see \(count) finished calls within \(timeout)")
        return recorded
    }
}

extension ClientEvent {
    var isFinished: Bool {
        if case .finished = kind { return true }
        return false
    }
    var isSent: Bool {
        if case .sent = kind { return true }
        return false
    }
    var label: String {
        switch kind {
        case .prepared: return "prepared"
        case .sent: return "sent"
        case .redirected: return "redirected"
        case .responseReceived: return "responseReceived"
        case .transportError: return "transportError"
        case .retryScheduled: return "retryScheduled"
        case .finished: return "finished"
        case .reconnecting: return "reconnecting"
        case .queued: return "queued"
        case .proxied: return "proxied"
        case .cookiesRefused: return "cookiesRefused"
        }
    }
}

/// An interceptor that records its calls under a name and applies scripted decisions.
struct ProbeInterceptor: Interceptor {
    let name: String
    let log: Collector<String>
    var decision: @Sendable (AttemptOutcome, InterceptorContext) -> InterceptorDecision = { _, _ in .proceed }

    func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) async throws {
        log.append("prepare \(name) #\(context.attempt)")
        try request.headerFields.append(name: HTTPFieldName("X-Trail"), value: name)
    }

    func decide(_ outcome: AttemptOutcome, context: inout InterceptorContext) async throws -> InterceptorDecision {
        log.append("decide \(name) #\(context.attempt)")
        return decision(outcome, context)
    }
}

enum Fixtures {
    static let base = URL(string: "https://api.test/v2")!

    static func request(_ path: String, method: HTTPMethod = .get, body: HTTPBody? = nil) -> HTTPRequest {
        HTTPRequest(method: method, url: URL(string: path)!, body: body)
    }

    /// A client over `stub`. Its timeout only catches a hang: the suite's start on 2 cores can
    /// hold a stubbed call for more than ten seconds.
    static func client(
        _ stub: StubTransport, interceptors: [any Interceptor] = [], observers: [any ClientObserver] = [],
        retry: RetryStack = .none, timeout: Duration? = .seconds(60), redirectLimit: Int = 10
    ) -> Client {
        Client(
            baseURL: base, transport: stub, interceptors: interceptors, observers: observers, retry: retry,
            redirectLimit: redirectLimit, timeout: timeout)
    }

    static func fields(_ pairs: KeyValuePairs<String, String>) -> HTTPFields {
        (try? HTTPFields(pairs)) ?? []
    }

    /// A one-shot stream body of `text`.
    static func oneShotBody(_ text: String) -> HTTPBody { .oneShot(text) }
}

extension RetryStack {
    /// A stack whose jitter source always returns `value`.
    func fixedRandom(_ value: Double) -> RetryStack {
        var copy = self
        copy.random = { value }
        return copy
    }
}
