/// No value: the request of an endpoint that sends no body, or the response of one whose
/// body is ignored.
///
/// As a request, nothing is sent (no body, no query); as a response, the body is not read,
/// whatever it holds.
///
/// ```swift
/// let ping = Endpoint<Empty, Empty>(.get, "/status/{code}")
/// try await client.call(ping, variables: ["code": 204])
/// ```
public struct Empty: Codable, Hashable, Sendable {
    /// The empty value.
    public init() {}

    /// Encodes nothing: an empty keyed container.
    /// - Parameter encoder: The encoder.
    public func encode(to encoder: any Encoder) throws {
        _ = encoder.container(keyedBy: PairKey.self)
    }

    /// Decodes from anything, reading nothing.
    /// - Parameter decoder: The decoder.
    public init(from decoder: any Decoder) throws {}
}
