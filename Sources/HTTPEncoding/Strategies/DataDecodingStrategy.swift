import Foundation

/// How text is read back into `Data`: the inverse of ``DataEncodingStrategy``.
///
/// ```swift
/// try DataDecodingStrategy.base64.decode("aGk=")  // the bytes of "hi"
/// ```
public struct DataDecodingStrategy: Sendable {
    enum Kind: Sendable {
        case base64
        case custom(@Sendable (String) throws -> Data)
    }

    let kind: Kind

    /// Standard base64 with padding (RFC 4648 §4): the default.
    public static let base64 = DataDecodingStrategy(kind: .base64)

    /// Bytes read by `parse`.
    /// - Parameter parse: Turns text into bytes; an error it throws is wrapped in
    ///   ``HTTPEncodingError`` with code ``HTTPEncodingError/Code/strategyFailed``.
    /// - Returns: The strategy.
    public static func custom(_ parse: @escaping @Sendable (String) throws -> Data) -> DataDecodingStrategy {
        DataDecodingStrategy(kind: .custom(parse))
    }

    /// Applies the strategy to one piece of text.
    /// - Parameter text: The text of the bytes.
    /// - Returns: The bytes.
    /// - Throws: ``HTTPEncodingError`` with code ``HTTPEncodingError/Code/typeMismatch`` when the
    ///   text is not base64, or ``HTTPEncodingError/Code/strategyFailed`` when a custom closure throws.
    public func decode(_ text: String) throws(HTTPEncodingError) -> Data {
        switch kind {
        case .base64:
            guard let data = Data(base64Encoded: text) else {
                throw HTTPEncodingError(.typeMismatch, value: text, reason: "not base64 (RFC 4648 §4)")
            }
            return data
        case .custom(let parse):
            do {
                return try parse(text)
            } catch {
                throw HTTPEncodingError(
                    .strategyFailed, value: text, reason: "the custom data decoding strategy threw", underlying: error)
            }
        }
    }
}
