import Foundation

extension ProxyPolicy: CustomReflectable {
    /// One child, the ``description``: an environment's values shown with their credentials
    /// redacted. The default mirror walked into the environment's variables and showed each
    /// proxy URL whole, password and all, in `dump` and a debugger's `po`.
    public var customMirror: Mirror {
        Mirror(self, children: [(label: "policy", value: description as Any)], displayStyle: .struct)
    }
}
