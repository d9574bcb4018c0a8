import Foundation

/// Every text a value is printed as: what the secrets tests search for a password, a token or
/// a key.
public enum Renderings {
    /// The value as interpolation, `String(describing:)`, `String(reflecting:)` (a debugger's
    /// `po`) and `dump` show it, then each child of its mirror, at every depth down to `depth`
    /// (a class met twice is walked once), by its label, `String(describing:)` and
    /// `String(reflecting:)`; an error also by its `localizedDescription`.
    /// - Parameters:
    ///   - value: The value.
    ///   - depth: How deep the mirror is walked.
    /// - Returns: The texts.
    public static func of<Value>(_ value: Value, depth: Int = 12) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        var texts = ["\(value)", String(describing: value), String(reflecting: value), dumped]
        if let error = value as? any Error { texts.append(error.localizedDescription) }
        var seen: Set<ObjectIdentifier> = []
        func walk(_ subject: Any, _ level: Int) {
            guard level < depth else { return }
            if type(of: subject) is AnyClass, !seen.insert(ObjectIdentifier(subject as AnyObject)).inserted { return }
            var mirror: Mirror? = Mirror(reflecting: subject)
            while let current = mirror {
                for child in current.children {
                    texts.append("\(child.label ?? "_"): \(String(describing: child.value))")
                    texts.append(String(reflecting: child.value))
                    walk(child.value, level + 1)
                }
                mirror = current.superclassMirror
            }
        }
        walk(value, 0)
        return texts
    }
}
