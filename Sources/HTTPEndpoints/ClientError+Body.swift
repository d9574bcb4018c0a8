import Foundation
import HTTPClient
import HTTPCore
import HTTPEncoding

extension ClientError {
    /// The first bytes of the response body (`bodyPrefix`, at most
    /// `ClientError.bodyPrefixLimit`) decoded as JSON into `type`, or `nil` when there is no
    /// body or it is not one.
    ///
    /// The same name reads the body of an ``EndpointError`` and of a response. A
    /// `ClientError` does not know the client that made it, so it decodes with a default
    /// decoder unless given one (`client.values.endpointDefaults.jsonDecoder` is the
    /// client's), and never inside an envelope: error bodies are read whole.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - decoder: The JSON decoder; a default `JSONDecoder`'s unless given.
    /// - Returns: The decoded body, or `nil`.
    public func body<Body: Decodable>(
        as type: Body.Type, decoder: JSONResponseDecoder = JSONResponseDecoder()
    ) -> Body? {
        guard let bodyPrefix, !bodyPrefix.isEmpty, let response else { return nil }
        return try? decoder.decode(type, from: bodyPrefix, response: response)
    }
}
