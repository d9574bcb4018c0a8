import Foundation
import HTTPClient
import HTTPCore
import HTTPEncoding

/// What a streamed response needs to be opened, and opened again: the client, the
/// request as built, the call's options and how its status is judged.
struct EventConnection: Sendable {
    let client: Client
    let request: HTTPRequest
    let options: RequestOptions
    /// The name errors give the call: the endpoint's, or the method and URL.
    let name: String
    /// Whether a status is accepted (2xx unless the endpoint says otherwise).
    let accepts: @Sendable (HTTPStatus) -> Bool
    /// The error for a response whose status is not accepted, given its head, the start of
    /// its body and the request as sent.
    let refusal: @Sendable (HTTPResponse, Data, HTTPRequest) -> any Error
    /// The media types the body may have; any when empty.
    var mediaTypes: [MediaType]

    /// Opens the stream, with `Last-Event-ID` when `lastEventID` is not empty.
    /// - Returns: The response, or `nil` for a `204 No Content` (the server's way to stop
    ///   an event stream).
    func open(lastEventID: String = "") async throws -> ClientResponse<ResponseStream>? {
        var request = request
        if !lastEventID.isEmpty {
            // The ID came from the server's own `id` lines, which hold no CR or LF; a NUL
            // would have been ignored by the parser. Anything else unsendable is dropped.
            try? request.headerFields.set(.lastEventID, lastEventID)
        }
        let response = try await client.stream(request, options: options)
        if response.status.code == 204 { return nil }
        guard accepts(response.status) else {
            let body = (try? await Client.collect(response.body, limit: EndpointError.bodyLimit)) ?? Data()
            throw refusal(response.head, body, response.request)
        }
        if !mediaTypes.isEmpty {
            let type = response.head.contentType
            guard let type, mediaTypes.contains(where: { $0.type == type.type && $0.subtype == type.subtype }) else {
                throw EndpointError(
                    .unexpectedContentType, endpoint: name,
                    "the response is \(type?.description ?? "without a Content-Type"), not "
                        + mediaTypes.map(\.description).joined(separator: " or "),
                    request: response.request, response: response.head)
            }
        }
        return response
    }
}
