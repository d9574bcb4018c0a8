import Foundation

/// How `Data` is written as text, shared by the form, query and multipart encoders.
///
/// ```swift
/// try DataEncodingStrategy.base64.encode(Data("hi".utf8))  // "aGk="
/// let hex = DataEncodingStrategy.custom { data in data.map { String(format: "%02x", $0) }.joined() }
/// try hex.encode(Data([0xCA, 0xFE]))                      // "cafe"
/// ```
public struct DataEncodingStrategy: Sendable {
    enum Kind: Sendable {
        case base64
        case custom(@Sendable (Data) throws -> String)
    }

    let kind: Kind

    /// Standard base64 with padding (RFC 4648 §4): the default.
    public static let base64 = DataEncodingStrategy(kind: .base64)

    /// Text made by `format`.
    /// - Parameter format: Turns bytes into text; an error it throws is wrapped in
    ///   ``HTTPEncodingError`` with code ``HTTPEncodingError/Code/strategyFailed``.
    /// - Returns: The strategy.
    public static func custom(_ format: @escaping @Sendable (Data) throws -> String) -> DataEncodingStrategy {
        DataEncodingStrategy(kind: .custom(format))
    }

    /// Applies the strategy to some bytes.
    /// - Parameter data: The bytes to write.
    /// - Returns: Their text.
    /// - Throws: ``HTTPEncodingError`` with code ``HTTPEncodingError/Code/strategyFailed`` when a
    ///   custom closure throws.
    public func encode(_ data: Data) throws(HTTPEncodingError) -> String {
        switch kind {
        case .base64:
            return data.base64EncodedString()
        case .custom(let format):
            do {
                return try format(data)
            } catch {
                throw HTTPEncodingError(
                    .strategyFailed, value: "\(data.count) bytes", reason: "the custom data encoding strategy threw",
                    underlying: error)
            }
        }
    }
}
