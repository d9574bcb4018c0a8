/// Sees every step of every request and changes nothing: metrics, tracing, auditing.
///
/// Each observer gets its own unbounded queue of events, drained by its own task, so a
/// slow observer never delays a request (it only falls behind). Under load a drain
/// delivers what gathered over about 50 ms at once, to wake its task less often. Events
/// of one request arrive in the order they happened; events of concurrent requests
/// interleave. Events already queued when the client is released are still delivered.
///
/// To keep the request path cheap, the client hands a call's events over in small
/// batches at the points where the call waits anyway: before each transport call (with
/// `prepared` and `sent`), before each retry wait, and when the call ends. Each event's
/// ``ClientEvent/elapsed`` is the time it happened, not the time it was delivered.
///
/// ```swift
/// actor SentCounter: ClientObserver {
///     private(set) var sent = 0
///
///     func receive(_ event: ClientEvent) async {
///         if case .sent = event.kind { sent += 1 }
///     }
/// }
/// ```
public protocol ClientObserver: Sendable {
    /// Handles one event; may take as long as it likes.
    /// - Parameter event: What happened.
    func receive(_ event: ClientEvent) async
}

/// An observer made from a closure.
///
/// ```swift
/// let printer = EventObserver { event in print(event) }
/// let client = Client(baseURL: baseURL, observers: [printer])
/// _ = try await client.send(HTTPRequest(url: URL(string: "get")!))
/// // #1 prepared GET http://…/get (attempt 1), then sent, received, finished
/// ```
public struct EventObserver: ClientObserver {
    private let handler: @Sendable (ClientEvent) async -> Void

    /// Creates an observer that passes each event to `handler`.
    /// - Parameter handler: Called once per event, one at a time, in order.
    public init(_ handler: @escaping @Sendable (ClientEvent) async -> Void) { self.handler = handler }

    /// Passes the event to the closure.
    /// - Parameter event: What happened.
    public func receive(_ event: ClientEvent) async { await handler(event) }
}
