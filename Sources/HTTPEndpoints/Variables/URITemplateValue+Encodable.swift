extension URITemplate.Value: Encodable {
    /// Encodes the value as a string, an array of strings, or a keyed container whose keys
    /// keep their order, so a value can stand among the `Encodable` variables of a call
    /// (`variables: ["tags": URITemplate.Value.associative([...])]`).
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .string(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .list(let items):
            var container = encoder.unkeyedContainer()
            for item in items { try container.encode(item) }
        case .associative(let pairs):
            var container = encoder.container(keyedBy: PairKey.self)
            for pair in pairs { try container.encode(pair.value, forKey: PairKey(pair.key)) }
        }
    }
}

/// A coding key with any name.
struct PairKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { stringValue = String(intValue) }
}
