import HTTPCore

/// What a credential-holding type shows in place of its secret, in its description and in its
/// mirror: `<redacted>`, the same text for every secret, so that nothing of it (not even its
/// length) is printed. Its static members show the values that carry secrets (header fields)
/// as mirrors of this package show them.
package struct Redacted: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The marker.
    package init() {}

    /// `<redacted>`.
    package var description: String { "<redacted>" }
    /// `<redacted>`.
    package var debugDescription: String { description }
    /// No children: `dump` prints `<redacted>` alone.
    package var customMirror: Mirror { Mirror(self, children: [], displayStyle: nil) }

    /// Words that make a field name a credential's: `X-Api-Key`, `X-Auth-Token`,
    /// `X-Session-Secret`, …
    private static let credentialWords = [
        "auth", "key", "token", "secret", "password", "session", "signature", "credential", "cookie",
    ]

    /// Whether a field's value is a credential: the fields every log redacts, and any whose
    /// name speaks of one.
    /// - Parameter name: The field's name.
    /// - Returns: Whether its value is hidden.
    package static func isCredential(_ name: HTTPFieldName) -> Bool {
        if Logging.redactedFields.contains(name) { return true }
        return credentialWords.contains { name.canonicalName.contains($0) }
    }

    /// Header fields as `Name: value`, a credential's value (``isCredential(_:)``) `<redacted>`.
    /// - Parameter fields: The fields.
    /// - Returns: One line a field, in order.
    package static func lines(of fields: HTTPFields) -> [String] {
        fields.map { field in "\(field.name.rawName): \(isCredential(field.name) ? "<redacted>" : field.value)" }
    }
}
