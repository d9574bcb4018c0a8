import Foundation

/// How the keys of an `Encodable` value (its coding keys and `String` dictionary keys)
/// are written, shared by the form, query and multipart encoders.
///
/// Decoders use the same strategy in the same direction: they convert the key a type
/// asks for (`userName`) and look that up (`user_name`), so the conversion needs no
/// inverse and round-trips exactly.
///
/// ```swift
/// KeyEncodingStrategy.convertToSnakeCase.encode("userID")      // "user_id"
/// KeyEncodingStrategy.convertToKebabCase.encode("createdAt")   // "created-at"
/// KeyEncodingStrategy.custom { $0.uppercased() }.encode("id")  // "ID"
/// ```
public struct KeyEncodingStrategy: Sendable {
    enum Kind: Sendable {
        case useDefaultKeys
        case separated(UInt8)
        case custom(@Sendable (String) -> String)
    }

    let kind: Kind

    /// Keys as written in the type: the default.
    public static let useDefaultKeys = KeyEncodingStrategy(kind: .useDefaultKeys)

    /// `camelCase` words joined by `_` and lowercased: `userID` → `user_id`,
    /// `myURLValue` → `my_url_value`. Leading and trailing underscores are kept.
    public static let convertToSnakeCase = KeyEncodingStrategy(kind: .separated(UInt8(ascii: "_")))

    /// `camelCase` words joined by `-` and lowercased: `createdAt` → `created-at`.
    public static let convertToKebabCase = KeyEncodingStrategy(kind: .separated(UInt8(ascii: "-")))

    /// Keys converted by `transform`.
    /// - Parameter transform: Maps a key as written in the type to the key to send.
    /// - Returns: The strategy.
    public static func custom(_ transform: @escaping @Sendable (String) -> String) -> KeyEncodingStrategy {
        KeyEncodingStrategy(kind: .custom(transform))
    }

    /// Whether keys are used unchanged.
    var isIdentity: Bool {
        if case .useDefaultKeys = kind { return true }
        return false
    }

    /// Applies the strategy to one key.
    /// - Parameter key: A key as written in the type, such as `userID`.
    /// - Returns: The key to send, such as `user_id`.
    public func encode(_ key: String) -> String {
        switch kind {
        case .useDefaultKeys: return key
        case .separated(let separator): return Self.separateWords(key, with: separator)
        case .custom(let transform): return transform(key)
        }
    }

    /// Splits `key` into words at lower-to-upper transitions and before the last capital
    /// of a run of capitals followed by a lowercase letter, joins them with `separator`
    /// and lowercases ASCII capitals. Non-ASCII characters are copied unchanged.
    static func separateWords(_ key: String, with separator: UInt8) -> String {
        let bytes = Array(key.utf8)
        guard bytes.contains(where: isUpper) else { return key }
        var start = 0
        while start < bytes.count, bytes[start] == UInt8(ascii: "_") { start += 1 }
        var end = bytes.count
        while end > start, bytes[end - 1] == UInt8(ascii: "_") { end -= 1 }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 4)
        out.append(contentsOf: bytes[0..<start])
        for index in start..<end {
            let byte = bytes[index]
            if isUpper(byte) {
                if index > start {
                    let previous = bytes[index - 1]
                    let nextIsLower = index + 1 < end && isLower(bytes[index + 1])
                    if isLower(previous) || isDigit(previous) || (isUpper(previous) && nextIsLower) {
                        out.append(separator)
                    }
                }
                out.append(byte + 32)
            } else {
                out.append(byte)
            }
        }
        out.append(contentsOf: bytes[end...])
        return String(decoding: out, as: UTF8.self)
    }

    private static func isUpper(_ byte: UInt8) -> Bool { byte >= 0x41 && byte <= 0x5A }
    private static func isLower(_ byte: UInt8) -> Bool { byte >= 0x61 && byte <= 0x7A }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
}
