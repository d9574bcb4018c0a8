import Foundation
import HTTPClient
import HTTPCore
import HTTPTypes
import HeronHTTPTypes
import OpenAPIRuntime

extension HeronTransport {
    /// The response head as swift-http-types holds it.
    /// - Throws: `ClientError.Code.invalidResponse` when swift-http-types cannot hold it
    ///   unchanged (the conversion error as its `underlying`).
    static func openAPIHead(
        _ head: HTTPCore.HTTPResponse, request: HTTPCore.HTTPRequest
    ) throws -> HTTPTypes.HTTPResponse {
        do {
            return try HTTPTypes.HTTPResponse(head)
        } catch {
            throw HTTPClient.ClientError(
                .invalidResponse, "the response cannot be handed to the generated client: \(error)", request: request,
                response: head, underlying: error)
        }
    }

    /// Whether a response may have content: not one to `HEAD`, nor a `1xx`, `204` or `304`
    /// (RFC 9110 §6.4.1), which the generated code then gets with no body at all.
    static func hasContent(_ head: HTTPCore.HTTPResponse, method: HTTPMethod) -> Bool {
        let code = head.status.code
        return method != .head && code >= 200 && code != 204 && code != 304
    }

    /// The body's length as the reader will see it: `Content-Length`, unless a content
    /// coding is named (a transport may decode it, and the length is then the coded one's).
    static func bodyLength(_ head: HTTPCore.HTTPResponse) -> OpenAPIRuntime.HTTPBody.Length {
        guard let length = head.contentLength else { return .unknown }
        if let coding = head.headerFields[.contentEncoding], coding.lowercased() != "identity" { return .unknown }
        return .known(length)
    }
}

/// A Heron response stream as the chunks of an OpenAPIRuntime body, each chunk as it arrives.
///
/// Read once, as the stream allows: the OpenAPIRuntime body is made `.single`.
struct ResponseChunks: AsyncSequence, Sendable {
    typealias Element = OpenAPIRuntime.HTTPBody.ByteChunk

    let stream: ResponseStream

    init(_ stream: ResponseStream) { self.stream = stream }

    func makeAsyncIterator() -> Iterator { Iterator(base: stream.makeAsyncIterator()) }

    struct Iterator: AsyncIteratorProtocol {
        var base: ResponseStream.AsyncIterator

        mutating func next() async throws -> OpenAPIRuntime.HTTPBody.ByteChunk? {
            guard let chunk = try await base.next() else { return nil }
            return OpenAPIRuntime.HTTPBody.ByteChunk(chunk)
        }
    }
}
