import Foundation
import HTTPClient
import HTTPCore
import HTTPEncoding

extension EventStream {
    /// Opens the stream's first connection.
    static func open(
        _ connection: EventConnection, decoding: EventDecoding<Value>, reconnection: EventReconnection?,
        lastEventID: String, maximumEventSize: Int
    ) async throws -> ClientResponse<EventStream> {
        let response = try await connection.open(lastEventID: lastEventID)
        let stream = EventStream(
            response: response?.head ?? HTTPResponse(status: .noContent),
            first: response?.body ?? ResponseStream(.empty),
            connection: connection, reconnection: reconnection, lastEventID: lastEventID,
            maximumEventSize: maximumEventSize, decoding: decoding, stopped: response == nil)
        return ClientResponse(
            head: stream.response, body: stream, request: response?.request ?? connection.request,
            metrics: response?.metrics
                ?? ClientMetrics(attempts: [], redirects: 0, duration: .zero, bytesSent: nil, bytesReceived: nil))
    }
}

extension Client {
    /// Opens a `text/event-stream` and returns its events with their data as text.
    ///
    /// The request gets `Accept: text/event-stream` unless it has an `Accept` field, and goes
    /// through the client's interceptors and retries like any call. The call returns once the
    /// response head is in: a status other than 2xx fails it with an ``EndpointError``
    /// (``EndpointError/Code/unacceptableStatus``), and so does another `Content-Type`
    /// (``EndpointError/Code/unexpectedContentType``); a status the client's retry stack
    /// retries (a `503`) fails it, once the retries are spent, with the client's
    /// `tooManyRetries`. A `204 No Content` gives a stream without events.
    ///
    /// ```swift
    /// let ticks = try await client.events(.get("ticks"), reconnection: .standard)
    /// for try await event in ticks where event.type == "tick" { print(event.id, event.data) }
    /// ```
    /// - Parameters:
    ///   - request: The request.
    ///   - reconnection: How to reopen the stream when it ends or fails; never by default.
    ///   - lastEventID: The ID to resume after, sent as `Last-Event-ID`; none by default.
    ///   - maximumEventSize: The most bytes one event may hold; 8 MiB by default.
    ///   - options: Per-call settings.
    /// - Returns: The events.
    /// - Throws: ``EndpointError`` for the status or type; `ClientError` for the client's failures.
    public func events(
        _ request: HTTPRequest, reconnection: EventReconnection? = nil, lastEventID: String = "",
        maximumEventSize: Int = 8 << 20, options: RequestOptions = RequestOptions()
    ) async throws -> EventStream<String> {
        try await EventStream.open(
            eventConnection(request, options: options), decoding: .text, reconnection: reconnection,
            lastEventID: lastEventID, maximumEventSize: maximumEventSize
        ).body
    }

    /// Opens a `text/event-stream` and returns its events with their data decoded as JSON
    /// into `type`, one at a time, as ``events(_:reconnection:lastEventID:maximumEventSize:options:)`` does.
    ///
    /// ```swift
    /// struct Delta: Decodable, Sendable { var text: String }
    /// let deltas = try await client.events(.get("chat/stream"), as: Delta.self, where: { $0.data != "[DONE]" })
    /// ```
    /// - Parameters:
    ///   - request: The request.
    ///   - type: The type of each event's data.
    ///   - decoder: The JSON decoder; the client's (``EndpointDefaults/jsonDecoder``) when omitted.
    ///   - isIncluded: Which raw events to decode; the others are skipped. All by default.
    ///   - reconnection: How to reopen the stream; never by default.
    ///   - lastEventID: The ID to resume after; none by default.
    ///   - maximumEventSize: The most bytes one event may hold; 8 MiB by default.
    ///   - options: Per-call settings.
    /// - Returns: The decoded events.
    /// - Throws: ``EndpointError`` for the status or type; `ClientError` for the client's failures.
    public func events<Value: Decodable & Sendable>(
        _ request: HTTPRequest, as type: Value.Type, decoder: JSONResponseDecoder? = nil,
        where isIncluded: @escaping @Sendable (ServerSentEvent<String>) -> Bool = { _ in true },
        reconnection: EventReconnection? = nil, lastEventID: String = "", maximumEventSize: Int = 8 << 20,
        options: RequestOptions = RequestOptions()
    ) async throws -> EventStream<Value> {
        let decoder = decoder ?? values.merging(options.values).endpointDefaults.jsonDecoder
        return try await EventStream.open(
            eventConnection(request, options: options), decoding: .json(decoder, isIncluded: isIncluded),
            reconnection: reconnection, lastEventID: lastEventID, maximumEventSize: maximumEventSize
        ).body
    }

    /// The connection of a stream call made without an endpoint.
    func eventConnection(_ request: HTTPRequest, options: RequestOptions) -> EventConnection {
        var request = request
        if let accept = try? HTTPField(name: .accept, value: MediaType.eventStream.description) {
            _ = request.headerFields.setIfAbsent(accept)
        }
        let name = "\(request.method) \(URLRedaction.display(request.url))"
        return EventConnection(
            client: self, request: request, options: options, name: name, accepts: { (200...299).contains($0.code) },
            refusal: { head, body, request in
                EndpointError(
                    .unacceptableStatus, endpoint: name, "the status \(head.status) does not open the stream",
                    request: request, response: head, body: body)
            }, mediaTypes: [.eventStream])
    }
}
