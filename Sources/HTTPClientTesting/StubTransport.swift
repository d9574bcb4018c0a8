import Foundation
import HTTPClient
import HTTPCore

/// A transport that answers from a script and records every request: for tests of code
/// that uses a `Client`, with no network.
///
/// Replies come, in this order of preference, from the queue filled by ``enqueue(_:)``
/// (each used once, whatever the request), from the first rule added with
/// ``on(_:reply:)-(_,[StubTransport.Reply])`` whose matcher accepts the request (a rule's replies are used in turn,
/// its last one repeating), then from the fallback reply. A request nothing answers fails
/// with `ClientError.Code.invalidRequest` naming it.
///
/// Request bodies are read as a real transport would (a one-shot stream body is consumed)
/// and recorded, with upload progress reported. Response bodies arrive in chunks of 16 KiB,
/// as from a network. Safe to use from many tasks at once.
///
/// ```swift
/// let stub = StubTransport()
/// stub.on(.path("/users/42"), reply: .status(.ok, body: Data(#"{"id":42}"#.utf8)))
/// stub.on(.method(.post), reply: [.status(.serviceUnavailable), .status(.created)])
/// let client = Client(baseURL: URL(string: "https://api.test")!, transport: stub)
/// _ = try await client.send(HTTPRequest(url: URL(string: "users/42")!))
/// print(stub.requests.map(\.url.path))  // ["/users/42"]
/// ```
public final class StubTransport: ClientTransport {
    /// The script and the record, shared by every request.
    private struct Script {
        var queue: [Reply] = []
        var rules: [(matcher: Matcher, replies: [Reply], next: Int)] = []
        var recorded: [RecordedRequest] = []
    }

    private let script = Locked(Script())
    private let fallback: Reply?

    /// Creates a stub.
    /// - Parameter fallback: The reply to requests no queued reply or rule answers, if any.
    public init(fallback: Reply? = nil) { self.fallback = fallback }

    /// Answers requests accepted by `matcher` with `replies` in turn; the last one repeats.
    /// - Parameters:
    ///   - matcher: Which requests the rule answers.
    ///   - replies: The replies, in order; an empty list adds nothing.
    public func on(_ matcher: Matcher, reply replies: [Reply]) {
        guard !replies.isEmpty else { return }
        script.withLock { $0.rules.append((matcher, replies, 0)) }
    }

    /// Answers requests accepted by `matcher` with `reply`, every time.
    /// - Parameters:
    ///   - matcher: Which requests the rule answers.
    ///   - reply: The reply.
    public func on(_ matcher: Matcher, reply: Reply) { on(matcher, reply: [reply]) }

    /// Queues replies for the next requests, whatever they are, each used once.
    /// - Parameter replies: The replies, in order.
    public func enqueue(_ replies: Reply...) { script.withLock { $0.queue.append(contentsOf: replies) } }

    /// Every request received, in order, as sent to the transport.
    public var requests: [HTTPRequest] { script.withLock { $0.recorded.map(\.request) } }

    /// Every request received with its body bytes, in order.
    public var recordedRequests: [RecordedRequest] { script.withLock { $0.recorded } }

    /// Forgets the recorded requests (the script is kept).
    public func clearRecords() { script.withLock { $0.recorded.removeAll() } }

    /// Records `request`, waits the reply's delay, and delivers the scripted reply.
    /// - Parameters:
    ///   - request: The request.
    ///   - options: Where upload progress goes.
    /// - Returns: The scripted response.
    /// - Throws: The scripted error, `CancellationError` when cancelled during a delay,
    ///   `ClientError.Code.invalidRequest` when nothing answers the request or its body
    ///   cannot be read.
    public func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
        let reply = script.withLock { nextReply(for: request, in: &$0) }
        let bodyBytes = try await readBody(of: request, progress: options.progress)
        script.withLock { $0.recorded.append(RecordedRequest(request: request, body: bodyBytes)) }
        guard var reply else {
            throw ClientError(.invalidRequest, "StubTransport has no reply for \(request)", request: request)
        }
        while true {
            if reply.delay > .zero { try await Task.sleep(for: reply.delay) }
            try Task.checkCancellation()
            switch reply.kind {
            case .failure(let error): throw error
            case .handler(let handler):
                reply = try await handler(request)
            case .response(var head, let body):
                if head.url == nil { head.url = request.url }
                return TransportResponse(
                    head: head, body: head.hasBody(answering: request) ? Self.arriving(body) : nil,
                    bytesSent: bodyBytes.map { Int64($0.count) })
            }
        }
    }

    /// `data` as a body arriving in chunks of 16 KiB, as from a network.
    private static func arriving(_ data: Data) -> HTTPBody {
        HTTPBody(length: .known(Int64(data.count)), iterationBehavior: .multiple) {
            HTTPBody(data).chunks(size: 16 * 1024)
        }
    }

    private func nextReply(for request: HTTPRequest, in script: inout Script) -> Reply? {
        if !script.queue.isEmpty { return script.queue.removeFirst() }
        for index in script.rules.indices where script.rules[index].matcher.matches(request) {
            let rule = script.rules[index]
            script.rules[index].next = min(rule.next + 1, rule.replies.count - 1)
            return rule.replies[rule.next]
        }
        return fallback
    }

    private func readBody(
        of request: HTTPRequest, progress: (@Sendable (TransferProgress) -> Void)?
    ) async throws
        -> Data?
    {
        guard let body = request.body else { return nil }
        do {
            let data = try await body.collect(upTo: 256 * 1024 * 1024)
            let total = Int64(data.count)
            if total > 0 { progress?(TransferProgress(direction: .upload, completed: total / 2, expected: total)) }
            progress?(TransferProgress(direction: .upload, completed: total, expected: total))
            return data
        } catch {
            throw ClientError(
                .invalidRequest, "StubTransport could not read the request body: \(error)", request: request,
                underlying: error)
        }
    }
}

extension StubTransport {
    /// A scripted reply: a response, a failure, or a function of the request; after a delay.
    public struct Reply: Sendable {
        enum Kind: Sendable {
            case response(HTTPResponse, Data)
            case failure(any Error)
            case handler(@Sendable (HTTPRequest) async throws -> Reply)
        }

        let kind: Kind
        /// How long the transport waits before answering.
        public var delay: Duration

        init(kind: Kind, delay: Duration) {
            self.kind = kind
            self.delay = delay
        }

        /// A response with `status`, header fields and body.
        /// - Parameters:
        ///   - status: The status.
        ///   - headerFields: The header fields.
        ///   - body: The body bytes.
        ///   - delay: The wait before answering.
        /// - Returns: The reply.
        public static func status(
            _ status: HTTPStatus, headerFields: HTTPFields = [], body: Data = Data(), delay: Duration = .zero
        ) -> Reply {
            Reply(kind: .response(HTTPResponse(status: status, headerFields: headerFields), body), delay: delay)
        }

        /// A response made of a head and a body.
        /// - Parameters:
        ///   - head: The response head.
        ///   - body: The body bytes.
        ///   - delay: The wait before answering.
        /// - Returns: The reply.
        public static func response(_ head: HTTPResponse, body: Data = Data(), delay: Duration = .zero) -> Reply {
            Reply(kind: .response(head, body), delay: delay)
        }

        /// A failure: the transport throws `error` (use `ClientError` as real transports do,
        /// or `CancellationError`).
        /// - Parameters:
        ///   - error: The error to throw.
        ///   - delay: The wait before failing.
        /// - Returns: The reply.
        public static func failure(_ error: any Error, delay: Duration = .zero) -> Reply {
            Reply(kind: .failure(error), delay: delay)
        }

        /// A reply computed from the request when it arrives.
        /// - Parameter handler: Returns the reply to use (its own delay then applies too).
        /// - Returns: The reply.
        public static func handler(_ handler: @escaping @Sendable (HTTPRequest) async throws -> Reply) -> Reply {
            Reply(kind: .handler(handler), delay: .zero)
        }
    }

    /// Which requests a rule answers.
    public struct Matcher: Sendable {
        /// Whether the rule answers `request`.
        public let matches: @Sendable (HTTPRequest) -> Bool

        /// A matcher from a predicate.
        /// - Parameter matches: Returns `true` for requests the rule answers.
        public init(_ matches: @escaping @Sendable (HTTPRequest) -> Bool) { self.matches = matches }

        /// Every request.
        public static let any = Matcher { _ in true }

        /// Requests whose URL path is exactly `path`, such as `/v2/users`.
        /// - Parameter path: The path to compare.
        /// - Returns: The matcher.
        public static func path(_ path: String) -> Matcher { Matcher { $0.url.path == path } }

        /// Requests with `method`.
        /// - Parameter method: The method to compare.
        /// - Returns: The matcher.
        public static func method(_ method: HTTPMethod) -> Matcher { Matcher { $0.method == method } }

        /// Requests to exactly `url`.
        /// - Parameter url: The absolute URL to compare.
        /// - Returns: The matcher.
        public static func url(_ url: URL) -> Matcher {
            Matcher { $0.url.absoluteString == url.absoluteString }
        }

        /// Requests to `host`, compared case-insensitively.
        /// - Parameter host: The host name.
        /// - Returns: The matcher.
        public static func host(_ host: String) -> Matcher {
            Matcher { $0.url.host?.lowercased() == host.lowercased() }
        }

        /// Requests both matchers accept.
        /// - Parameter other: The other matcher.
        /// - Returns: The combined matcher.
        public func and(_ other: Matcher) -> Matcher {
            Matcher { [self] in matches($0) && other.matches($0) }
        }
    }

    /// A request the stub received, with the bytes of its body.
    public struct RecordedRequest: Sendable {
        /// The request as the transport got it.
        public let request: HTTPRequest
        /// The body bytes read, or `nil` when it had no body.
        public let body: Data?
    }
}
