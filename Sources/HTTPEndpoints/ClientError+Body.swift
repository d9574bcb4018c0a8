import Foundation
import HTTPClient
import HTTPCore
import HTTPEncoding

extension ClientError {
    /// The first bytes of the response body (`bodyPrefix`, at most
    /// `ClientError.bodyPrefixLimit`) decoded as JSON into `type`, or `nil` when there is no
    /// body or it is not one.
    ///
    /// The same name reads the body of an ``EndpointError`` and of a response:
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - decoder: The JSON decoder.
    /// - Returns: The decoded body, or `nil`.
    public func body<Body: Decodable>(
        as type: Body.Type, decoder: JSONResponseDecoder = JSONResponseDecoder()
    ) -> Body? {
        guard let bodyPrefix, !bodyPrefix.isEmpty, let response else { return nil }
        return try? decoder.decode(type, from: bodyPrefix, response: response)
    }
}
