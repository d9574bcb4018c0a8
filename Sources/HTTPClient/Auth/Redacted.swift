/// What a credential-holding type shows in place of its secret, in its description and in its
/// mirror: `<redacted>`, the same text for every secret, so that nothing of it (not even its
/// length) is printed.
struct Redacted: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    var description: String { "<redacted>" }
    var debugDescription: String { description }
    var customMirror: Mirror { Mirror(self, children: [], displayStyle: nil) }
}
